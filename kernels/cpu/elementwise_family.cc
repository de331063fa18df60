// The CPU executor of the elementwise families (every row of
// kernels/common/elementwise_family.def: unary, binary, comparison): the loops only; prepare(),
// dtypes and attributes are kernels/common/elementwise_kernels.h. Float storage computes in fp32
// (f64 in f64) and rounds once on store; integers wrap; an integer division or remainder by zero is
// an invalid_input error at run.
#include <type_traits>

#include "kernels/common/elementwise_kernels.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/elementwise_cpu.h"

namespace amp::kernels::cpu {
namespace {

struct CpuElementwise {
  static constexpr Backend kBackend = Backend::kCpu;
  using Plan = BroadcastPlan;
  static Result<Plan> plan(const BroadcastPlan& p) { return p; }

  template <typename T, typename Op>
  static Status unary(const Op& op, const T* in, T* out, int64_t n, const KernelArgs& a) {
    const Op o = op;  // a local copy keeps the parameters in registers
    unary_loop(in, out, n, a.num_threads, [o](T x) { return ew::store<T>(o(ew::load(x))); });
    return Status::ok();
  }

  template <typename T, typename Op>
  static Status binary(const Plan& p, const Op& op, const T* x, const T* y, T* out, int64_t y_numel,
                       const KernelArgs& a) {
    if constexpr (std::is_integral_v<T> && kDividesByInput1<Op>) {
      // Checked up front so the loop stays branch-free; the functor returns 0 meanwhile.
      if (p.numel > 0)
        for (int64_t i = 0; i < y_numel; ++i)
          if (y[i] == 0) return invalid_input("integer division by zero");
    }
    const Op o = op;
    binary_loop(p, x, y, out, a.num_threads,
                [o](T u, T v) { return ew::store<T>(o(ew::load(u), ew::load(v))); });
    return Status::ok();
  }

  template <typename T, typename Op>
  static Status compare(const Plan& p, const Op& op, const T* x, const T* y, ew::Bool* out,
                        const KernelArgs& a) {
    const Op o = op;
    binary_loop(p, x, y, out, a.num_threads, [o](T u, T v) {
      return ew::Bool{static_cast<uint8_t>(o(ew::load(u), ew::load(v)) ? 1 : 0)};
    });
    return Status::ok();
  }
};

}  // namespace

void register_elementwise_kernels(KernelRegistry& r) {
  kernels::add_elementwise_family<CpuElementwise>(r);
}

}  // namespace amp::kernels::cpu
