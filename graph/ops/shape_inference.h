// Shape and dtype inference over a graph, using the per-op rules of op_schema.h.
//
// infer_shapes walks the nodes in topological order; for each node it checks arity,
// calls the op's rule, writes dtype and shape into the output values, and stores the
// typed attribute record the rule filled in Node::resolved (op_attrs.h). A value that
// already has a shape (e.g. from the ONNX file's value_info or graph outputs) is overwritten
// by the inferred one, even where the two disagree: a declaration is a hint (exporters write
// wrong ones; ONNX Runtime merges them leniently). Every
// output shape is checked against the caps of ir/limits.h (rank, element count, bytes).
#pragma once

#include "graph/ir/graph.h"
#include "runtime/common/status.h"

namespace amp::graph {

// Whether infer_node derives its outputs' symbolic values (graph/ops/sym_values.h).
// ConstantFolding skips them for a node it is about to fold: a constant's elements are
// read before any sym_value, so deriving them would be wasted.
enum class SymValues { kDerive, kClear };

// Infers one node's outputs. Errors are prefixed with the node's name and op.
Status infer_node(Graph& g, NodeId node, SymValues sym = SymValues::kDerive);
// Infers every node in order.
Status infer_shapes(Graph& g);

}  // namespace amp::graph
