// MaxPool and AveragePool on the GPU, 1-D to 3-D: cuDNN pooling where its semantics are
// ONNX's, AMPRT's own kernel (pool_kernels.cu) elsewhere. Window rules as in
// kernels/cpu/dnnl_pool.cc (see its header comment).
//
// cuDNN's legacy pooling takes one pad per axis (symmetric), no dilation, floors the
// output size, and averages either over the whole padded window or over the positions
// inside the input. So it runs when: no Indices output, every dilation is 1, pad_begin ==
// pad_end < kernel on every axis, the output sizes are cuDNN's floor formula (ceil_mode
// added no window), and the dtype is f32 (max or average) or f16 (max only: a maximum is
// exact in any precision, while cuDNN does not document fp32 accumulation for a half
// average, which the numerical contract requires). Everything else, including bf16 and
// i8/u8 MaxPool, runs the own kernel. 1-D pools are 2-D pools of height 1 for cuDNN.
#include <algorithm>

#include "kernels/common/window_op_io.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/cudnn_common.h"
#include "kernels/cuda/pool_kernels.h"

namespace amp::kernels::cuda {
namespace {

class PoolKernel final : public Kernel {
 public:
  explicit PoolKernel(bool max) : max_(max) {}

  Status prepare(const KernelConfig& cfg) override {
    AMP_ASSIGN_OR_RETURN(pool_, check_pool_io(cfg));
    const TensorDesc& x = cfg.inputs[0];
    const graph::Window& w = pool_.attrs.window;
    const size_t sp = w.rank();
    const std::vector<int64_t>& in_sp = w.in_spatial;
    const std::vector<int64_t>& out_sp = w.out_spatial;
    const std::vector<int64_t>& y_dims = cfg.outputs[0].dims;
    bool cudnn_fits = !pool_.attrs.with_indices &&
                      (pool_.dtype == DType::kF32 || (pool_.dtype == DType::kF16 && max_));
    for (size_t i = 0; i < sp; ++i) {
      const int64_t floor_out = (in_sp[i] + 2 * w.pad_begin[i] - w.kernel[i]) / w.strides[i] + 1;
      cudnn_fits = cudnn_fits && w.dilations[i] == 1 && w.pad_begin[i] == w.pad_end[i] &&
                   w.pad_begin[i] < w.kernel[i] && out_sp[i] == floor_out;
    }
    if (cfg.outputs[0].numel() == 0) {
      empty_ = true;
      return Status::ok();
    }
    use_cudnn_ = false;
    if (cudnn_fits) {
      // cuDNN wants 4-D / 5-D descriptors: a 1-D pool is a 2-D pool of height 1.
      std::vector<int64_t> xd = x.dims, yd = y_dims, k = w.kernel, s = w.strides, p = w.pad_begin;
      if (sp == 1) {
        xd.insert(xd.begin() + 2, 1);
        yd.insert(yd.begin() + 2, 1);
        k.insert(k.begin(), 1);
        s.insert(s.begin(), 1);
        p.insert(p.begin(), 0);
      }
      AMP_RETURN_IF_ERROR(fits_int(k, op() + " kernel_shape"));
      AMP_RETURN_IF_ERROR(fits_int(s, op() + " strides"));
      AMP_RETURN_IF_ERROR(fits_int(p, op() + " pads"));
      AMP_RETURN_IF_ERROR(set_tensor(x_desc_, pool_.dtype, xd));
      AMP_RETURN_IF_ERROR(set_tensor(y_desc_, pool_.dtype, yd));
      AMP_RETURN_IF_ERROR(create(pool_desc_));
      const cudnnPoolingMode_t mode = max_ ? CUDNN_POOLING_MAX_DETERMINISTIC
                                      : pool_.attrs.count_include_pad
                                          ? CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                                          : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
      const std::vector<int> ki = to_int(k), si = to_int(s), pi = to_int(p);
      AMP_CUDNN_RETURN_IF_ERROR(cudnnSetPoolingNdDescriptor(
          pool_desc_.get(), mode, CUDNN_NOT_PROPAGATE_NAN, static_cast<int>(ki.size()), ki.data(),
          pi.data(), si.data()));
      // cuDNN's own output size must be ONNX's, or the own kernel runs.
      std::vector<int> od(yd.size());
      AMP_CUDNN_RETURN_IF_ERROR(cudnnGetPoolingNdForwardOutputDim(
          pool_desc_.get(), x_desc_.get(), static_cast<int>(od.size()), od.data()));
      use_cudnn_ = std::equal(od.begin(), od.end(), yd.begin(),
                              [](int a, int64_t b) { return static_cast<int64_t>(a) == b; });
    }
    return Status::ok();
  }

  std::string implementation() const override { return use_cudnn_ ? "cuDNN pooling" : ""; }
  Status run(const KernelArgs& a) const override {
    if (empty_) return Status::ok();
    cudaStream_t st = static_cast<cudaStream_t>(a.stream);
    if (use_cudnn_) {
      AMP_ASSIGN_OR_RETURN(const cuda::ContextHandles* ctx, context_handles(a));
      const float one = 1.0f, zero = 0.0f;
      AMP_CUDNN_RETURN_IF_ERROR(cudnnPoolingForward(ctx->cudnn, pool_desc_.get(), &one,
                                                    x_desc_.get(), a.inputs[0], &zero,
                                                    y_desc_.get(), a.outputs[0]));
      return Status::ok();
    }
    if (max_) {
      int64_t* indices = pool_.attrs.with_indices ? static_cast<int64_t*>(a.outputs[1]) : nullptr;
      return launch_max_pool(pool_.dtype, pool_.geom, a.inputs[0], a.outputs[0], indices, st);
    }
    return launch_avg_pool(pool_.dtype, pool_.geom, pool_.attrs.count_include_pad, a.inputs[0],
                           a.outputs[0], st);
  }

 private:
  std::string op() const { return max_ ? "MaxPool" : "AveragePool"; }

  const bool max_;
  PoolSetup pool_;  // the record, dtype and window walk (common/window_op_io.h)
  bool empty_ = false;
  bool use_cudnn_ = false;
  TensorDescriptor x_desc_, y_desc_;
  PoolDescriptor pool_desc_;
};

}  // namespace

void register_pool_kernels(KernelRegistry& registry) {
  add_kernel_family<PoolKernel>(registry, Backend::kCuda, pool_family());
}

}  // namespace amp::kernels::cuda
