// CUDA Pow(X, Y) with numpy broadcasting: prepare() is kernels/common/pow_io.h, as on the CPU
// (kernels/cpu/elementwise_pow.cc): the exponent's type per base kind, a constant scalar
// exponent converted once and passed by value (2 on a float base as x * x), a tensor exponent
// of another dtype converted into the workspace at run. fp32 arithmetic for f16/bf16, f64 in
// f64, integers wrap. Output 0 may overwrite input 0 when their shapes match.
#include <cstring>
#include <type_traits>

#include "kernels/common/pow_io.h"
#include "kernels/cuda/elementwise_device.h"

namespace amp::kernels::cuda {
namespace {

using graph::OpType;

// Base T, exponent already in its kind type K.
template <typename T, typename K>
struct PowF {
  __device__ __forceinline__ T operator()(T x, K e) const {
    if constexpr (ew::kIsFloatStorage<T>)
      return dev_store<T>(ew::Pow{}(dev_load(x), e));
    else
      return ew::Pow{}(x, e);
  }
};

template <typename T, typename K>
struct PowScalarF {
  K e;
  __device__ __forceinline__ T operator()(T x) const { return PowF<T, K>{}(x, e); }
};

template <typename T>
struct SquareF {
  __device__ __forceinline__ T operator()(T x) const {
    const ew::compute_t<T> v = dev_load(x);
    return dev_store<T>(v * v);
  }
};

template <typename S, typename D>
struct ConvertF {
  __device__ __forceinline__ D operator()(S s) const { return dev_cast<D>(s); }
};

// The kind type of each base storage type.
template <typename T>
using float_kind_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

class PowKernel final : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_ASSIGN_OR_RETURN(s_, check_pow_io(cfg));
    AMP_ASSIGN_OR_RETURN(plan_, device_plan<2>(s_.plan));
    return Status::ok();
  }

  size_t workspace_bytes() const override { return s_.workspace_bytes(); }

  Status run(const KernelArgs& a) const override {
    const cudaStream_t stream = static_cast<cudaStream_t>(a.stream);
    if (s_.scalar) return run_scalar(a, stream);
    const void* e = a.inputs[1];
    if (s_.convert) {
      AMP_RETURN_IF_ERROR(convert_exponent(a.inputs[1], a.workspace, stream));
      e = a.workspace;
    }
    return visit_dtype(s_.base, [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      if constexpr (ew::kIsFloatStorage<T>) {
        using K = float_kind_t<T>;
        return launch_map2(plan_, a.input<T>(0), static_cast<const K*>(e), a.output<T>(0),
                           PowF<T, K>{}, stream);
      } else if constexpr (std::is_integral_v<T>) {
        if (s_.kind == ExpKind::kInt64)
          return launch_map2(plan_, a.input<T>(0), static_cast<const int64_t*>(e), a.output<T>(0),
                             PowF<T, int64_t>{}, stream);
        return launch_map2(plan_, a.input<T>(0), static_cast<const double*>(e), a.output<T>(0),
                           PowF<T, double>{}, stream);
      } else {
        return unexpected_dtype(s_.base);
      }
    });
  }

 private:
  Status run_scalar(const KernelArgs& a, cudaStream_t stream) const {
    const int64_t n = s_.plan.numel;
    return visit_dtype(s_.base, [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      if constexpr (ew::kIsFloatStorage<T>) {
        using K = float_kind_t<T>;
        if (s_.square) return launch_map1(a.input<T>(0), a.output<T>(0), n, SquareF<T>{}, stream);
        const K e = s_.scalar_as<K>();
        return launch_map1(a.input<T>(0), a.output<T>(0), n, PowScalarF<T, K>{e}, stream);
      } else if constexpr (std::is_integral_v<T>) {
        if (s_.kind == ExpKind::kInt64) {
          const int64_t e = s_.scalar_as<int64_t>();
          return launch_map1(a.input<T>(0), a.output<T>(0), n, PowScalarF<T, int64_t>{e}, stream);
        }
        const double e = s_.scalar_as<double>();
        return launch_map1(a.input<T>(0), a.output<T>(0), n, PowScalarF<T, double>{e}, stream);
      } else {
        return unexpected_dtype(s_.base);
      }
    });
  }

  // The exponent tensor converted to the kind type, into `dst` (s_.exp_numel * 8 bytes).
  Status convert_exponent(const void* src, void* dst, cudaStream_t stream) const {
    return visit_dtype(s_.exp, [&](auto tag) -> Status {
      using E = typename decltype(tag)::type;
      if constexpr (ew::kIsFloatStorage<E> || std::is_integral_v<E>) {
        const E* in = static_cast<const E*>(src);
        switch (s_.kind) {
          case ExpKind::kFloat:
            return launch_map1(in, static_cast<float*>(dst), s_.exp_numel, ConvertF<E, float>{},
                               stream);
          case ExpKind::kDouble:
            return launch_map1(in, static_cast<double*>(dst), s_.exp_numel, ConvertF<E, double>{},
                               stream);
          case ExpKind::kInt64:
            return launch_map1(in, static_cast<int64_t*>(dst), s_.exp_numel, ConvertF<E, int64_t>{},
                               stream);
        }
        return unexpected_dtype(s_.exp);
      } else {
        return unexpected_dtype(s_.exp);
      }
    });
  }

  PowSetup s_;
  DevicePlan<2> plan_;
};

}  // namespace

void register_pow_kernels(KernelRegistry& r) {
  r.add_all(OpType::kPow, Backend::kCuda, pow_base_dtypes(), make_factory<PowKernel>(), 0);
}

}  // namespace amp::kernels::cuda
