// Per-op schema: arity and the shape & dtype inference rule, one table indexed by OpType
// and generated from op_types.def (columns inputs, outputs, infer). The rules live in the
// op-family files (infer_elementwise.cc, infer_movement.cc, infer_reduction.cc,
// infer_nn.cc, infer_shape_ops.cc; declarations in infer_rules.h).
//
// An inference rule sees the node, its inputs (nullptr for an absent optional input;
// constant data available through Value::constant) and fills one OutputInfo per node
// output, and the node's typed attribute record (op_attrs.h) where the op has one. It
// validates what it reads: wrong arity, dtypes the op does not accept,
// incompatible shapes, out-of-range axes and bad attributes are errors naming the
// problem (the caller adds the node's name). Symbolic dims propagate by name where the
// rule allows (broadcast of "N" with "N" or 1 gives "N"); otherwise an unnamed symbolic
// dim. An output whose rank cannot be known has shape nullopt.
#pragma once

#include <optional>
#include <vector>

#include "graph/ir/graph.h"
#include "runtime/common/status.h"

namespace amp::graph {

struct OutputInfo {
  DType dtype = DType::kUndefined;
  std::optional<Shape> shape;
};

using InferFn = Status (*)(const Node& node, const std::vector<const Value*>& inputs,
                           std::vector<OutputInfo>& outputs, OpAttrs& attrs);

struct OpSchema {
  int min_inputs = 1;
  int max_inputs = 1;  // kAnyCount: variadic (Concat, Max, Min)
  int min_outputs = 1;
  int max_outputs = 1;  // kAnyCount for Split
  InferFn infer = nullptr;
};

const OpSchema& op_schema(OpType op);

}  // namespace amp::graph
