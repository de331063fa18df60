// Pow(X, Y) with numpy broadcasting: prepare() is kernels/common/pow_io.h (the exponent's
// type per base kind, a constant scalar exponent converted once, 2 on a float base as x * x);
// a tensor exponent of another dtype is converted into the workspace at run.
#include <cstring>

#include "kernels/common/pow_io.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/elementwise_cpu.h"

namespace amp::kernels::cpu {
namespace {

// Converts n exponent elements of dtype `src` to the kind's type at `dst`.
Status convert_exponent(DType src, const void* in, ExpKind kind, void* dst, int64_t n) {
  return visit_dtype(src, [&](auto tag) -> Status {
    using E = typename decltype(tag)::type;
    if constexpr (ew::kIsFloatStorage<E> || std::is_integral_v<E>) {
      const E* e = static_cast<const E*>(in);
      switch (kind) {
        case ExpKind::kFloat:
          for (int64_t i = 0; i < n; ++i) static_cast<float*>(dst)[i] = ew::cast_value<float>(e[i]);
          return Status::ok();
        case ExpKind::kDouble:
          for (int64_t i = 0; i < n; ++i)
            static_cast<double*>(dst)[i] = ew::cast_value<double>(e[i]);
          return Status::ok();
        case ExpKind::kInt64:
          for (int64_t i = 0; i < n; ++i)
            static_cast<int64_t*>(dst)[i] = ew::cast_value<int64_t>(e[i]);
          return Status::ok();
      }
      return unexpected_dtype(src);
    } else {
      return unexpected_dtype(src);
    }
  });
}

class PowKernel final : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_ASSIGN_OR_RETURN(s_, check_pow_io(cfg));
    return Status::ok();
  }

  size_t workspace_bytes() const override { return s_.workspace_bytes(); }

  Status run(const KernelArgs& a) const override {
    if (s_.scalar) return run_scalar(a);
    const void* e = a.inputs[1];
    if (s_.convert) {
      AMP_RETURN_IF_ERROR(
          convert_exponent(s_.exp, a.inputs[1], s_.kind, a.workspace, s_.exp_numel));
      e = a.workspace;
    }
    return visit_dtype(s_.base, [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      if constexpr (ew::kIsFloatStorage<T>) {
        using C = ew::compute_t<T>;  // float or double, as the kind says
        binary_loop(s_.plan, a.input<T>(0), static_cast<const C*>(e), a.output<T>(0), a.num_threads,
                    [](T x, C y) { return ew::store<T>(ew::Pow{}(ew::load(x), y)); });
        return Status::ok();
      } else if constexpr (std::is_integral_v<T>) {
        if (s_.kind == ExpKind::kInt64)
          binary_loop(s_.plan, a.input<T>(0), static_cast<const int64_t*>(e), a.output<T>(0),
                      a.num_threads, [](T x, int64_t y) { return ew::Pow{}(x, y); });
        else
          binary_loop(s_.plan, a.input<T>(0), static_cast<const double*>(e), a.output<T>(0),
                      a.num_threads, [](T x, double y) { return ew::Pow{}(x, y); });
        return Status::ok();
      } else {
        return unexpected_dtype(s_.base);
      }
    });
  }

 private:
  // A constant scalar exponent, passed by value: the output is the base's elements in order.
  Status run_scalar(const KernelArgs& a) const {
    const int64_t n = s_.plan.numel;
    return visit_dtype(s_.base, [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      if constexpr (ew::kIsFloatStorage<T>) {
        using C = ew::compute_t<T>;
        if (s_.square) {
          unary_loop(a.input<T>(0), a.output<T>(0), n, a.num_threads, [](T x) {
            const C v = ew::load(x);
            return ew::store<T>(v * v);
          });
          return Status::ok();
        }
        const C e = s_.scalar_as<C>();
        unary_loop(a.input<T>(0), a.output<T>(0), n, a.num_threads,
                   [e](T x) { return ew::store<T>(ew::Pow{}(ew::load(x), e)); });
        return Status::ok();
      } else if constexpr (std::is_integral_v<T>) {
        if (s_.kind == ExpKind::kInt64) {
          const int64_t e = s_.scalar_as<int64_t>();
          unary_loop(a.input<T>(0), a.output<T>(0), n, a.num_threads,
                     [e](T x) { return ew::Pow{}(x, e); });
        } else {
          const double e = s_.scalar_as<double>();
          unary_loop(a.input<T>(0), a.output<T>(0), n, a.num_threads,
                     [e](T x) { return ew::Pow{}(x, e); });
        }
        return Status::ok();
      } else {
        return unexpected_dtype(s_.base);
      }
    });
  }

  PowSetup s_;
};

}  // namespace

void register_pow_kernels(KernelRegistry& r) {
  r.add_all(graph::OpType::kPow, Backend::kCpu, pow_base_dtypes(), make_factory<PowKernel>(), 0);
}

}  // namespace amp::kernels::cpu
