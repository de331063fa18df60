// The shape & dtype rules the op table (op_types.def, column `infer`) names, declared from
// that table. Ops with the same semantics share a rule (Add/Sub/Mul/Div:
// infer_binary_numeric), so adding such an op is one row in op_types.def; a rule named
// there but defined nowhere is a link error.
//
// Inputs follow ONNX in the canonical form the importer produces (parameters that later
// opsets moved from attributes to inputs are inputs: Reduce* axes, Split sizes, Clip
// min/max, Pad pads/value/axes, Squeeze/Unsqueeze axes, Slice starts/ends/axes/steps,
// Resize roi/scales/sizes). An optional input in the middle may be absent (kNoValue);
// the rule sees nullptr there and checks required positions itself.
//
// The rules live one op family per file:
//   infer_elementwise.cc  unary, binary, variadic, comparisons, Where, Cast, Clip, ...
//   infer_movement.cc     Reshape, Transpose, Concat, Split, Slice, Gather, Pad, Resize, ...
//   infer_reduction.cc    Reduce*, ArgMax
//   infer_nn.cc           Conv, ConvTranspose, pools, MatMul, Gemm, norms, Softmax
//   infer_attention.cc    Attention, RotaryEmbedding
//   infer_shape_ops.cc    Shape, Size, Constant, ConstantOfShape, Range
// with shared helpers in infer_util.h.
#pragma once

#include "graph/ops/op_schema.h"

namespace amp::graph {

#define AMP_INFER_FN(fn)                                               \
  Status fn(const Node& node, const std::vector<const Value*>& inputs, \
            std::vector<OutputInfo>& outputs, OpAttrs& attrs)

// Declared from the table itself: every rule op_types.def names, once per row (repeated
// declarations of a shared rule are harmless).
#define AMP_OP(name, traits, color, opsets, inputs, outputs, infer, keep_dtype, shape_inputs, \
               moved)                                                                         \
  AMP_INFER_FN(infer);
#include "graph/ops/op_types.def"
#undef AMP_OP

#undef AMP_INFER_FN

}  // namespace amp::graph
