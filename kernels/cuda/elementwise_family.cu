// The CUDA executor of the elementwise kernels (every row of
// kernels/common/elementwise_family.def, Where, Cast and Clip): the launches only; prepare(),
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

template <typename T, typename Op>
struct PredicateF {
  Op op;
  __device__ __forceinline__ ew::Bool operator()(T x) const {
    return ew::Bool{static_cast<uint8_t>(op(dev_load(x)) ? 1 : 0)};
  }
};

template <typename U>
struct WhereF {
  __device__ __forceinline__ U operator()(ew::Bool c, U x, U y) const { return c.v != 0 ? x : y; }
};

// float <-> f16/bf16 by the hardware's RNE conversions: the CPU's values (dev_cast).
template <typename S, typename D>
struct CastF {
  __device__ __forceinline__ D operator()(S s) const { return dev_cast<D>(s); }
};

// A run-time bound is one load per element from the same address: an L1 hit, negligible next
// to the streamed input.
template <typename T>
struct ClipF {
  using C = typename ClipRange<T>::C;
  C lo, hi;
  const T* lo_ptr;
  const T* hi_ptr;
  __device__ __forceinline__ T operator()(T x) const {
    const C l = lo_ptr ? dev_load(*lo_ptr) : lo;
    const C h = hi_ptr ? dev_load(*hi_ptr) : hi;
    return dev_store<T>(ew::Clip<C>{l, h}(dev_load(x)));
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
  static Status predicate(const Op& op, const T* in, ew::Bool* out, int64_t n,
                          const KernelArgs& a) {
    return launch_map1(in, out, n, PredicateF<T, Op>{op}, static_cast<cudaStream_t>(a.stream));
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

  using Plan3 = DevicePlan<3>;
  static Result<Plan3> plan3(const kernels::BroadcastPlan& p) { return device_plan<3>(p); }

  template <typename U>
  static Status select(const Plan3& p, const ew::Bool* c, const U* x, const U* y, U* out,
                       const KernelArgs& a) {
    return launch_map3(p, c, x, y, out, WhereF<U>{}, static_cast<cudaStream_t>(a.stream));
  }

  template <typename S, typename D>
  static Status cast(const S* in, D* out, int64_t n, const KernelArgs& a) {
    return launch_map1(in, out, n, CastF<S, D>{}, static_cast<cudaStream_t>(a.stream));
  }

  static Status copy(const void* in, void* out, size_t bytes, const KernelArgs& a) {
    AMP_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice,
                                             static_cast<cudaStream_t>(a.stream)));
    return Status::ok();
  }

  template <typename T>
  static Status clip(const ClipRange<T>& r, const T* in, T* out, int64_t n, const KernelArgs& a) {
    return launch_map1(in, out, n, ClipF<T>{r.lo, r.hi, r.lo_ptr, r.hi_ptr},
                       static_cast<cudaStream_t>(a.stream));
  }
};

}  // namespace

void register_elementwise_kernels(KernelRegistry& r) {
  add_elementwise_family<CudaElementwise>(r);
}

}  // namespace amp::kernels::cuda
