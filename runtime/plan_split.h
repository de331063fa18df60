// Splitting a bound graph at a data-dependent node (graph/ops/data_dependent.h), for plans
// whose sizes are known only while running (NonZero, Compress, NonMaxSuppression).
//
// Algorithm: after binding and folding, find the first node in topological order whose
// output is not static. Either
//   - it is data-dependent: the graph is cut after it. The prefix keeps nodes [0, cut] and
//     outputs every "live" value, one the rest reads or the model outputs (graph inputs
//     included), in value order; the node's output is given its bound on the data-dependent
//     dim, so the prefix plans memory for the largest case; or
//   - a value that decides its shape (op_types.def's shape_inputs: TopK's K, Range's limits,
//     Reshape's shape, ...) is computed at run time (not folded): the graph is cut before it,
//     so that value becomes an input of the rest, which binds it by value like a model input
//     that decides shapes (graph/ops/shape_inputs.h). Anything else is an error.
// The rest keeps the later nodes with the live values as its inputs, in the same order, and
// the model's outputs. Its plan is built once the real sizes (and values) are known; it is
// split again the same way if it needs to be.
#pragma once

#include <optional>
#include <string>

#include "graph/ir/graph.h"
#include "graph/ops/data_dependent.h"
#include "runtime/common/status.h"

namespace amp::runtime {

struct PlanSplit {
  graph::Graph rest;
  // Cut after a data-dependent node: its output 0, by name (ids change on compaction), and
  // its dim; empty for a cut before a node whose shape values are computed.
  std::string dynamic_value;
  graph::DataDependentDim dim;
  size_t cut = 0;  // the data-dependent node's index in the prefix
};

// Cuts `g` (bound and folded) as described above; nullopt when every shape is static.
Result<std::optional<PlanSplit>> split_at_data_dependent(graph::Graph& g);

}  // namespace amp::runtime
