// Symbolic shape values: the elements of the small integer tensors that dynamic models
// compute their shapes with, known as SymInts (graph/ir/sym_int.h) where they are not
// constants, so that Reshape, Expand, ConstantOfShape and Range get named output dims.
//
// Algorithm: infer_node, after an op's shape rule, calls propagate_sym_values. An output
// gets a sym_value when it is an integer (or bool) tensor of rank <= 1 with at most kMaxSymElements
// elements and the op is one of
//   Shape, Size                  the input's dims (from the inferred, possibly symbolic shape)
//   Identity, Cast (int to int), Reshape, Squeeze, Unsqueeze, Flatten
//                                the input's elements in order
//   Concat (axis 0), Gather (constant indices), Slice (constant starts/ends/axes/steps)
//   Add, Sub, Mul, Div, Max, Min (elementwise, a one-element side broadcast; Div exact,
//                                Max / Min where the operands are constants or equal)
//   Equal, Where                 TorchScript's Where(Equal(shape, -1), 1, shape): equal
//                                operands, constants, or a dims polynomial against a
//                                negative constant (never equal); Where by a known condition
// over inputs whose elements are known (a constant, or an earlier sym_value). The shape rules
// read them through sym_ints(). Integer ops are exact, so what this derives is what the plan,
// which binds every dim, computes; binding re-infers and checks every shape.
#pragma once

#include <optional>
#include <vector>

#include "graph/ir/graph.h"

namespace amp::graph {

inline constexpr int64_t kMaxSymElements = 64;

// The elements of v as SymInts: its constant's (an integer tensor of rank <= 1 and at most
// kMaxSymElements elements) or its sym_value; nullopt when neither.
std::optional<std::vector<SymInt>> sym_ints(const Value& v);

// Sets (or clears) the sym_value of n's outputs from its inputs' (see above).
void propagate_sym_values(const Node& n, const std::vector<const Value*>& inputs,
                          std::vector<Value*>& outputs);

}  // namespace amp::graph
