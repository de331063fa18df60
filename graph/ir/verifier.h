// verify_graph: the structural rules every Graph must satisfy, checked after import,
// after reading a .amp file, and by the pass manager after every pass.
//
// Rules (each failure is kInvalidModel naming the node or value):
//   1. Every ValueId in nodes and graph io is in range (node inputs/outputs may be
//      kNoValue for absent optionals; graph io may not).
//   2. Value names are non-empty and unique; node names are unique.
//   3. Each value has at most one definition: graph input, constant, or one node output.
//      A graph input is never a constant.
//   4. Topological order: every node input is defined before the node (this also rejects
//      cycles). Graph outputs are defined.
//   5. Constants: the TensorData's dtype equals the value's dtype, and its dims equal the
//      value's shape when one is recorded.
//   6. Every node has at least one output; op types are in range.
//   7. Every recorded shape is within the caps of ir/limits.h (rank, element count, bytes);
//      exceeding the byte cap is kOutOfMemory, the rest kInvalidModel.
//   8. Subgraph attributes (If/Loop/Scan bodies) hold a graph that obeys these rules itself,
//      nested at most kMaxSubgraphDepth levels (ir/limits.h). How a body's inputs line up with
//      its node's is the op's business (graph/ops/control_flow.h, checked by inference).
#pragma once

#include "graph/ir/graph.h"
#include "runtime/common/status.h"

namespace amp::graph {

Status verify_graph(const Graph& g);

}  // namespace amp::graph
