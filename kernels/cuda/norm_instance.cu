// InstanceNormalization on the GPU (kernels/cpu/norm_instance.cc): X [N, C, D1..Dk],
// scale [C], B [C] (any float dtype), epsilon (default 1e-5). Each (n, c) plane is one
// contiguous row of norm_rows.h: two-pass fp32 statistics (f64 for f64), then
// y = (x - mean) * inv_std * scale[c] + B[c].
#include "kernels/common/checked_kernel.h"
#include "kernels/common/norm_io.h"
#include "kernels/common/reduction_family.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/norm_rows.h"

namespace amp::kernels::cuda {
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
class InstanceNormKernel : public CheckedKernel<T, ChannelNormShape, check_instance_norm_io> {
  using C = compute_t<T>;

 public:
  Status run(const KernelArgs& a) const override {
    InstanceParams<C> prm;
    prm.scale_ptr = a.inputs[1];
    prm.bias_ptr = a.inputs[2];
    prm.scale_dtype = this->shape_.param_dtype[0];
    prm.bias_dtype = this->shape_.param_dtype[1];
    prm.channels = this->shape_.channels > 0 ? this->shape_.channels : 1;
    return launch_normalize_rows(a.input<T>(0), a.output<T>(0), this->shape_.planes,
                                 this->shape_.spatial, static_cast<C>(this->shape_.epsilon), prm,
                                 StatOutputs{}, stream_of(a));
  }
};

}  // namespace

void register_instance_norm_kernels(KernelRegistry& r) {
  add_typed_kernels<InstanceNormKernel>(r, graph::OpType::kInstanceNormalization, Backend::kCuda,
                                        reduction::FloatTypes{});
}

}  // namespace amp::kernels::cuda
