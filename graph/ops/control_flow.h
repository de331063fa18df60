// If, Loop and Scan: how a control-flow node's inputs and outputs line up with its bodies'.
//
// ONNX bodies may read any value of an enclosing graph by name (outer scope). The importer
// makes those reads explicit (graph/onnx/onnx_subgraph.h): each captured value becomes a
// trailing input of the node and a trailing input of every body, in the same order, and
// the node's int attribute "captured_inputs" (ours, not ONNX's) counts them. A body is then
// a self-contained Graph that reads only its inputs and its constants, so the verifier,
// shape inference, the AMP planner and the runtime treat it as a graph of its own.
//
//   If    node inputs  [cond, captures...]
//         then_branch and else_branch: inputs [captures...], outputs = the node's outputs
//   Loop  node inputs  [M, cond, carried_1..N, captures...]        (M and cond optional)
//         body inputs  [iteration (i64 []), cond (bool []), carried..., captures...]
//         body outputs [cond, carried..., scan_1..S]; node outputs [carried..., scan...]
//   Scan  node inputs  [state_1..N, x_1..M, captures...]            (M = num_scan_inputs)
//         body inputs  [state..., one slice of each x..., captures...]
//         body outputs [state..., y slices 1..S]; node outputs [state..., y...]
//         Opset 8 adds a leading optional sequence_lens input and a leading batch dim on
//         every state and scan tensor; the body sees one batch entry at a time.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "graph/ir/graph.h"
#include "runtime/common/status.h"

namespace amp::graph {

struct ControlFlowLayout {
  size_t captures = 0;       // trailing inputs shared with every body
  size_t first_carried = 0;  // node input index of the first carried value / Scan state
  size_t carried = 0;        // Loop's carried values, Scan's states (N)
  size_t scan_inputs = 0;    // Scan's M
  size_t scan_outputs = 0;   // Loop's and Scan's stacked outputs (S)
  bool scan8 = false;        // Scan opset 8 (batch dim, sequence_lens)
};

// The node's graph attributes, in the order of its bodies: If: then_branch, else_branch;
// Loop and Scan: body.
std::vector<std::string> body_attr_names(OpType op);

// The node's bodies, in body_attr_names order; an error naming a missing one.
Result<std::vector<std::shared_ptr<const Graph>>> node_bodies(const Node& n);

// Reads captured_inputs and checks the node's input and output counts against its bodies'
// (the table above); errors name the node's op and what does not line up.
Result<ControlFlowLayout> control_flow_layout(const Node& n);

}  // namespace amp::graph
