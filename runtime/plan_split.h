// Splitting a bound graph at a data-dependent node (graph/ops/data_dependent.h), for plans
// whose sizes are known only while running (NonZero, Compress, NonMaxSuppression).
//
// Algorithm: after binding and folding, the first node in topological order whose output
// is not static must be data-dependent (anything else is an error). The graph is cut after
// it: the prefix keeps nodes [0, cut] and outputs every "live" value, one the rest reads or
// the model outputs (graph inputs included), in value order; the node's output is given its
// bound on the data-dependent dim, so the prefix plans memory for the largest case. The rest
// keeps the later nodes with the live values as its inputs, in the same order, and the
// model's outputs. Its plan is built once the real size is known; if it has another
// data-dependent node it is split again the same way.
#pragma once

#include <optional>
#include <string>

#include "graph/ir/graph.h"
#include "graph/ops/data_dependent.h"
#include "runtime/common/status.h"

namespace amp::runtime {

struct PlanSplit {
  graph::Graph rest;
  std::string dynamic_value;  // the cut node's output 0, by name (ids change on compaction)
  graph::DataDependentDim dim;
  size_t cut = 0;  // the cut node's index in the prefix
};

// Cuts `g` (bound and folded) as described above; nullopt when every shape is static.
Result<std::optional<PlanSplit>> split_at_data_dependent(graph::Graph& g);

}  // namespace amp::runtime
