// The CUDA executor of the elementwise families (every row of
// kernels/common/elementwise_family.def: unary, binary, comparison): the launches only; prepare(),
// dtypes and attributes are kernels/common/elementwise_kernels.h, the same code the CPU backend
// runs. f16/bf16 compute in fp32 with the device's conversion intrinsics, rounded once on store;
// f64 in f64; integers wrap.
//
// One difference, forced by the device: the CPU reports an integer division or remainder
// by zero as an invalid_input error; a kernel cannot return a Status without synchronizing,
// so here the result is 0 (the functors' defined value) and no error is raised.
#include "kernels/common/elementwise_kernels.h"
#include "kernels/cuda/elementwise_device.h"

namespace amp::kernels::cuda {
namespace {

template <typename T, typename Op>
struct CompareF {
  Op op;
  __device__ __forceinline__ ew::Bool operator()(T a, T b) const {
    return ew::Bool{static_cast<uint8_t>(op(dev_load(a), dev_load(b)) ? 1 : 0)};
  }
};

struct CudaElementwise {
  static constexpr Backend kBackend = Backend::kCuda;
  using Plan = DevicePlan<2>;
  static Result<Plan> plan(const kernels::BroadcastPlan& p) { return device_plan<2>(p); }

  template <typename T, typename Op>
  static Status unary(const Op& op, const T* in, T* out, int64_t n, const KernelArgs& a) {
    return launch_map1(in, out, n, UnaryF<T, Op>{op}, static_cast<cudaStream_t>(a.stream));
  }

  template <typename T, typename Op>
  static Status binary(const Plan& p, const Op& op, const T* x, const T* y, T* out,
                       int64_t /*y_numel*/, const KernelArgs& a) {
    return launch_map2(p, x, y, out, BinaryF<T, Op>{op}, static_cast<cudaStream_t>(a.stream));
  }

  template <typename T, typename Op>
  static Status compare(const Plan& p, const Op& op, const T* x, const T* y, ew::Bool* out,
                        const KernelArgs& a) {
    return launch_map2(p, x, y, out, CompareF<T, Op>{op}, static_cast<cudaStream_t>(a.stream));
  }
};

}  // namespace

void register_elementwise_kernels(KernelRegistry& r) {
  add_elementwise_family<CudaElementwise>(r);
}

}  // namespace amp::kernels::cuda
