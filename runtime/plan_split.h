// Splitting a bound graph where its plan cannot go on: at a data-dependent node
// (graph/ops/data_dependent.h: NonZero, Compress, NonMaxSuppression), before a node whose
// shape waits for a computed value, and at a control-flow node (If, Loop, Scan).
//
// Algorithm: after binding and folding, find the first node in topological order that is a
// control-flow node or has an output that is not static. Either
//   - it is data-dependent: the graph is cut after it. The prefix keeps nodes [0, cut], then
//     every later node that reads no value of the rest (moved up, in order): other
//     data-dependent nodes whose inputs are static, and nodes of static outputs that read
//     none of theirs. A detector exported from PyTorch selects each class's boxes with a
//     NonZero and takes the top ones with a TopK whose K is min(count, k): 90 classes were
//     90 cuts before a NonZero and 90 before a TopK, each a plan built anew whenever a
//     count changed (every image), for all of the graph after it; with the NonZeros in one
//     prefix, the Ks fold when the rest is bound, one cut in all. The prefix outputs every
//     "live" value, one the rest reads or the model outputs (graph inputs included), in value
//     order; each data-dependent output is given its bound on its data-dependent dim, so the
//     prefix plans memory for the largest case; or
//   - a value that decides its shape (op_types.def's shape_inputs: TopK's K, Range's limits,
//     Reshape's shape, ...) is computed at run time (not folded): the graph is cut before it,
//     so that value becomes an input of the rest, which binds it by value like a model input
//     that decides shapes (graph/ops/shape_inputs.h); or
//   - it is a control-flow node: the prefix ends before it and outputs the live values (the
//     node's inputs among them); the ExecutionContext runs the node's bodies on them
//     (runtime/control_flow.h); the rest starts after the node and takes, as its inputs, the
//     live values it still reads followed by the node's outputs it reads.
// Anything else is an error. The rest keeps the later nodes and the model's outputs. Its
// plan is built once the real sizes (and values) are known; it is split again the same way
// if it needs to be. Values cross the cut by name (ids change when each side is compacted).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "graph/ir/graph.h"
#include "graph/ops/data_dependent.h"
#include "runtime/common/status.h"

namespace amp::runtime {

// A cut at a control-flow node.
struct ControlCut {
  graph::Node node;                 // as in the bound graph (ids meaningless: use the names)
  std::vector<std::string> inputs;  // per node input: its value's name, "" when absent
  std::vector<std::optional<graph::TensorData>> constants;  // per node input, when constant
  std::vector<std::string> outputs;  // per node output: its value's name, "" when absent
};

// A data-dependent node of the prefix: its index there, its output 0 by name (ids change on
// compaction), and the dim it sizes.
struct DynamicCut {
  size_t step = 0;
  std::string value;
  graph::DataDependentDim dim;
};

struct PlanSplit {
  graph::Graph rest;
  std::vector<DynamicCut> dynamic;  // a cut after data-dependent nodes; empty for others
  std::optional<ControlCut> control;
  std::vector<std::string> stage;  // the prefix's outputs by name, in order
};

// Cuts `g` (bound and folded) as described above; nullopt when every shape is static and no
// control-flow node is left.
Result<std::optional<PlanSplit>> split_at_data_dependent(graph::Graph& g);

}  // namespace amp::runtime
