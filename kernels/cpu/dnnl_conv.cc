// Conv and ConvTranspose on oneDNN (convolution_forward / deconvolution_forward): 1-D to
// 3-D, grouped (depthwise included), strided, dilated, padded, optional bias B, and the
// fused activation as an eltwise post-op.
//
// Layouts: src, weights and dst all use format_tag::any, so oneDNN picks its fastest
// implementation (blocked nChw16c-style layouts run 2-5x faster than the im2col GEMM it
// uses for plain NCHW). Constant weights are reordered once, in prepare(); src and dst
// are reordered between the caller's layout and the chosen one on every run, through the
// workspace, and not at all when they agree. The caller's layout is plain NC[D]HW, or for a
// tensor the runtime keeps between two convolutions (runtime/layout_plan.h) the layout
// oneDNN's convolutions take on this CPU (conv_activation_desc: channels-last for AVX-512's
// brgconv, 8-channel blocks for AVX2's jit convolutions), so a chain of convolutions runs
// without reorders (they cost as much as the convolutions).
//
// Dtypes (the numerical contract: fp32 accumulation, one rounding on store):
//   f32   native.
//   bf16  native (bf16 src/weights, f32 bias and accumulation, bf16 dst) when oneDNN has
//         a bf16 implementation on this CPU; else handled like f16.
//   f16   oneDNN 2.6 has no CPU f16 convolution: src (and variable weights / bias) are
//         widened to f32 in the workspace, the f32 primitive writes an f32 workspace
//         buffer, and the store rounds to f16 once. Constant weights are widened once in
//         prepare().
//
// Geometry: the window shape inference resolved (graph/ops/window_geometry.h has the pad
// rules). ConvTranspose: the end pad handed to oneDNN is whatever makes the sizes agree
// (negative when output_padding or output_shape extends the output; oneDNN accepts that). oneDNN
// rejects a negative begin pad (output_shape asking for more than the natural size with
// SAME_UPPER): then the primitive computes the output without those leading positions
// into an f32 workspace buffer, and the store shifts it into place, filling the leading
// positions (which no input reaches) with act(bias).
//
// A convolution whose window covers its whole input (squeeze-and-excitation's 1x1 convs on
// a 1x1 map) is a matrix-vector product that costs less than oneDNN's call overhead: f32
// ones run our own loop (kernels/cpu/small_gemm.h).
//
// On a CPU with AVX2 and FMA (AVX-512 ones included), an f32 3x3 stride-1 convolution whose
// input is kept in the convolutions' layout (constant weights and bias, maps of 7x7 and
// more: WinogradConv::suits) runs Winograd's F(4x4, 3x3) of our own
// (kernels/cpu/winograd_conv.h): on AVX2 1.3x (10x10 maps) to 2.7x (40x40 and up) faster
// than oneDNN 2.6's direct jit:avx2 convolution (no AVX2 Winograd); on AVX-512 1.2x to 2x
// faster than its brgconv where WinogradConv::suits takes it (channels, tiles).
//
// A 1-D convolution (Conv1d: speech models' feature extractors, a Conformer's depthwise
// kernel of 31) is handed to oneDNN as a 2-D one (lift_to_2d): oneDNN 2.6 has no jit
// implementation for 1-D depthwise convolutions and ran them on its im2col GEMM, 1.42 ms for
// a 256-channel k = 31 depthwise conv over 250 frames (Intel Xeon model 167, one thread).
// The window becomes 1 x k (brdgmm_dw: 0.08 ms; as k x 1, 0.28), except for a depthwise
// window of more than 9 taps on a CPU without AVX-512: jit_dw:avx2 takes a wide window of up
// to 9 and a tall one of any height, so that one becomes k x 1 (0.16 ms at 31 taps; as
// 1 x k the GEMM's 1.0; at 9 taps 1 x k 0.036, k x 1 0.10). Dense 1-D convolutions run as
// 1 x k on both ISAs (256 -> 256 channels, 5 taps, 500 frames as AVX2-only: 3.0 ms, as
// k x 1 9.5). The bytes of every layout are the same with the extra axis of 1 (ncw / nchw,
// nwc / nhwc, nCw8c / nChw8c), so the caller's tensors need no change. For the same reason a
// 2-D convolution whose window is k x 1 over a width of 1 (a Conv1d that an exporter wrote
// as 2-D: jax2tf's in Magika, [2, 256, 512, 1] with a 5 x 1 window) turns to 1 x k over a
// height of 1: oneDNN's brgconv blocks along the width, and took 28 ms for it against 13.7
// as 1 x k (AMD EPYC Zen 4, one thread; ONNX Runtime 12.4).
//
// An f32 Conv with constant weights whose window has taps that read only padding (a dilated
// conv on a small map) runs with the window cut to the taps that read the input
// (kernels/common/conv_live_taps.h) and W sliced to them. DeepLabV3-MobileNetV3's atrous 3x3
// convolutions at dilation 24 and 36 over 16x16 maps become 1x1 (oneDNN's im2col GEMM, 14 ms
// each, -> jit_1x1, 1.4 ms; AMD EPYC, one thread).
//
// A ConvTranspose whose windows tile the output (kernel = stride, no pads, dilation 1, one
// group; f32, constant weights) runs as a 1x1 convolution to K M channels and a
// depth-to-space (kernels/cpu/conv_transpose_tiled.h): oneDNN 2.6's deconvolution is slow
// there. Like a Conv it reads and writes the convolutions' layout (runtime/layout_plan.h).
#include <algorithm>
#include <optional>

#include "graph/ops/window_geometry.h"
#include "kernels/common/conv_live_taps.h"
#include "kernels/common/kernel_checks.h"
#include "kernels/common/window_op_io.h"
#include "kernels/cpu/conv_transpose_tiled.h"
#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/dnnl_common.h"
#include "kernels/cpu/small_gemm.h"
#include "kernels/cpu/tap_sum_conv.h"
#include "kernels/cpu/vector_exp.h"
#include "kernels/cpu/winograd_conv.h"

namespace amp::kernels::cpu {
namespace {

using dnnl::memory;
using dt = memory::data_type;

// "3x3", "1x1x5".
std::string window_text(const std::vector<int64_t>& kernel) {
  std::string s;
  for (size_t i = 0; i < kernel.size(); ++i) {
    if (i) s += 'x';
    s += std::to_string(kernel[i]);
  }
  return s;
}

// W [rows, k...] (rows = M x C/G) sliced to the live window's taps, dense.
std::vector<float> slice_window(const float* w, int64_t rows, const std::vector<int64_t>& kernel,
                                const LiveWindow& live) {
  const std::vector<int64_t>& kept = live.window.kernel;
  int64_t from = 1, to = 1;
  for (size_t i = 0; i < kernel.size(); ++i) {
    from *= kernel[i];
    to *= kept[i];
  }
  std::vector<float> out(static_cast<size_t>(rows * to));
  std::vector<int64_t> at(kernel.size());
  for (int64_t j = 0; j < to; ++j) {
    // The tap's index in the original window.
    int64_t rest = j, src = 0;
    for (size_t i = kernel.size(); i-- > 0;) {
      at[i] = rest % kept[i] + live.first[i];
      rest /= kept[i];
    }
    for (size_t i = 0; i < kernel.size(); ++i) src = src * kernel[i] + at[i];
    for (int64_t r = 0; r < rows; ++r) out[static_cast<size_t>(r * to + j)] = w[r * from + src];
  }
  return out;
}

class ConvKernel final : public Kernel {
 public:
  explicit ConvKernel(bool transpose) : transpose_(transpose) {}

  Status prepare(const KernelConfig& cfg) override {
    return dnnl_guard(op(), [&] { return prepare_impl(cfg); });
  }
  size_t workspace_bytes() const override { return ws_.total(); }
  Status run(const KernelArgs& a) const override {
    return dnnl_guard(op(), [&] { return run_impl(a); });
  }
  std::string implementation() const override { return impl_; }
  void held_constants(std::vector<HeldConstant>& out) const override {
    if (winograd_) out.push_back(winograd_->held_constant());
    if (small_) out.push_back(small_->held_constant());
    if (tap_sum_) tap_sum_->held_constants(out);
    weights_.held_constants(out);
  }
  // W (input 1) when our loops or oneDNN read a packed form of it.
  std::vector<size_t> replaced_constant_inputs() const override {
    if (winograd_ || small_ || tap_sum_ || weights_.holds_constant()) return {1};
    return {};
  }

 private:
  std::string op() const { return transpose_ ? "ConvTranspose" : "Conv"; }
  // The primitive's output channels: M, or M x K for a ConvTranspose run as a 1x1 conv.
  int64_t dst_channels() const { return depth_to_space_ ? pointwise_channels_ : conv_.m; }
  // depth_to_space_: the 1x1 conv's output dims [N, K M, input spatial...].
  memory::dims pixel_dims() const {
    memory::dims d = {conv_.n, pointwise_channels_};
    d.insert(d.end(), dnnl_out_sp_.begin(), dnnl_out_sp_.end());
    return d;
  }
  Status prepare_impl(const KernelConfig& cfg);
  Status geometry(const graph::Window& w);
  // Creates the primitive descriptor; throws dnnl::error when oneDNN has no implementation.
  dnnl::primitive_desc create_pd(dt compute, dt dst_type) const;
  Status run_impl(const KernelArgs& a) const;
  void store_shifted(const float* staged, const float* bias, void* out, int threads) const;
  // `src`, or its copy in the layout the chosen path reads (src_reorder_, in the workspace).
  const void* reordered_src(const void* src, void* ws, int threads) const;

  const bool transpose_;
  std::string impl_;  // implementation()
  DType dtype_ = DType::kUndefined;
  bool empty_ = false;
  bool stage_src_ = false;          // widen src to f32 in the workspace
  bool stage_dst_ = false;          // plain f32 dst in the workspace; the store rounds
  bool shifted_ = false;            // ConvTranspose with a negative begin pad (header comment)
  bool depth_to_space_ = false;     // ConvTranspose run as a 1x1 conv + depth-to-space (header)
  std::optional<SmallGemm> small_;  // set: our own loop runs it, not oneDNN
  std::optional<WinogradConv> winograd_;  // set: our Winograd runs this 3x3 conv (header)
  size_t off_winograd_ = WorkspaceLayout::kNone;
  std::optional<TapSumConv> tap_sum_;  // set: a sum of one product per tap runs it (header)
  size_t off_tap_sum_ = WorkspaceLayout::kNone;
  DnnlReorder src_reorder_;  // plain src -> the primitive's layout
  DnnlReorder dst_reorder_;  // the primitive's layout -> plain dst

  graph::ConvAttrs conv_;  // the node's record (group, channels, window, activation)
  std::vector<int64_t> out_sp_, dnnl_out_sp_, shift_;
  int64_t pointwise_channels_ = 0;  // depth_to_space_: M x K, the 1x1 conv's output channels
  std::vector<float> tiled_w_;      // depth_to_space_: W as the 1x1 conv's [K M, C]
  std::vector<float> live_w_;       // W sliced to the live taps, until packed
  memory::desc pixels_desc_;        // depth_to_space_: the 1x1 conv's dst layout, if fixed
  ChannelLayout tiled_out_ = ChannelLayout::kPlain;  // depth_to_space_: the output's layout
  // depth_to_space_ with a fused Sigmoid (a DB head's probability map): applied to the output
  // by our vectorized loop, not as oneDNN's post-op, which took 1.5 ms of a 24 -> 4 channel
  // 1x1 conv of 2 ms at 320x320 (jit:avx2, the 4 channels padded to 8).
  bool sigmoid_after_ = false;
  DepthToSpace d2s_;
  memory::dims strides_, dilations_, pad_l_, pad_r_;
  memory::dims w_dims_, w_strides_;

  DnnlPrimitivePair prims_;
  memory::desc src_md_, wei_md_, bias_md_, dst_md_, scratch_md_;
  DnnlWeights weights_;
  std::vector<float> bias_const_;  // constant bias, widened to f32
  WorkspaceLayout ws_;
  size_t off_scratch_ = WorkspaceLayout::kNone, off_src_ = WorkspaceLayout::kNone;
  size_t off_dst_ = WorkspaceLayout::kNone, off_bias_ = WorkspaceLayout::kNone;
  size_t off_src_blk_ = WorkspaceLayout::kNone, off_dst_blk_ = WorkspaceLayout::kNone;
  int64_t src_numel_ = 0, dnnl_dst_numel_ = 0, out_numel_ = 0;
};

// The window's size when it covers a forward conv's input exactly (one output position, no
// padding read), else 0. In the conv layout only a single position has plain bytes
// (runtime/layout_plan.h), so such an input must be 1 x 1.
int64_t whole_input_window(const graph::ConvAttrs& conv, const TensorDesc& x) {
  const graph::Window& win = conv.window;
  if (!win.resolved() || win.in_spatial.size() != win.rank()) return 0;
  int64_t window = 1, positions = 1;
  for (size_t i = 0; i < win.rank(); ++i) {
    if (win.pad_begin[i] != 0 || win.pad_end[i] != 0 ||
        win.effective_kernel(i) != win.in_spatial[i] || win.out_spatial[i] != 1)
      return 0;
    window *= win.kernel[i];
    positions *= win.in_spatial[i];
  }
  return x.conv_layout && positions != 1 ? 0 : window;
}

// A tensor of the caller's in its layout: plain, or the convolutions' own where the runtime
// keeps the tensor so between two convolutions (runtime/layout_plan.h; f32, or natively
// computed bf16, so never staged).
memory::desc caller_desc(const memory::dims& dims, dt type, bool conv_layout) {
  return conv_layout ? conv_activation_desc(dims, type) : plain_desc(dims, type);
}

// A tensor's dims as oneDNN sees them, with the unit axis lift_to_2d added to a 1-D
// convolution's window, or the unit width turn_to_wide moved before the height (the bytes
// are the same).
memory::dims lifted_dims(const std::vector<int64_t>& dims, bool lifted, bool tall, bool turned) {
  memory::dims d = to_dnnl_dims(dims);
  if (lifted) d.insert(tall ? d.end() : d.begin() + 2, 1);
  if (turned) {
    d.pop_back();
    d.insert(d.begin() + 2, 1);
  }
  return d;
}

// Whether oneDNN chose its im2col GEMM convolution ("gemm:jit"; not brgconv).
bool runs_im2col_gemm(const dnnl::primitive_desc& pd) {
  const std::string impl = pd.impl_info_str();
  return impl.find("gemm") != std::string::npos && impl.find("brg") == std::string::npos;
}

// The widest depthwise window oneDNN 2.6's jit_dw:avx2 takes (header).
constexpr int64_t kMaxWideDepthwiseAvx2 = 9;

// The window of a 1-D convolution as a 2-D one of width 1 (`tall`) or height 1 (header).
void lift_to_2d(graph::ConvAttrs& conv, bool tall) {
  graph::Window& w = conv.window;
  auto add = [tall](std::vector<int64_t>& v, int64_t value) {
    v.insert(tall ? v.end() : v.begin(), value);
  };
  add(w.kernel, 1);
  add(w.strides, 1);
  add(w.dilations, 1);
  add(w.pad_begin, 0);
  add(w.pad_end, 0);
  add(w.in_spatial, 1);
  add(w.out_spatial, 1);
  if (!conv.output_padding.empty()) add(conv.output_padding, 0);
}

// Whether a 2-D window is k x 1 over an input and output of width 1, with nothing on the
// width but the unit tap (its stride and dilation then do nothing).
bool tall_column(const graph::Window& w) {
  return w.resolved() && w.rank() == 2 && w.in_spatial[1] == 1 && w.out_spatial[1] == 1 &&
         w.kernel[1] == 1 && w.pad_begin[1] == 0 && w.pad_end[1] == 0 && w.kernel[0] > 1;
}

// A tall_column window as 1 x k over a height of 1 (header).
void turn_to_wide(graph::Window& w) {
  for (std::vector<int64_t>* v : {&w.kernel, &w.strides, &w.dilations, &w.pad_begin, &w.pad_end,
                                  &w.in_spatial, &w.out_spatial})
    std::swap((*v)[0], (*v)[1]);
  w.strides[0] = 1;
  w.dilations[0] = 1;
}

// The convolutions' own layout on this CPU for a tensor of these dims (conv_activation_desc).
ChannelLayout conv_layout_for(const std::vector<int64_t>& dims) {
  return conv_layout_blocked8(dims) ? ChannelLayout::kBlocked8 : ChannelLayout::kChannelsLast;
}
// Which of the layouts a conv's tensor is in: plain, or the convolutions' own.
ChannelLayout layout_of(const TensorDesc& t) {
  return t.conv_layout ? conv_layout_for(t.dims) : ChannelLayout::kPlain;
}

// An f32 tensor of `dims` in one of the layouts the tiled ConvTranspose's depth-to-space
// reads and writes (conv_transpose_tiled.h).
memory::desc tiled_desc(const memory::dims& dims, ChannelLayout layout) {
  using tag = memory::format_tag;
  switch (layout) {
    case ChannelLayout::kBlocked8:
      return memory::desc(dims, dt::f32,
                          dims.size() == 3   ? tag::nCw8c
                          : dims.size() == 4 ? tag::nChw8c
                                             : tag::nCdhw8c);
    case ChannelLayout::kChannelsLast:
      return channels_last_desc(dims, dt::f32);
    case ChannelLayout::kPlain:
      break;
  }
  return plain_desc(dims, dt::f32);
}

std::optional<ChannelLayout> tiled_layout_of(const memory::desc& md) {
  for (ChannelLayout l :
       {ChannelLayout::kPlain, ChannelLayout::kBlocked8, ChannelLayout::kChannelsLast})
    if (md == tiled_desc(md.dims(), l)) return l;
  return std::nullopt;
}

// oneDNN floors out = (in + l + r - e) / s + 1 like ONNX, so a forward window's resolved
// pads go as they are. A transposed window's end pad is whatever makes oneDNN's sizes agree
// (its output_padding folds into it); a negative begin pad shifts the output (header).
Status ConvKernel::geometry(const graph::Window& win) {
  const size_t sp = win.rank();
  out_sp_ = win.out_spatial;
  dnnl_out_sp_ = out_sp_;
  shift_.assign(sp, 0);
  strides_.assign(win.strides.begin(), win.strides.end());
  dilations_.resize(sp);
  for (size_t i = 0; i < sp; ++i) dilations_[i] = win.dilations[i] - 1;  // oneDNN: 0 = dense
  pad_l_.assign(win.pad_begin.begin(), win.pad_begin.end());
  pad_r_.assign(win.pad_end.begin(), win.pad_end.end());
  if (!transpose_) return Status::ok();
  for (size_t i = 0; i < sp; ++i) {
    const int64_t natural =
        win.strides[i] * (conv_.window.in_spatial[i] - 1) + win.effective_kernel(i);
    int64_t pl = win.pad_begin[i];
    if (pl < 0) {
      shift_[i] = -pl;
      shifted_ = true;
      pl = 0;
      dnnl_out_sp_[i] = out_sp_[i] - shift_[i];
      if (dnnl_out_sp_[i] < 1)
        return unsupported(op() + ": output_shape larger than the input can reach");
    }
    pad_l_[i] = pl;
    pad_r_[i] = natural - pl - dnnl_out_sp_[i];
  }
  return Status::ok();
}

dnnl::primitive_desc ConvKernel::create_pd(dt compute, dt dst_type) const {
  memory::dims src_dims = {conv_.n, conv_.c};
  memory::dims dst_dims = {conv_.n, dst_channels()};
  src_dims.insert(src_dims.end(), conv_.window.in_spatial.begin(), conv_.window.in_spatial.end());
  dst_dims.insert(dst_dims.end(), dnnl_out_sp_.begin(), dnnl_out_sp_.end());
  const memory::desc src(src_dims, compute, memory::format_tag::any);
  const memory::desc wei(w_dims_, compute, memory::format_tag::any);
  const memory::desc dst =
      pixels_desc_ ? pixels_desc_ : memory::desc(dst_dims, dst_type, memory::format_tag::any);
  const memory::desc bias = conv_.has_bias
                                ? memory::desc({dst_channels()}, dt::f32, memory::format_tag::a)
                                : memory::desc();
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  dnnl::post_ops po;
  if (!sigmoid_after_)
    (void)append_activation(po, conv_.act);  // kinds were validated by shape inference
  attr.set_post_ops(po);
  const auto prop = dnnl::prop_kind::forward_inference;
  if (transpose_ && !depth_to_space_) {
    dnnl::deconvolution_forward::desc d(prop, dnnl::algorithm::deconvolution_direct, src, wei, bias,
                                        dst, strides_, dilations_, pad_l_, pad_r_);
    return dnnl::deconvolution_forward::primitive_desc(d, attr, dnnl_engine());
  }
  dnnl::convolution_forward::desc d(prop, dnnl::algorithm::convolution_direct, src, wei, bias, dst,
                                    strides_, dilations_, pad_l_, pad_r_);
  return dnnl::convolution_forward::primitive_desc(d, attr, dnnl_engine());
}

Status ConvKernel::prepare_impl(const KernelConfig& cfg) {
  AMP_ASSIGN_OR_RETURN(const graph::ConvAttrs* p, check_conv_io(cfg));
  conv_ = *p;
  // A 1-D window goes to oneDNN as 2-D: k x 1 (tall) or 1 x k (header).
  const bool lifted = conv_.window.resolved() && conv_.window.rank() == 1;
  const bool tall = lifted && conv_.group > 1 && conv_.group == conv_.c &&
                    conv_.window.kernel[0] > kMaxWideDepthwiseAvx2 && !dnnl_isa_avx512();
  if (lifted) lift_to_2d(conv_, tall);
  // A k x 1 window over a width of 1 runs as 1 x k, but where a lifted 1-D one would stay
  // tall (a wide depthwise window without AVX-512).
  const bool depthwise_wide_avx2 = conv_.group > 1 && conv_.group == conv_.c &&
                                   !dnnl_isa_avx512() && conv_.window.rank() == 2 &&
                                   conv_.window.kernel[0] > kMaxWideDepthwiseAvx2;
  const bool turned = !lifted && !transpose_ && tall_column(conv_.window) && !depthwise_wide_avx2;
  if (turned) turn_to_wide(conv_.window);
  dtype_ = cfg.inputs[0].dtype;
  const TensorDesc& x = cfg.inputs[0];
  const TensorDesc& w = cfg.inputs[1];
  // The same condition lets runtime/layout_plan.cc keep this node's tensors in the conv layout.
  depth_to_space_ = transpose_ && dtype_ == DType::kF32 &&
                    graph::conv_transpose_tiles_output(conv_) && w.constant_data != nullptr &&
                    (!conv_.has_bias || cfg.inputs[2].constant_data != nullptr);
  const bool conv_layout = cfg.inputs[0].conv_layout || cfg.outputs[0].conv_layout;
  if (conv_layout &&
      ((transpose_ && !depth_to_space_) || (dtype_ != DType::kF32 && dtype_ != DType::kBF16)))
    return internal_error(op() +
                          ": a conv-layout tensor outside an f32 or bf16 Conv or a tiled "
                          "f32 ConvTranspose");
  const std::vector<int64_t>& kernel = conv_.window.kernel;
  AMP_RETURN_IF_ERROR(geometry(conv_.window));

  out_numel_ = cfg.outputs[0].numel();
  if (out_numel_ == 0) {
    empty_ = true;
    return Status::ok();
  }
  if (x.numel() == 0 || w.numel() == 0)
    return unsupported(op() + ": empty input or weights with a non-empty output");
  const int64_t window = transpose_ ? 0 : whole_input_window(conv_, x);
  if (window > 0 && dtype_ == DType::kF32 && conv_.group == 1 && w.constant_data != nullptr &&
      SmallGemm::pays(conv_.n, conv_.c * window, conv_.m)) {
    // y [N, M] = x [N, C x window] W^T: W [M, C x window] read with its rows as columns.
    const int64_t l = conv_.c * window;
    const void* bias = conv_.has_bias ? cfg.inputs[2].constant_data : nullptr;
    small_.emplace();
    small_->prepare(conv_.n, l, conv_.m, static_cast<const float*>(w.constant_data), 1, l,
                    static_cast<const float*>(bias), conv_.act, w.constant_owner);
    impl_ = "own loop, small product (window covers the input)";
    return Status::ok();
  }
  const TensorDesc& y = cfg.outputs[0];
  const ChannelLayout x_layout = layout_of(x), y_layout = layout_of(y);
  // A plain input (a tensor between a convolution and an op that reads it plain, such as the
  // GroupNorm of RetinaNet's and FCOS's heads) reaches Winograd through one reorder to the
  // conv layout in the workspace: FCOS's 256 -> 256 head convolutions on 100x100 maps took
  // 130-140 ms on oneDNN's direct convolution (with the same reorders in and out) and take
  // 45-50 on Winograd (AMD EPYC, one thread).
  const ChannelLayout winograd_in =
      x_layout == ChannelLayout::kPlain && x.dims.size() == 4 ? conv_layout_for(x.dims) : x_layout;
  if (!transpose_ && dtype_ == DType::kF32 && w.constant_data != nullptr &&
      (!conv_.has_bias || cfg.inputs[2].constant_data != nullptr) &&
      WinogradConv::suits(conv_, winograd_in)) {
    winograd_.emplace();
    winograd_->prepare(
        conv_, static_cast<const float*>(w.constant_data), w.constant_owner,
        conv_.has_bias ? static_cast<const float*>(cfg.inputs[2].constant_data) : nullptr,
        winograd_in, y_layout, cfg.num_threads);
    off_winograd_ = ws_.add(winograd_->workspace_bytes());
    impl_ = winograd_->implementation();
    if (winograd_in != x_layout) {
      const memory::dims x_dims = to_dnnl_dims(x.dims);
      const memory::desc blocked = conv_activation_desc(x_dims, dt::f32);
      src_reorder_.prepare(plain_desc(x_dims, dt::f32), blocked, ws_, cfg.num_threads);
      off_src_blk_ = ws_.add(blocked.get_size());
      impl_ += ", input reordered from plain";
    }
    return Status::ok();
  }

  // Taps that only ever read padding (a dilated conv on a small map) leave the window, and W
  // is sliced to the taps kept (kernels/common/conv_live_taps.h).
  const void* w_data = w.constant_data;
  std::shared_ptr<const void> w_owner = w.constant_owner;
  std::string cut_note = turned ? ", k x 1 window over a width of 1 run as 1 x k" : "";
  if (!transpose_ && dtype_ == DType::kF32 && w.constant_data != nullptr) {
    if (std::optional<LiveWindow> live = cut_to_live_taps(conv_.window)) {
      cut_note += ", window cut to its live taps: " + window_text(kernel) + " -> " +
                  window_text(live->window.kernel);
      live_w_ = slice_window(static_cast<const float*>(w.constant_data),
                             conv_.m * (conv_.c / conv_.group), kernel, *live);
      conv_.window = live->window;
      AMP_RETURN_IF_ERROR(geometry(conv_.window));
      w_data = live_w_.data();
      w_owner = nullptr;
    }
  }

  // Weights: logical oneDNN dims and the strides of the ONNX buffer seen through them.
  // Conv W [M, C/G, k...] is oihw (goihw for groups). ConvTranspose W [C, M/G, k...] is
  // [G, C/G, M/G, k...]: oneDNN's (g)oihw dims read with iohw strides.
  const int64_t g = conv_.group, mg = conv_.m / g, cg = conv_.c / g;
  int64_t ksize = 1;
  for (int64_t k : kernel) ksize *= k;
  memory::dims kdims(kernel.begin(), kernel.end());
  memory::dims kstrides = dense_strides(kdims);
  if (depth_to_space_) {
    // The 1x1 conv to K M channels, window position major (conv_transpose_tiled.h); its
    // output keeps the input's spatial size.
    const size_t sp = kernel.size();
    tiled_w_ = tiled_weights(static_cast<const float*>(w.constant_data), conv_.c, conv_.m, ksize);
    w_dims_ = {conv_.m * ksize, conv_.c};
    w_dims_.insert(w_dims_.end(), sp, 1);
    w_strides_ = dense_strides(w_dims_);
    dnnl_out_sp_ = conv_.window.in_spatial;
    strides_.assign(sp, 1);
    dilations_.assign(sp, 0);
    pad_l_.assign(sp, 0);
    pad_r_.assign(sp, 0);
    pointwise_channels_ = conv_.m * ksize;
    sigmoid_after_ = conv_.act.kind == graph::ActivationKind::kSigmoid;
    // A conv-layout output fixes the pixels' layout to the same kind, whose channel runs the
    // depth-to-space copies whole; a plain output takes the layout the primitive prefers.
    if (cfg.outputs[0].conv_layout) {
      tiled_out_ = layout_of(cfg.outputs[0]);
      pixels_desc_ = tiled_desc(pixel_dims(), tiled_out_);
    }
  } else if (!transpose_) {
    w_dims_ = g == 1 ? memory::dims{conv_.m, conv_.c} : memory::dims{g, mg, cg};
    w_dims_.insert(w_dims_.end(), kdims.begin(), kdims.end());
    w_strides_ = dense_strides(w_dims_);
  } else {
    w_dims_ = g == 1 ? memory::dims{conv_.m, conv_.c} : memory::dims{g, mg, cg};
    w_strides_ =
        g == 1 ? memory::dims{ksize, mg * ksize} : memory::dims{cg * mg * ksize, ksize, mg * ksize};
    w_dims_.insert(w_dims_.end(), kdims.begin(), kdims.end());
    w_strides_.insert(w_strides_.end(), kstrides.begin(), kstrides.end());
  }

  // Where oneDNN would run its im2col GEMM, which multiplies the padding's zeros too, and
  // many multiply-adds read padding: a sum of one product per tap, from and to channels-last
  // copies of x and y in the workspace (kernels/cpu/tap_sum_conv.h).
  if (!transpose_ && dtype_ == DType::kF32 && w.constant_data != nullptr &&
      (!conv_.has_bias || cfg.inputs[2].constant_data != nullptr) && TapSumConv::suits(conv_) &&
      runs_im2col_gemm(create_pd(dt::f32, dt::f32))) {
    tap_sum_.emplace();
    tap_sum_->prepare(
        conv_, static_cast<const float*>(w_data), w_owner,
        conv_.has_bias ? static_cast<const float*>(cfg.inputs[2].constant_data) : nullptr);
    live_w_ = {};  // packed per tap
    off_tap_sum_ = ws_.add(tap_sum_->workspace_bytes());
    const memory::dims src_dims = lifted_dims(x.dims, lifted, tall, turned);
    const memory::dims dst_dims = lifted_dims(y.dims, lifted, tall, turned);
    const memory::desc src_nhwc = channels_last_desc(src_dims, dt::f32);
    const memory::desc dst_nhwc = channels_last_desc(dst_dims, dt::f32);
    src_reorder_.prepare(caller_desc(src_dims, dt::f32, x.conv_layout), src_nhwc, ws_,
                         cfg.num_threads);
    dst_reorder_.prepare(dst_nhwc, caller_desc(dst_dims, dt::f32, y.conv_layout), ws_,
                         cfg.num_threads);
    if (src_reorder_.active()) off_src_blk_ = ws_.add(src_nhwc.get_size());
    if (dst_reorder_.active()) off_dst_blk_ = ws_.add(dst_nhwc.get_size());
    impl_ = tap_sum_->implementation() + cut_note;
    if (src_reorder_.active() || dst_reorder_.active())
      impl_ += std::string(", channels-last copy of") +
               (src_reorder_.active() && dst_reorder_.active() ? " x and y"
                : src_reorder_.active()                        ? " x"
                                                               : " y");
    return Status::ok();
  }

  // Pick the compute path (header comment).
  dnnl::primitive_desc pd;
  dt compute = dt::f32;
  bool built = false;
  if (dtype_ == DType::kBF16) {
    try {
      pd = prims_.build(cfg.num_threads,
                        [&] { return create_pd(dt::bf16, shifted_ ? dt::f32 : dt::bf16); });
      compute = dt::bf16;
      built = true;
    } catch (const dnnl::error&) {
      // No bf16 implementation on this CPU: fall through to f32 compute.
    }
  }
  if (!built) {
    stage_src_ = dtype_ != DType::kF32;
    pd = prims_.build(cfg.num_threads, [&] { return create_pd(dt::f32, dt::f32); });
  }
  stage_dst_ = shifted_ || (dtype_ != DType::kF32 && compute == dt::f32);
  // The layout plan keeps bf16 in the conv layout only where oneDNN computes bf16 natively
  // (CpuBackend::conv_layout_dtype); staging reads and writes plain tensors.
  if (conv_layout && (stage_src_ || stage_dst_))
    return internal_error(op() + ": a conv-layout tensor on a staged (f32-computed) path");
  src_md_ = pd.query_md(dnnl::query::src_md);
  wei_md_ = pd.query_md(dnnl::query::weights_md);
  dst_md_ = pd.query_md(dnnl::query::dst_md);
  if (conv_.has_bias) bias_md_ = pd.query_md(dnnl::query::weights_md, 1);
  scratch_md_ = pd.query_md(dnnl::query::scratchpad_md);

  src_numel_ = x.numel();
  dnnl_dst_numel_ = conv_.n * dst_channels();
  for (int64_t d : dnnl_out_sp_) dnnl_dst_numel_ *= d;
  off_scratch_ = ws_.add(scratch_md_.get_size());
  if (stage_src_) off_src_ = ws_.add(static_cast<size_t>(src_numel_) * sizeof(float));
  if (stage_dst_) off_dst_ = ws_.add(static_cast<size_t>(dnnl_dst_numel_) * sizeof(float));
  memory::dims dst_dims = {conv_.n, dst_channels()};
  dst_dims.insert(dst_dims.end(), dnnl_out_sp_.begin(), dnnl_out_sp_.end());
  src_reorder_.prepare(
      caller_desc(lifted_dims(x.dims, lifted, tall, turned), src_md_.data_type(), x.conv_layout),
      src_md_, ws_, cfg.num_threads);
  if (depth_to_space_) {
    // A plain output: the pixels stay in the layout the primitive prefers where the
    // depth-to-space reads it, else they are reordered to plain.
    if (!pixels_desc_)
      pixels_desc_ = tiled_layout_of(dst_md_) ? dst_md_ : plain_desc(dst_dims, dt::f32);
    int64_t in3[3] = {1, 1, 1}, k3[3] = {1, 1, 1};
    const size_t sp = kernel.size();
    for (size_t i = 0; i < sp; ++i) {
      in3[3 - sp + i] = conv_.window.in_spatial[i];
      k3[3 - sp + i] = kernel[i];
    }
    d2s_.prepare(conv_.n, conv_.m, in3, k3, *tiled_layout_of(pixels_desc_), tiled_out_);
    off_dst_ = ws_.add(pixels_desc_.get_size());  // blocks padded to 8 channels included
  }
  dst_reorder_.prepare(dst_md_,
                       depth_to_space_
                           ? pixels_desc_
                           : caller_desc(dst_dims, dst_md_.data_type(), cfg.outputs[0].conv_layout),
                       ws_, cfg.num_threads);
  if (src_reorder_.active()) off_src_blk_ = ws_.add(src_md_.get_size());
  if (dst_reorder_.active()) off_dst_blk_ = ws_.add(dst_md_.get_size());
  impl_ = dnnl_implementation(transpose_ && !depth_to_space_ ? "deconv" : "conv", pd, stage_src_,
                              src_reorder_.active(), dst_reorder_.active());
  if (depth_to_space_) impl_ += ", then depth-to-space (kernel = stride)";
  if (conv_.has_bias) {
    const TensorDesc& b = cfg.inputs[2];
    if (b.constant_data != nullptr) {
      bias_const_.resize(static_cast<size_t>(conv_.m));
      load_scaled_f32(dtype_, b.constant_data, 1.0f, bias_const_.data(), conv_.m);
      if (depth_to_space_)
        bias_const_ = tiled_bias(bias_const_.data(), conv_.m, pointwise_channels_ / conv_.m);
    } else if (dtype_ != DType::kF32) {
      off_bias_ = ws_.add(static_cast<size_t>(conv_.m) * sizeof(float));
    }
  }
  if (depth_to_space_) {  // regrouped here: packed once, not shared with other kernels
    const Status packed = weights_.prepare(dtype_, w_dims_, w_strides_, tiled_w_.data(), nullptr,
                                           wei_md_, ws_, cfg.num_threads);
    tiled_w_ = {};  // the packed copy is the one the runs read
    return packed;
  }
  impl_ += cut_note;
  const Status packed =
      weights_.prepare(dtype_, w_dims_, w_strides_, w_data, w_owner, wei_md_, ws_, cfg.num_threads);
  live_w_ = {};  // the packed copy is the one the runs read
  return packed;
}

template <typename T>
void store_shifted_as(const float* staged, const float* bias, const ew::Activation& act,
                      int64_t planes, int64_t m, const std::vector<int64_t>& out3,
                      const std::vector<int64_t>& src3, const std::vector<int64_t>& shift3, T* out,
                      int threads) {
  const int64_t out_plane = out3[0] * out3[1] * out3[2];
  const int64_t src_plane = src3[0] * src3[1] * src3[2];
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(out_plane, 1));
  parallel_for(
      planes, threads,
      [&](int64_t begin, int64_t end) {
        for (int64_t p = begin; p < end; ++p) {
          const float fill = ew::apply_activation(act, bias ? bias[p % m] : 0.0f);
          const float* s = staged + p * src_plane;
          T* o = out + p * out_plane;
          for (int64_t z = 0; z < out3[0]; ++z) {
            for (int64_t y = 0; y < out3[1]; ++y) {
              for (int64_t x = 0; x < out3[2]; ++x) {
                const int64_t sz = z - shift3[0], sy = y - shift3[1], sx = x - shift3[2];
                const float v =
                    (sz < 0 || sy < 0 || sx < 0) ? fill : s[(sz * src3[1] + sy) * src3[2] + sx];
                o[(z * out3[1] + y) * out3[2] + x] = store_as<T>(v);
              }
            }
          }
        }
      },
      grain);
}

void ConvKernel::store_shifted(const float* staged, const float* bias, void* out,
                               int threads) const {
  // Spatial dims right-aligned into 3 (d, h, w).
  std::vector<int64_t> out3(3, 1), src3(3, 1), shift3(3, 0);
  const size_t sp = out_sp_.size();
  for (size_t i = 0; i < sp; ++i) {
    out3[3 - sp + i] = out_sp_[i];
    src3[3 - sp + i] = dnnl_out_sp_[i];
    shift3[3 - sp + i] = shift_[i];
  }
  const int64_t planes = conv_.n * conv_.m;
  switch (dtype_) {
    case DType::kF32:
      store_shifted_as(staged, bias, conv_.act, planes, conv_.m, out3, src3, shift3,
                       static_cast<float*>(out), threads);
      return;
    case DType::kF16:
      store_shifted_as(staged, bias, conv_.act, planes, conv_.m, out3, src3, shift3,
                       static_cast<Half*>(out), threads);
      return;
    case DType::kBF16:
      store_shifted_as(staged, bias, conv_.act, planes, conv_.m, out3, src3, shift3,
                       static_cast<BFloat16*>(out), threads);
      return;
    default:
      return;  // prepare() admits only these
  }
}

const void* ConvKernel::reordered_src(const void* src, void* ws, int threads) const {
  if (!src_reorder_.active()) return src;
  void* copy = WorkspaceLayout::at(ws, off_src_blk_);
  src_reorder_.run(src, copy, ws, threads);
  return copy;
}

Status ConvKernel::run_impl(const KernelArgs& a) const {
  if (empty_) return Status::ok();
  const int threads = a.num_threads;
  if (small_) {
    small_->run(static_cast<const float*>(a.inputs[0]),
                conv_.has_bias ? static_cast<const float*>(a.inputs[2]) : nullptr,
                static_cast<float*>(a.outputs[0]), threads);
    return Status::ok();
  }
  void* ws = a.workspace;
  if (winograd_) {
    winograd_->run(static_cast<const float*>(reordered_src(a.inputs[0], ws, threads)),
                   static_cast<float*>(a.outputs[0]), WorkspaceLayout::at(ws, off_winograd_),
                   threads);
    return Status::ok();
  }
  if (tap_sum_) {
    const void* x = reordered_src(a.inputs[0], ws, threads);
    void* y = dst_reorder_.active() ? WorkspaceLayout::at(ws, off_dst_blk_) : a.outputs[0];
    tap_sum_->run(static_cast<const float*>(x), static_cast<float*>(y),
                  WorkspaceLayout::at(ws, off_tap_sum_), threads);
    if (dst_reorder_.active()) dst_reorder_.run(y, a.outputs[0], ws, threads);
    return Status::ok();
  }
  const dnnl::engine& eng = dnnl_engine();

  const void* src = a.inputs[0];
  if (stage_src_) {
    float* buf = reinterpret_cast<float*>(WorkspaceLayout::at(ws, off_src_));
    convert_to_f32(dtype_, src, buf, src_numel_, threads);
    src = buf;
  }
  const void* wei = weights_.get(a.inputs[1], ws, threads);
  const float* bias = nullptr;
  if (conv_.has_bias) {
    if (!bias_const_.empty()) {
      bias = bias_const_.data();
    } else if (dtype_ == DType::kF32) {
      bias = static_cast<const float*>(a.inputs[2]);
    } else {
      float* buf = reinterpret_cast<float*>(WorkspaceLayout::at(ws, off_bias_));
      load_scaled_f32(dtype_, a.inputs[2], 1.0f, buf, conv_.m);
      bias = buf;
    }
  }
  src = reordered_src(src, ws, threads);
  void* dst = stage_dst_ || depth_to_space_ ? WorkspaceLayout::at(ws, off_dst_) : a.outputs[0];
  void* prim_dst = dst_reorder_.active() ? WorkspaceLayout::at(ws, off_dst_blk_) : dst;

  std::unordered_map<int, memory> args = {
      {DNNL_ARG_SRC, memory(src_md_, eng, const_cast<void*>(src))},
      {DNNL_ARG_WEIGHTS, memory(wei_md_, eng, const_cast<void*>(wei))},
      {DNNL_ARG_DST, memory(dst_md_, eng, prim_dst)}};
  if (conv_.has_bias) args.emplace(DNNL_ARG_BIAS, memory(bias_md_, eng, const_cast<float*>(bias)));
  add_scratchpad(args, scratch_md_, ws, off_scratch_);
  dnnl_execute(prims_.for_threads(threads), args, threads);
  if (dst_reorder_.active()) dst_reorder_.run(prim_dst, dst, ws, threads);

  if (depth_to_space_) {
    float* out = static_cast<float*>(a.outputs[0]);
    d2s_.run(static_cast<const float*>(dst), out, threads);
    if (sigmoid_after_)
      parallel_for(
          out_numel_, threads,
          [&](int64_t begin, int64_t end) { sigmoid_f32(out + begin, out + begin, end - begin); },
          32768);
  } else if (shifted_) {
    store_shifted(static_cast<const float*>(dst), bias, a.outputs[0], threads);
  } else if (stage_dst_) {
    store_from_f32(dtype_, static_cast<const float*>(dst), a.outputs[0], out_numel_, threads);
  }
  return Status::ok();
}

}  // namespace

void register_conv_kernels(KernelRegistry& registry) {
  add_kernel_family<ConvKernel>(registry, Backend::kCpu, conv_family());
}

}  // namespace amp::kernels::cpu
