// Per-op schema: arity and the shape & dtype inference rule. One table indexed by
// OpType (static_assert on kOpCount), filled from the op-family files
// (infer_elementwise.cc, infer_movement.cc, infer_reduction.cc, infer_nn.cc,
// infer_shape_ops.cc; declarations in infer_rules.h).
//
// An inference rule sees the node, its inputs (nullptr for an absent optional input;
// constant data available through Value::constant) and fills one OutputInfo per node
// output. It validates what it reads: wrong arity, dtypes the op does not accept,
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
                           std::vector<OutputInfo>& outputs);

struct OpSchema {
  int min_inputs = 1;
  int max_inputs = 1;  // -1: variadic
  int min_outputs = 1;
  int max_outputs = 1;  // kAnyOutputs (INT_MAX) for Split
  InferFn infer = nullptr;
};

const OpSchema& op_schema(OpType op);

}  // namespace amp::graph
