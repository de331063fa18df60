// Conv and ConvTranspose on cuDNN's legacy convolution API: 1-D to 3-D, grouped (depthwise
// included), strided, dilated, padded, optional bias B, and the fused activation the
// runtime's FuseActivation pass attaches. Semantics mirror kernels/cpu/dnnl_conv.cc.
//
// Conv: cudnnConvolutionForward. cuDNN takes one pad per axis, so asymmetric pads
// (SAME_* with an odd total, or explicit) first copy X zero-padded into the workspace
// and convolve that with pad 0.
// ConvTranspose: cudnnConvolutionBackwardData, the adjoint of the forward convolution
// with W [C, M/G, k...] read as cuDNN's filter [K = C, M/G, k...]. Output position o
// receives x[i] w[k] where o = i s + k d - pad_begin, for any output size cuDNN accepts
// (floor((out + 2 pad - e) / s) + 1 == in). Other geometries (asymmetric pads,
// output_padding >= stride, output_shape asking for more than the input reaches, a
// negative begin pad) compute the pad-0 ("natural", s (in - 1) + e) output into the
// workspace and crop it into Y, zero where no input reaches.
// 1-D convolutions are 2-D convolutions of height 1 for cuDNN.
//
// Numerics: fp32 accumulation for every dtype (compute type CUDNN_DATA_FLOAT: f16/bf16
// run cuDNN's PSEUDO_HALF / PSEUDO_BFLOAT16 configurations). Math type: f16/bf16
// CUDNN_TENSOR_OP_MATH; f32 CUDNN_FMA_MATH (no TF32) unless DeviceHandles::allow_tf32,
// then CUDNN_DEFAULT_MATH. Bias and activation run after the convolution as one fp32
// epilogue kernel (cudnn_epilogue.h); for f16/bf16 outputs the convolution result is
// therefore rounded to the storage type before the bias is added and rounded again: at
// most one extra rounding step of the low type, well inside the f16/bf16 tolerances.
// (cudnnConvolutionBiasActivationForward would fuse bias + Relu; it is left out until it
// can be validated on a GPU, because it may read the uninitialized output as its z input.)
//
// Algorithms: prepare() cannot run cudnnFind (no device memory there), so it takes
// cudnnGet*Algorithm_v7's heuristic ranking and keeps the first algorithm whose
// workspace query succeeds within kMaxWorkspace.
#include <algorithm>

#include "kernels/common/window_op_io.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/cudnn_common.h"
#include "kernels/cuda/cudnn_epilogue.h"

namespace amp::kernels::cuda {
namespace {

// Algorithms needing more scratch than this are skipped (FFT variants can ask for GiBs).
constexpr size_t kMaxWorkspace = size_t{256} << 20;

// Sizes fill the missing leading axes with 1, offsets (pads, crop) with 0.
Geom3 to_geom3(const std::vector<int64_t>& sp, int64_t fill) {
  Geom3 g;
  for (int64_t& d : g.d) d = fill;
  for (size_t i = 0; i < sp.size(); ++i) g.d[3 - sp.size() + i] = sp[i];
  return g;
}

// Lifts a 1-D spatial list to 2-D (cuDNN's descriptors start at 4-D tensors).
std::vector<int64_t> lift(const std::vector<int64_t>& v, int64_t fill) {
  if (v.size() != 1) return v;
  return {fill, v[0]};
}

class ConvKernel final : public Kernel {
 public:
  explicit ConvKernel(bool transpose) : transpose_(transpose) {}

  Status prepare(const KernelConfig& cfg) override;
  size_t workspace_bytes() const override { return ws_.total(); }
  Status run(const KernelArgs& a) const override;
  std::string implementation() const override {
    return transpose_ ? "cuDNN backward-data algo " + std::to_string(static_cast<int>(bwd_algo_))
                      : "cuDNN forward algo " + std::to_string(static_cast<int>(fwd_algo_));
  }

 private:
  std::string op() const { return transpose_ ? "ConvTranspose" : "Conv"; }
  Status geometry(const graph::Window& win);
  Status build_descriptors(const cuda::DeviceHandles& dev, const TensorDesc& w);
  Status choose_forward_algo(cudnnHandle_t h);
  Status choose_backward_data_algo(cudnnHandle_t h);

  const bool transpose_;
  DType dtype_ = DType::kUndefined;
  bool empty_ = false;
  graph::ConvAttrs conv_;  // the node's record (group, channels, window, activation)
  std::vector<int64_t> out_sp_;
  std::vector<int64_t> strides_, dilations_, pads_;  // cuDNN's (symmetric) pads
  // Conv with asymmetric pads: X copied zero-padded into the workspace.
  bool pad_input_ = false;
  std::vector<int64_t> pad_begin_, padded_sp_;
  // ConvTranspose computed at its natural size and cropped (header comment).
  bool staged_ = false;
  std::vector<int64_t> natural_sp_, crop_offset_;

  cudnnMathType_t math_ = CUDNN_DEFAULT_MATH;
  TensorDescriptor x_desc_, y_desc_;
  FilterDescriptor w_desc_;
  ConvDescriptor conv_desc_;
  cudnnConvolutionFwdAlgo_t fwd_algo_ = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  cudnnConvolutionBwdDataAlgo_t bwd_algo_ = CUDNN_CONVOLUTION_BWD_DATA_ALGO_0;
  size_t algo_ws_bytes_ = 0;

  WorkspaceLayout ws_;
  size_t off_pad_ = WorkspaceLayout::kNone, off_stage_ = WorkspaceLayout::kNone;
  size_t off_algo_ = WorkspaceLayout::kNone;
};

// The window shape inference resolved (graph/ops/window_geometry.h), in cuDNN's terms:
// one symmetric pad per axis, else the padded-input or natural-size-and-crop paths.
Status ConvKernel::geometry(const graph::Window& win) {
  const size_t sp = win.rank();
  out_sp_ = win.out_spatial;
  strides_ = win.strides;
  dilations_ = win.dilations;
  pads_.assign(sp, 0);

  if (!transpose_) {
    pad_input_ = win.pad_begin != win.pad_end;
    if (pad_input_) {
      pad_begin_ = win.pad_begin;
      padded_sp_.resize(sp);
      for (size_t i = 0; i < sp; ++i)
        padded_sp_[i] = conv_.window.in_spatial[i] + win.pad_begin[i] + win.pad_end[i];
    } else {
      pads_ = win.pad_begin;
    }
    return Status::ok();
  }

  natural_sp_.resize(sp);
  bool direct = true;
  for (size_t i = 0; i < sp; ++i) {
    const int64_t e = win.effective_kernel(i), s = win.strides[i];
    natural_sp_[i] = s * (conv_.window.in_spatial[i] - 1) + e;
    const int64_t pl = win.pad_begin[i];
    // cuDNN's size rule for backward data with symmetric pad pl (header comment).
    const int64_t span = out_sp_[i] + 2 * pl - e;
    direct = direct && pl >= 0 && span >= 0 && span / s + 1 == conv_.window.in_spatial[i];
  }
  staged_ = !direct;
  if (staged_) {
    crop_offset_ = win.pad_begin;  // output o reads natural position o + pad_begin
  } else {
    pads_ = win.pad_begin;
  }
  return Status::ok();
}

Status ConvKernel::choose_forward_algo(cudnnHandle_t h) {
  int max_count = 0;
  AMP_CUDNN_RETURN_IF_ERROR(cudnnGetConvolutionForwardAlgorithmMaxCount(h, &max_count));
  std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(static_cast<size_t>(std::max(max_count, 1)));
  int returned = 0;
  AMP_CUDNN_RETURN_IF_ERROR(cudnnGetConvolutionForwardAlgorithm_v7(
      h, x_desc_.get(), w_desc_.get(), conv_desc_.get(), y_desc_.get(),
      static_cast<int>(perf.size()), &returned, perf.data()));
  for (int i = 0; i < returned; ++i) {
    if (perf[i].status != CUDNN_STATUS_SUCCESS) continue;
    // Strict f32 keeps CUDNN_FMA_MATH whatever the entry says; otherwise take the entry's
    // math type, as cuDNN's documentation asks for v7 results.
    const cudnnMathType_t math = math_ == CUDNN_FMA_MATH ? math_ : perf[i].mathType;
    AMP_CUDNN_RETURN_IF_ERROR(cudnnSetConvolutionMathType(conv_desc_.get(), math));
    size_t bytes = 0;
    const cudnnStatus_t st = cudnnGetConvolutionForwardWorkspaceSize(
        h, x_desc_.get(), w_desc_.get(), conv_desc_.get(), y_desc_.get(), perf[i].algo, &bytes);
    if (st != CUDNN_STATUS_SUCCESS || bytes > kMaxWorkspace) continue;
    fwd_algo_ = perf[i].algo;
    algo_ws_bytes_ = bytes;
    return Status::ok();
  }
  return unsupported(op() + ": cuDNN offers no forward algorithm for this configuration");
}

Status ConvKernel::choose_backward_data_algo(cudnnHandle_t h) {
  int max_count = 0;
  AMP_CUDNN_RETURN_IF_ERROR(cudnnGetConvolutionBackwardDataAlgorithmMaxCount(h, &max_count));
  std::vector<cudnnConvolutionBwdDataAlgoPerf_t> perf(static_cast<size_t>(std::max(max_count, 1)));
  int returned = 0;
  // Backward data: w, dy (our X), conv, dx (our Y).
  AMP_CUDNN_RETURN_IF_ERROR(cudnnGetConvolutionBackwardDataAlgorithm_v7(
      h, w_desc_.get(), x_desc_.get(), conv_desc_.get(), y_desc_.get(),
      static_cast<int>(perf.size()), &returned, perf.data()));
  for (int i = 0; i < returned; ++i) {
    if (perf[i].status != CUDNN_STATUS_SUCCESS) continue;
    const cudnnMathType_t math = math_ == CUDNN_FMA_MATH ? math_ : perf[i].mathType;
    AMP_CUDNN_RETURN_IF_ERROR(cudnnSetConvolutionMathType(conv_desc_.get(), math));
    size_t bytes = 0;
    const cudnnStatus_t st = cudnnGetConvolutionBackwardDataWorkspaceSize(
        h, w_desc_.get(), x_desc_.get(), conv_desc_.get(), y_desc_.get(), perf[i].algo, &bytes);
    if (st != CUDNN_STATUS_SUCCESS || bytes > kMaxWorkspace) continue;
    bwd_algo_ = perf[i].algo;
    algo_ws_bytes_ = bytes;
    return Status::ok();
  }
  return unsupported(op() + ": cuDNN offers no backward-data algorithm for this configuration");
}

Status ConvKernel::build_descriptors(const cuda::DeviceHandles& dev, const TensorDesc& w) {
  const size_t sp = conv_.window.in_spatial.size();
  // Tensor dims as cuDNN sees them (1-D lifted to 2-D).
  std::vector<int64_t> x_dims = {conv_.n, conv_.c}, y_dims = {conv_.n, conv_.m};
  const std::vector<int64_t>& x_sp = pad_input_ ? padded_sp_ : conv_.window.in_spatial;
  const std::vector<int64_t>& y_sp = staged_ ? natural_sp_ : out_sp_;
  for (int64_t d : lift(x_sp, 1)) x_dims.push_back(d);
  for (int64_t d : lift(y_sp, 1)) y_dims.push_back(d);
  std::vector<int64_t> w_dims(w.dims.begin(), w.dims.begin() + 2);
  for (int64_t d : lift(conv_.window.kernel, 1)) w_dims.push_back(d);
  const std::vector<int64_t> pads = lift(pads_, 0), strides = lift(strides_, 1),
                             dilations = lift(dilations_, 1);
  (void)sp;

  // Conv: x = X, y = Y. ConvTranspose: x = dy = X, y = dx = Y (same tensors, adjoint op).
  AMP_RETURN_IF_ERROR(set_tensor(x_desc_, dtype_, x_dims));
  AMP_RETURN_IF_ERROR(set_tensor(y_desc_, dtype_, y_dims));
  AMP_RETURN_IF_ERROR(set_filter(w_desc_, dtype_, w_dims));
  AMP_RETURN_IF_ERROR(create(conv_desc_));
  AMP_RETURN_IF_ERROR(fits_int(pads, op() + " pads"));
  AMP_RETURN_IF_ERROR(fits_int(strides, op() + " strides"));
  AMP_RETURN_IF_ERROR(fits_int(dilations, op() + " dilations"));
  AMP_RETURN_IF_ERROR(fits_int({conv_.group}, op() + " group"));
  const std::vector<int> pi = to_int(pads), si = to_int(strides), di = to_int(dilations);
  AMP_CUDNN_RETURN_IF_ERROR(cudnnSetConvolutionNdDescriptor(
      conv_desc_.get(), static_cast<int>(pi.size()), pi.data(), si.data(), di.data(),
      CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  AMP_CUDNN_RETURN_IF_ERROR(
      cudnnSetConvolutionGroupCount(conv_desc_.get(), static_cast<int>(conv_.group)));
  math_ = dtype_ != DType::kF32 ? CUDNN_TENSOR_OP_MATH
                                : (dev.allow_tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH);
  AMP_CUDNN_RETURN_IF_ERROR(cudnnSetConvolutionMathType(conv_desc_.get(), math_));

  // cuDNN's own size rule must give the dims we planned (a forward conv of the output
  // shape for ConvTranspose).
  std::vector<int> expect(x_dims.size());
  const TensorDescriptor& fwd_in = transpose_ ? y_desc_ : x_desc_;
  AMP_CUDNN_RETURN_IF_ERROR(
      cudnnGetConvolutionNdForwardOutputDim(conv_desc_.get(), fwd_in.get(), w_desc_.get(),
                                            static_cast<int>(expect.size()), expect.data()));
  const std::vector<int64_t>& fwd_out = transpose_ ? x_dims : y_dims;
  for (size_t i = 0; i < expect.size(); ++i)
    if (static_cast<int64_t>(expect[i]) != fwd_out[i])
      return internal_error(op() + ": cuDNN computes output dim " + std::to_string(expect[i]) +
                            " on axis " + std::to_string(i) + ", planned " +
                            std::to_string(fwd_out[i]));

  return with_heuristics_handle(dev.device, [&](cudnnHandle_t h) {
    return transpose_ ? choose_backward_data_algo(h) : choose_forward_algo(h);
  });
}

Status ConvKernel::prepare(const KernelConfig& cfg) {
  AMP_ASSIGN_OR_RETURN(const graph::ConvAttrs* p, check_conv_io(cfg));
  AMP_ASSIGN_OR_RETURN(const cuda::DeviceHandles* dev, device_handles(cfg));
  const TensorDesc& x = cfg.inputs[0];
  const TensorDesc& w = cfg.inputs[1];
  conv_ = *p;
  dtype_ = x.dtype;
  AMP_RETURN_IF_ERROR(geometry(p->window));

  if (cfg.outputs[0].numel() == 0) {
    empty_ = true;
    return Status::ok();
  }
  if (x.numel() == 0 || w.numel() == 0)
    return unsupported(op() + ": empty input or weights with a non-empty output");

  AMP_RETURN_IF_ERROR(build_descriptors(*dev, w));
  const size_t elem = dtype_size(dtype_);
  if (pad_input_) {
    int64_t numel = conv_.n * conv_.c;
    for (int64_t d : padded_sp_) numel *= d;
    off_pad_ = ws_.add(static_cast<size_t>(numel) * elem);
  }
  if (staged_) {
    int64_t numel = conv_.n * conv_.m;
    for (int64_t d : natural_sp_) numel *= d;
    off_stage_ = ws_.add(static_cast<size_t>(numel) * elem);
  }
  off_algo_ = ws_.add(algo_ws_bytes_);
  return Status::ok();
}

Status ConvKernel::run(const KernelArgs& a) const {
  if (empty_) return Status::ok();
  AMP_ASSIGN_OR_RETURN(const cuda::ContextHandles* ctx, context_handles(a));
  cudaStream_t st = static_cast<cudaStream_t>(a.stream);
  void* algo_ws = WorkspaceLayout::at(a.workspace, off_algo_);
  const float one = 1.0f, zero = 0.0f;
  const void* bias = conv_.has_bias ? a.inputs[2] : nullptr;
  const bool epilogue = conv_.has_bias || conv_.act.kind != ew::ActivationKind::kNone;
  const int64_t planes = conv_.n * conv_.m;

  if (!transpose_) {
    const void* x = a.inputs[0];
    if (pad_input_) {
      void* padded = WorkspaceLayout::at(a.workspace, off_pad_);
      AMP_RETURN_IF_ERROR(launch_pad_copy(x, padded, dtype_size(dtype_), conv_.n * conv_.c,
                                          to_geom3(conv_.window.in_spatial, 1),
                                          to_geom3(padded_sp_, 1), to_geom3(pad_begin_, 0), st));
      x = padded;
    }
    AMP_CUDNN_RETURN_IF_ERROR(cudnnConvolutionForward(
        ctx->cudnn, &one, x_desc_.get(), x, w_desc_.get(), a.inputs[1], conv_desc_.get(), fwd_algo_,
        algo_ws, algo_ws_bytes_, &zero, y_desc_.get(), a.outputs[0]));
  } else {
    void* dst = staged_ ? WorkspaceLayout::at(a.workspace, off_stage_) : a.outputs[0];
    AMP_CUDNN_RETURN_IF_ERROR(cudnnConvolutionBackwardData(
        ctx->cudnn, &one, w_desc_.get(), a.inputs[1], x_desc_.get(), a.inputs[0], conv_desc_.get(),
        bwd_algo_, algo_ws, algo_ws_bytes_, &zero, y_desc_.get(), dst));
    if (staged_)
      return launch_crop_bias_activation(dst, a.outputs[0], dtype_, planes, conv_.m,
                                         to_geom3(natural_sp_, 1), to_geom3(out_sp_, 1),
                                         to_geom3(crop_offset_, 0), bias, conv_.act, st);
  }
  if (!epilogue) return Status::ok();
  int64_t inner = 1;
  for (int64_t d : out_sp_) inner *= d;
  return launch_bias_activation(a.outputs[0], dtype_, a.outputs[0], dtype_, bias, planes * inner,
                                inner, conv_.m, conv_.act, st);
}

}  // namespace

void register_conv_kernels(KernelRegistry& registry) {
  add_kernel_family<ConvKernel>(registry, Backend::kCuda, conv_family());
}

}  // namespace amp::kernels::cuda
