// InstanceNormalization on the GPU (kernels/cpu/norm_instance.cc): X [N, C, D1..Dk],
// scale [C], B [C] (any float dtype), epsilon (default 1e-5). Each (n, c) plane is one
// contiguous row of norm_rows.h: two-pass fp32 statistics (f64 for f64), then
// y = (x - mean) * inv_std * scale[c] + B[c].
#include "kernels/cuda/norm_rows.h"
#include "kernels/cuda/reduce_kernels.h"

namespace amp::kernels::cuda_reduction {
namespace {

template <typename C>
struct InstanceParams {
  const void* scale_ptr = nullptr;
  const void* bias_ptr = nullptr;
  DType scale_dtype = DType::kF32;
  DType bias_dtype = DType::kF32;
  int64_t channels = 1;
  __device__ __forceinline__ C scale(int64_t row, int64_t) const {
    return load_param<C>(scale_dtype, scale_ptr, row % channels);
  }
  __device__ __forceinline__ C bias(int64_t row, int64_t) const {
    return load_param<C>(bias_dtype, bias_ptr, row % channels);
  }
};

template <typename T>
class InstanceNormKernel : public Kernel {
  using C = compute_t<T>;

 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_RETURN_IF_ERROR(check_io(cfg, dtype_of<T>()));
    const std::vector<int64_t>& dims = cfg.inputs[0].dims;
    if (dims.size() < 2) return invalid_model("InstanceNormalization needs an input [N, C, ...]");
    if (cfg.outputs[0].dims != dims) return invalid_model("output shape differs from input");
    AMP_ASSIGN_OR_RETURN(float eps, cfg.node->attrs.get_float("epsilon", 1e-5f));
    epsilon_ = static_cast<C>(eps);
    channels_ = dims[1];
    planes_ = dims[0] * dims[1];
    spatial_ = dims_product(dims, 2, dims.size());
    for (size_t i = 1; i < 3; ++i) {
      if (cfg.inputs.size() <= i || !cfg.inputs[i].present)
        return invalid_model("input " + std::to_string(i) + " (scale / B) is required");
      const TensorDesc& d = cfg.inputs[i];
      if (!is_float(d.dtype) || d.numel() != channels_)
        return invalid_model("input " + std::to_string(i) + " must be a float tensor of C = " +
                             std::to_string(channels_) + " elements");
      param_dtype_[i - 1] = d.dtype;
    }
    return Status::ok();
  }

  Status run(const KernelArgs& a) const override {
    InstanceParams<C> prm;
    prm.scale_ptr = a.inputs[1];
    prm.bias_ptr = a.inputs[2];
    prm.scale_dtype = param_dtype_[0];
    prm.bias_dtype = param_dtype_[1];
    prm.channels = channels_ > 0 ? channels_ : 1;
    return launch_normalize_rows(a.input<T>(0), a.output<T>(0), planes_, spatial_, epsilon_, prm,
                                 StatOutputs{}, stream_of(a));
  }

 private:
  int64_t channels_ = 1, planes_ = 0, spatial_ = 1;
  C epsilon_ = C(0);
  DType param_dtype_[2] = {DType::kUndefined, DType::kUndefined};
};

}  // namespace

void register_instance_norm_kernels(KernelRegistry& r) {
  add_typed<InstanceNormKernel, float, Half, BFloat16, double>(
      r, graph::OpType::kInstanceNormalization);
}

}  // namespace amp::kernels::cuda_reduction
