// Typed attribute records: what shape inference read from a node's attributes, validated
// once and resolved against the input shapes, for every consumer after it (the kernels of
// both backends, constant folding, the AMP passes). infer_node (shape_inference.h) stores
// the record its rule fills in Node::resolved, so a consumer never re-parses attributes:
//
//   const ConvAttrs* a = std::get_if<ConvAttrs>(&node.resolved);
//
// Fields that depend on input dims (ConvAttrs::window's pads and output sizes, ...) are
// filled when those dims are static, which they always are where kernels are prepared
// (the runtime binds every input shape first, see runtime/execution_plan.cc); at load
// with symbolic dims they stay empty. Ops without a record hold std::monostate.
//
// Host-only C++17 (nvcc compiles it through kernel.h). The records are data, not
// serialized: a loaded model's graph is re-inferred, which refills them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <variant>
#include <vector>

#include "amp/dtype.h"
#include "graph/ir/tensor_data.h"
#include "graph/ops/fused_activation.h"

namespace amp::graph {

enum class AutoPad : uint8_t { kNotSet, kSameUpper, kSameLower, kValid };

// The sliding window of Conv, ConvTranspose, MaxPool and AveragePool, with auto_pad and
// ceil_mode resolved into explicit pads (graph/ops/window_geometry.h has the formulas).
struct Window {
  std::vector<int64_t> kernel;     // spatial kernel sizes (from W or kernel_shape)
  std::vector<int64_t> strides;    // >= 1
  std::vector<int64_t> dilations;  // >= 1
  // Resolved pads once in_spatial is known. Forward windows: >= 0, and
  //   out = (in + pad_begin + pad_end - effective_kernel) / stride + 1 (floor or ceil).
  // ConvTranspose: out = stride (in - 1) + output_padding + effective_kernel
  //                      - pad_begin - pad_end, either pad may be negative (output_shape
  //                      asking for more than the input reaches).
  std::vector<int64_t> pad_begin, pad_end;
  AutoPad auto_pad = AutoPad::kNotSet;
  bool ceil_mode = false;
  std::vector<int64_t> in_spatial, out_spatial;  // empty until the dims are static

  size_t rank() const { return strides.size(); }
  int64_t effective_kernel(size_t i) const { return (kernel[i] - 1) * dilations[i] + 1; }
  bool resolved() const { return !out_spatial.empty(); }
};

// Conv and ConvTranspose: X [N, C, D...], W, optional B [M] -> [N, M, out...].
struct ConvAttrs {
  int64_t group = 1;
  int64_t n = 0, c = 0, m = 0;  // batch, input and output channels (when static)
  bool has_bias = false;
  std::vector<int64_t> output_padding;  // ConvTranspose: one per spatial axis
  Window window;
  FusedActivation act;  // from FuseActivation (graph/passes/fuse_activation.h)
};

// MaxPool and AveragePool.
struct PoolAttrs {
  bool is_max = false;
  bool with_indices = false;       // MaxPool's Indices output is present
  bool count_include_pad = false;  // AveragePool
  bool col_major_indices = false;  // MaxPool storage_order = 1
  int64_t lp = 0;                  // LpPool's p (>= 1); 0 for MaxPool and AveragePool
  Window window;
};

// MatMul (and the fused form the FuseActivation pass writes).
struct MatMulAttrs {
  FusedActivation act;
};

// Gemm: Y = alpha op(A) op(B) + beta C.
struct GemmAttrs {
  bool trans_a = false, trans_b = false;
  float alpha = 1.0f, beta = 1.0f;
  FusedActivation act;
};

// A tensor read as [outer, len, inner] around one axis (products of the dims before, at
// and after it). Filled when the input dims are static.
struct AxisGeometry {
  int64_t outer = 1, len = 1, inner = 1;
};

// Softmax / LogSoftmax, normalized along len (opset < 13 views the input as 2-D rows:
// len = the product of dims[axis:], inner = 1).
struct SoftmaxAttrs {
  AxisGeometry geometry;
};

// BatchNormalization, InstanceNormalization (split at axis 1: outer = N, len = C, inner =
// the spatial size) and LayerNormalization (normalizes rows of len = the product of
// dims[axis:], inner = 1).
struct NormAttrs {
  float epsilon = 1e-5f;
  int64_t axis = 1;        // normalized
  int32_t stash_type = 1;  // LayerNormalization: ONNX dtype of Mean / InvStdDev
  AxisGeometry geometry;
};

// ArgMax / ArgMin along one axis.
struct ArgReduceAttrs {
  int64_t axis = 0;  // normalized
  bool keepdims = true;
  bool select_last_index = false;
  AxisGeometry geometry;
};

// Shape: the dims [start, end) of the input (opset 15 clamps both into [0, rank]).
struct ShapeAttrs {
  int64_t start = 0, end = 0;
};

// ConstantOfShape: the one element every output position gets (default f32 0).
struct FillAttrs {
  DType dtype = DType::kF32;
  uint64_t bits = 0;  // the element's bytes, little-endian in the low dtype_size bytes
};

// Transpose, and DepthToSpace as ONNX defines it (one 6-D transpose of the input reshaped):
// output axis i is axis perm[i] of the input viewed as view_dims.
struct PermuteAttrs {
  std::vector<int64_t> perm;       // validated permutation
  std::vector<int64_t> view_dims;  // the input's dims as perm reads them; empty until static
};

// Concat and Split: the axis the parts join along; Gather: the axis it indexes.
struct AxisAttrs {
  int64_t axis = 0;  // normalized
};

// The attributes an elementwise functor takes (kernels/common/elementwise_kernels.h,
// configure()): alpha of LeakyRelu, Elu, Celu, ThresholdedRelu; HardSigmoid alpha and beta;
// Selu alpha and gamma (in beta); Shrink lambd (in alpha) and bias (in beta); Gelu
// approximate="tanh"; Mod fmod; IsInf detect_negative and detect_positive.
struct FunctorAttrs {
  float alpha = 0.0f;
  float beta = 0.0f;
  bool gelu_tanh = false;
  bool fmod = false;
  bool detect_negative = true;
  bool detect_positive = true;
};

// Reduce* over a set of axes (the axes are input 1).
struct ReduceAttrs {
  bool keepdims = true;
  bool noop_with_empty_axes = false;
};

// Constant: its value, from whichever attribute holds it (value, value_float(s),
// value_int(s)).
struct ConstantAttrs {
  TensorData value;
};

// Pad: how the border is filled.
struct PadAttrs {
  enum Mode : int { kConstant, kReflect, kEdge, kWrap };
  int mode = kConstant;
};

// Resize: how to sample, validated. Plain enums and scalars only: the CUDA kernels take it
// by value.
struct ResizeSampling {
  enum Mode : int { kNearest, kLinear, kCubic };
  enum Coord : int {
    kHalfPixel,
    kHalfPixelSymmetric,
    kPytorchHalfPixel,
    kAlignCorners,
    kAsymmetric,
    kTfCropAndResize
  };
  enum Nearest : int { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil };
  enum Policy : int { kStretch, kNotLarger, kNotSmaller };
  int mode = kNearest;
  int coord = kHalfPixel;
  int nearest = kRoundPreferFloor;
  int policy = kStretch;  // keep_aspect_ratio_policy
  double cubic_a = -0.75;
  bool exclude_outside = false;
  bool antialias = false;
  float extrapolation = 0.0f;
};

// Resize: the sampling and the axes roi/scales/sizes address.
struct ResizeAttrs : ResizeSampling {
  std::vector<int64_t> axes;  // normalized, distinct; empty when every axis is addressed
};

// Attention (opset 23/24), its attributes checked against the inputs' shapes: head counts
// (from the 4-D shapes, or the attributes for 3-D inputs), head sizes and the scale resolved.
struct AttentionAttrs {
  int64_t q_heads = 0, kv_heads = 0;
  int64_t head_size = 0, v_head_size = 0;
  double scale = 0.0;    // the product's factor (default 1/sqrt(head_size))
  float softcap = 0.0f;  // 0: none
  bool causal = false;
  int qk_output_mode = 0;  // what output 3 holds: 0/1 scaled QK (softcapped), 2 + bias, 3 softmax
};

// RotaryEmbedding (opset 23): the head geometry resolved from the input's shape (and
// num_heads for a 3-D input) and the rotated width.
struct RotaryAttrs {
  int64_t heads = 0, head_size = 0;
  int64_t rotary_dim = 0;  // even, <= head_size
  bool interleaved = false;
};

// Trilu: which triangle it keeps (k, the diagonal offset, is input 1).
struct TriluAttrs {
  bool upper = true;
};

// GatherElements and ScatterElements (axis), GatherND (batch_dims), ScatterND; the scatters'
// reduction of an update into the element it lands on (duplicate indices apply in order).
struct IndexAttrs {
  enum Reduction : int { kNone, kAdd, kMul, kMax, kMin };
  int64_t axis = 0;  // normalized
  int64_t batch_dims = 0;
  int reduction = kNone;
};

// CumSum (the axis is input 1, possibly fed at run time).
struct CumSumAttrs {
  bool exclusive = false;
  bool reverse = false;
};

// ReverseSequence: which axes hold the batch and the time steps (0 and 1, distinct).
struct ReverseSequenceAttrs {
  int64_t batch_axis = 1, time_axis = 0;
};

// TopK along one axis (k is input 1; the output dims hold it).
struct TopKAttrs {
  int64_t axis = -1;  // normalized
  bool largest = true;
  bool sorted = true;
  AxisGeometry geometry;  // of the input
};

// LpNormalization: x / ||x||_p along one axis (p is 1 or 2).
struct LpNormAttrs {
  int64_t p = 2;
  AxisGeometry geometry;
};

// GroupNormalization (split at axis 1 into `groups`, each normalized over its channels and
// the spatial dims) and MeanVarianceNormalization (normalized over `axes`).
struct GroupNormAttrs {
  float epsilon = 1e-5f;
  int64_t groups = 1;
  bool scale_per_group = false;  // opset 18: scale and bias are [groups], not [C]
  std::vector<int64_t> axes;     // MeanVarianceNormalization: normalized, sorted
};

// LRN across channels: x / (bias + alpha / size * sum of x^2 over `size` channels)^beta.
struct LrnAttrs {
  float alpha = 1e-4f, beta = 0.75f, bias = 1.0f;
  int64_t size = 1;
};

// Einsum: each operand's labels per axis and the output's, as label ids (letters, then the
// dims an ellipsis stands for), every label's size (1 where it only broadcasts).
struct EinsumAttrs {
  std::vector<std::vector<int>> inputs;
  std::vector<int> output;
  std::vector<int64_t> label_sizes;  // indexed by label id; filled when the dims are static
};

// GridSample: how to sample X at the grid's normalized coordinates.
struct GridSampleAttrs {
  enum Mode : int { kLinear, kNearest, kCubic };
  enum Padding : int { kZeros, kBorder, kReflection };
  int mode = kLinear;
  int padding = kZeros;
  bool align_corners = false;
};

// RoiAlign: output bins per box, samples per bin (0: adaptive), box scale and pixel model.
struct RoiAlignAttrs {
  bool max_mode = false;
  bool half_pixel = true;  // coordinate_transformation_mode; opset 10 boxes are not shifted
  int64_t out_h = 1, out_w = 1;
  int64_t sampling_ratio = 0;
  float spatial_scale = 1.0f;
};

// An RNN gate activation (ONNX's list for LSTM/GRU/RNN) with its alpha and beta resolved.
struct RnnActivation {
  enum Kind : int {
    kRelu,
    kTanh,
    kSigmoid,
    kAffine,
    kLeakyRelu,
    kThresholdedRelu,
    kScaledTanh,
    kHardSigmoid,
    kElu,
    kSoftsign,
    kSoftplus
  };
  int kind = kTanh;
  float alpha = 0.0f, beta = 0.0f;
};

// LSTM, GRU, RNN: geometry (filled when X's dims are static) and attributes, validated. The
// activations are per direction, in ONNX's order (RNN: f; GRU: f, g; LSTM: f, g, h).
struct RecurrentAttrs {
  enum Kind : int { kRnn, kGru, kLstm };
  enum Direction : int { kForward, kReverse, kBidirectional };
  int kind = kLstm;
  int direction = kForward;
  int layout = 0;  // 0: [seq, batch, ...]; 1: [batch, seq, ...]
  int64_t hidden = 0;
  int64_t seq = 0, batch = 0, input = 0;
  float clip = 0.0f;  // 0: none
  bool input_forget = false;
  bool linear_before_reset = false;
  std::vector<RnnActivation> activations;  // activation_count() per direction
  int directions() const { return direction == kBidirectional ? 2 : 1; }
  int gates() const { return kind == kLstm ? 4 : (kind == kGru ? 3 : 1); }
  int activation_count() const { return kind == kLstm ? 3 : (kind == kGru ? 2 : 1); }
};

// NonMaxSuppression: the box encoding (0: corners [y1, x1, y2, x2], 1: [xc, yc, w, h]).
struct NmsAttrs {
  bool center_point_box = false;
};

// Compress: the axis it selects along, or -1 for the flattened input.
struct CompressAttrs {
  int64_t axis = -1;
};

class Graph;

// If, Loop, Scan (graph/ops/control_flow.h): the bodies with their inputs typed from the
// node's and inferred (If: then, else; Loop/Scan: body), which infer_node writes back into
// the node's graph attributes; and Scan's axes and directions, normalized and one per input
// or output.
struct ControlFlowAttrs {
  std::vector<std::shared_ptr<const Graph>> bodies;
  std::vector<int64_t> scan_input_axes, scan_input_directions;    // per scan input
  std::vector<int64_t> scan_output_axes, scan_output_directions;  // per scan output
};

using OpAttrs =
    std::variant<std::monostate, ConvAttrs, PoolAttrs, MatMulAttrs, GemmAttrs, SoftmaxAttrs,
                 NormAttrs, ArgReduceAttrs, ShapeAttrs, FillAttrs, PermuteAttrs, AxisAttrs,
                 ReduceAttrs, PadAttrs, ResizeAttrs, FunctorAttrs, ConstantAttrs, TriluAttrs,
                 AttentionAttrs, RotaryAttrs, IndexAttrs, CumSumAttrs, ReverseSequenceAttrs,
                 TopKAttrs, LpNormAttrs, GroupNormAttrs, LrnAttrs, EinsumAttrs, GridSampleAttrs,
                 RoiAlignAttrs, RecurrentAttrs, NmsAttrs, CompressAttrs, ControlFlowAttrs>;

}  // namespace amp::graph
