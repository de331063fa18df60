// For tests that drive one kernel directly: the test's node placed in a one-node graph
// with inputs and outputs of the given descriptions (constant inputs keep their bytes) and
// shape-inferred, as the runtime does before prepare(), so the node carries its typed
// record (graph/ops/op_attrs.h). An inference error is returned as it is: bad attributes
// are rejected there, once, for every backend; so is an output dtype inference disagrees
// with (the runtime never hands a kernel one).
//
//   AMP_ASSIGN_OR_RETURN(graph::Graph g, infer_single_node(node, cfg.inputs, cfg.outputs));
//   cfg.node = &g.nodes[0];
#pragma once

#include <vector>

#include "graph/ir/graph.h"
#include "kernels/kernel.h"
#include "runtime/common/status.h"

namespace amp::test {

Result<graph::Graph> infer_single_node(const graph::Node& node,
                                       const std::vector<kernels::TensorDesc>& inputs,
                                       const std::vector<kernels::TensorDesc>& outputs);

}  // namespace amp::test
