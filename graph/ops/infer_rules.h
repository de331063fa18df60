// The op table's entries: for every op X in op_types.def, kSchemaX gives its arity and
// its shape & dtype inference rule. op_schema.cc builds the table indexed by OpType from
// these names with the X-macro, so an op added to op_types.def without a kSchemaX here
// is a compile error.
//
// Arity follows ONNX in the canonical form the importer produces (parameters that later
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
//   infer_shape_ops.cc    Shape, Size, Constant, ConstantOfShape, Range
// with shared helpers in infer_util.h.
#pragma once

#include <limits>

#include "graph/ops/op_schema.h"

namespace amp::graph {

#define AMP_INFER_FN(fn)                                               \
  Status fn(const Node& node, const std::vector<const Value*>& inputs, \
            std::vector<OutputInfo>& outputs)

// infer_elementwise.cc
AMP_INFER_FN(infer_abs);
AMP_INFER_FN(infer_add);
AMP_INFER_FN(infer_and);
AMP_INFER_FN(infer_cast);
AMP_INFER_FN(infer_clip);
AMP_INFER_FN(infer_div);
AMP_INFER_FN(infer_equal);
AMP_INFER_FN(infer_erf);
AMP_INFER_FN(infer_exp);
AMP_INFER_FN(infer_gelu);
AMP_INFER_FN(infer_greater);
AMP_INFER_FN(infer_hard_sigmoid);
AMP_INFER_FN(infer_hard_swish);
AMP_INFER_FN(infer_leaky_relu);
AMP_INFER_FN(infer_less);
AMP_INFER_FN(infer_log);
AMP_INFER_FN(infer_max);
AMP_INFER_FN(infer_min);
AMP_INFER_FN(infer_mul);
AMP_INFER_FN(infer_neg);
AMP_INFER_FN(infer_not);
AMP_INFER_FN(infer_pow);
AMP_INFER_FN(infer_reciprocal);
AMP_INFER_FN(infer_relu);
AMP_INFER_FN(infer_sigmoid);
AMP_INFER_FN(infer_sqrt);
AMP_INFER_FN(infer_sub);
AMP_INFER_FN(infer_tanh);
AMP_INFER_FN(infer_where);

// infer_movement.cc
AMP_INFER_FN(infer_concat);
AMP_INFER_FN(infer_depth_to_space);
AMP_INFER_FN(infer_expand);
AMP_INFER_FN(infer_flatten);
AMP_INFER_FN(infer_gather);
AMP_INFER_FN(infer_identity);
AMP_INFER_FN(infer_pad);
AMP_INFER_FN(infer_reshape);
AMP_INFER_FN(infer_resize);
AMP_INFER_FN(infer_slice);
AMP_INFER_FN(infer_split);
AMP_INFER_FN(infer_squeeze);
AMP_INFER_FN(infer_tile);
AMP_INFER_FN(infer_transpose);
AMP_INFER_FN(infer_unsqueeze);

// infer_reduction.cc
AMP_INFER_FN(infer_arg_max);
AMP_INFER_FN(infer_reduce_max);
AMP_INFER_FN(infer_reduce_mean);
AMP_INFER_FN(infer_reduce_min);
AMP_INFER_FN(infer_reduce_sum);

// infer_nn.cc
AMP_INFER_FN(infer_average_pool);
AMP_INFER_FN(infer_batch_normalization);
AMP_INFER_FN(infer_conv);
AMP_INFER_FN(infer_conv_transpose);
AMP_INFER_FN(infer_gemm);
AMP_INFER_FN(infer_global_average_pool);
AMP_INFER_FN(infer_instance_normalization);
AMP_INFER_FN(infer_layer_normalization);
AMP_INFER_FN(infer_log_softmax);
AMP_INFER_FN(infer_mat_mul);
AMP_INFER_FN(infer_max_pool);
AMP_INFER_FN(infer_softmax);

// infer_shape_ops.cc
AMP_INFER_FN(infer_constant);
AMP_INFER_FN(infer_constant_of_shape);
AMP_INFER_FN(infer_range);
AMP_INFER_FN(infer_shape);
AMP_INFER_FN(infer_size);

#undef AMP_INFER_FN

// Variadic inputs use max_inputs = -1. Split's outputs are variadic too, but infer_node
// compares max_outputs directly, so "any number" is INT_MAX there.
inline constexpr int kAnyOutputs = std::numeric_limits<int>::max();

// {min_inputs, max_inputs, min_outputs, max_outputs, rule}; keep in op_types.def order.
inline constexpr OpSchema kSchemaAbs = {1, 1, 1, 1, &infer_abs};
inline constexpr OpSchema kSchemaAdd = {2, 2, 1, 1, &infer_add};
inline constexpr OpSchema kSchemaAnd = {2, 2, 1, 1, &infer_and};
inline constexpr OpSchema kSchemaArgMax = {1, 1, 1, 1, &infer_arg_max};
inline constexpr OpSchema kSchemaAveragePool = {1, 1, 1, 1, &infer_average_pool};
// X, scale, B, input_mean, input_var; outputs beyond Y are training mode (rejected).
inline constexpr OpSchema kSchemaBatchNormalization = {5, 5, 1, 3, &infer_batch_normalization};
inline constexpr OpSchema kSchemaCast = {1, 1, 1, 1, &infer_cast};
inline constexpr OpSchema kSchemaClip = {1, 3, 1, 1, &infer_clip};  // input, min, max
inline constexpr OpSchema kSchemaConcat = {1, -1, 1, 1, &infer_concat};
inline constexpr OpSchema kSchemaConstant = {0, 0, 1, 1, &infer_constant};
inline constexpr OpSchema kSchemaConstantOfShape = {1, 1, 1, 1, &infer_constant_of_shape};
inline constexpr OpSchema kSchemaConv = {2, 3, 1, 1, &infer_conv};  // X, W, B
inline constexpr OpSchema kSchemaConvTranspose = {2, 3, 1, 1, &infer_conv_transpose};
inline constexpr OpSchema kSchemaDepthToSpace = {1, 1, 1, 1, &infer_depth_to_space};
inline constexpr OpSchema kSchemaDiv = {2, 2, 1, 1, &infer_div};
inline constexpr OpSchema kSchemaEqual = {2, 2, 1, 1, &infer_equal};
inline constexpr OpSchema kSchemaErf = {1, 1, 1, 1, &infer_erf};
inline constexpr OpSchema kSchemaExp = {1, 1, 1, 1, &infer_exp};
inline constexpr OpSchema kSchemaExpand = {2, 2, 1, 1, &infer_expand};
inline constexpr OpSchema kSchemaFlatten = {1, 1, 1, 1, &infer_flatten};
inline constexpr OpSchema kSchemaGather = {2, 2, 1, 1, &infer_gather};
inline constexpr OpSchema kSchemaGelu = {1, 1, 1, 1, &infer_gelu};
inline constexpr OpSchema kSchemaGemm = {2, 3, 1, 1, &infer_gemm};  // A, B, C
inline constexpr OpSchema kSchemaGlobalAveragePool = {1, 1, 1, 1, &infer_global_average_pool};
inline constexpr OpSchema kSchemaGreater = {2, 2, 1, 1, &infer_greater};
inline constexpr OpSchema kSchemaHardSigmoid = {1, 1, 1, 1, &infer_hard_sigmoid};
inline constexpr OpSchema kSchemaHardSwish = {1, 1, 1, 1, &infer_hard_swish};
inline constexpr OpSchema kSchemaIdentity = {1, 1, 1, 1, &infer_identity};
inline constexpr OpSchema kSchemaInstanceNormalization = {3, 3, 1, 1,
                                                          &infer_instance_normalization};
// X, Scale, B; outputs Y, Mean, InvStdDev.
inline constexpr OpSchema kSchemaLayerNormalization = {2, 3, 1, 3, &infer_layer_normalization};
inline constexpr OpSchema kSchemaLeakyRelu = {1, 1, 1, 1, &infer_leaky_relu};
inline constexpr OpSchema kSchemaLess = {2, 2, 1, 1, &infer_less};
inline constexpr OpSchema kSchemaLog = {1, 1, 1, 1, &infer_log};
inline constexpr OpSchema kSchemaLogSoftmax = {1, 1, 1, 1, &infer_log_softmax};
inline constexpr OpSchema kSchemaMatMul = {2, 2, 1, 1, &infer_mat_mul};
inline constexpr OpSchema kSchemaMax = {1, -1, 1, 1, &infer_max};
inline constexpr OpSchema kSchemaMaxPool = {1, 1, 1, 2, &infer_max_pool};  // Y, Indices
inline constexpr OpSchema kSchemaMin = {1, -1, 1, 1, &infer_min};
inline constexpr OpSchema kSchemaMul = {2, 2, 1, 1, &infer_mul};
inline constexpr OpSchema kSchemaNeg = {1, 1, 1, 1, &infer_neg};
inline constexpr OpSchema kSchemaNot = {1, 1, 1, 1, &infer_not};
inline constexpr OpSchema kSchemaPad = {2, 4, 1, 1, &infer_pad};  // data, pads, value, axes
inline constexpr OpSchema kSchemaPow = {2, 2, 1, 1, &infer_pow};
inline constexpr OpSchema kSchemaRange = {3, 3, 1, 1, &infer_range};  // start, limit, delta
inline constexpr OpSchema kSchemaReciprocal = {1, 1, 1, 1, &infer_reciprocal};
inline constexpr OpSchema kSchemaReduceMax = {1, 2, 1, 1, &infer_reduce_max};  // data, axes
inline constexpr OpSchema kSchemaReduceMean = {1, 2, 1, 1, &infer_reduce_mean};
inline constexpr OpSchema kSchemaReduceMin = {1, 2, 1, 1, &infer_reduce_min};
inline constexpr OpSchema kSchemaReduceSum = {1, 2, 1, 1, &infer_reduce_sum};
inline constexpr OpSchema kSchemaRelu = {1, 1, 1, 1, &infer_relu};
inline constexpr OpSchema kSchemaReshape = {2, 2, 1, 1, &infer_reshape};
// X, roi, scales, sizes
inline constexpr OpSchema kSchemaResize = {1, 4, 1, 1, &infer_resize};
inline constexpr OpSchema kSchemaShape = {1, 1, 1, 1, &infer_shape};
inline constexpr OpSchema kSchemaSigmoid = {1, 1, 1, 1, &infer_sigmoid};
inline constexpr OpSchema kSchemaSize = {1, 1, 1, 1, &infer_size};
// data, starts, ends, axes, steps
inline constexpr OpSchema kSchemaSlice = {3, 5, 1, 1, &infer_slice};
inline constexpr OpSchema kSchemaSoftmax = {1, 1, 1, 1, &infer_softmax};
inline constexpr OpSchema kSchemaSplit = {1, 2, 1, kAnyOutputs, &infer_split};  // input, split
inline constexpr OpSchema kSchemaSqrt = {1, 1, 1, 1, &infer_sqrt};
inline constexpr OpSchema kSchemaSqueeze = {1, 2, 1, 1, &infer_squeeze};  // data, axes
inline constexpr OpSchema kSchemaSub = {2, 2, 1, 1, &infer_sub};
inline constexpr OpSchema kSchemaTanh = {1, 1, 1, 1, &infer_tanh};
inline constexpr OpSchema kSchemaTile = {2, 2, 1, 1, &infer_tile};
inline constexpr OpSchema kSchemaTranspose = {1, 1, 1, 1, &infer_transpose};
inline constexpr OpSchema kSchemaUnsqueeze = {2, 2, 1, 1, &infer_unsqueeze};  // data, axes
inline constexpr OpSchema kSchemaWhere = {3, 3, 1, 1, &infer_where};

}  // namespace amp::graph
