// The CPU executor of the elementwise kernels (every row of
// kernels/common/elementwise_family.def, Where, Cast and Clip): the loops only; prepare(),
// dtypes and attributes are kernels/common/elementwise_kernels.h. Float storage computes in fp32
// (f64 in f64) and rounds once on store; integers wrap; an integer division or remainder by zero is
// an invalid_input error at run.
#include <cstring>
#include <type_traits>

#include "kernels/common/elementwise_kernels.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/elementwise_cpu.h"
#include "kernels/cpu/vector_exp.h"

namespace amp::kernels::cpu {
namespace {

// Bool -> float or double: 0 or 1. Its own loop with unaliased pointers (a cast's input and
// output differ in size, so they never overlap): through unary_row, which allows in == out,
// the AVX2 clone stayed a scalar loop (a one-hot's 2 x 2048 x 257 mask in Magika: 0.64 ms).
template <typename D>
AMP_ISA_CLONES void bool_to_float(const uint8_t* __restrict__ in, D* __restrict__ out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = in[i] != 0 ? D(1) : D(0);
}

struct CpuElementwise {
  static constexpr Backend kBackend = Backend::kCpu;
  using Plan = BroadcastPlan;
  static Result<Plan> plan(const BroadcastPlan& p) { return p; }

  template <typename T, typename Op>
  static Status unary(const Op& op, const T* in, T* out, int64_t n, const KernelArgs& a) {
    // f32 exp, Sigmoid, Tanh and GELU vectorized (kernels/cpu/vector_exp.h): std::exp is a scalar
    // call.
    if constexpr (std::is_same_v<T, float> && std::is_same_v<Op, ew::Exp>) {
      parallel_for(n, a.num_threads,
                   [&](int64_t b, int64_t e) { exp_f32(in + b, out + b, e - b); });
      return Status::ok();
    } else if constexpr (std::is_same_v<T, float> && std::is_same_v<Op, ew::Sigmoid>) {
      parallel_for(n, a.num_threads,
                   [&](int64_t b, int64_t e) { sigmoid_f32(in + b, out + b, e - b); });
      return Status::ok();
    } else if constexpr (std::is_same_v<T, float> && std::is_same_v<Op, ew::Tanh>) {
      parallel_for(n, a.num_threads,
                   [&](int64_t b, int64_t e) { tanh_f32(in + b, out + b, e - b); });
      return Status::ok();
    } else if constexpr (std::is_same_v<T, float> && std::is_same_v<Op, ew::Gelu>) {
      // A GELU not fused into its product (after a MatMul by a run-time B, say): std::erfc
      // is a scalar call too.
      parallel_for(n, a.num_threads, [&](int64_t b, int64_t e) {
        (op.tanh ? gelu_tanh_f32 : gelu_erf_f32)(in + b, out + b, e - b);
      });
      return Status::ok();
    }
    const Op o = op;  // a local copy keeps the parameters in registers
    unary_loop(in, out, n, a.num_threads, [o](T x) { return ew::store<T>(o(ew::load(x))); });
    return Status::ok();
  }

  template <typename T, typename Op>
  static Status predicate(const Op& op, const T* in, ew::Bool* out, int64_t n,
                          const KernelArgs& a) {
    const Op o = op;
    unary_loop(in, out, n, a.num_threads,
               [o](T x) { return ew::Bool{static_cast<uint8_t>(o(ew::load(x)) ? 1 : 0)}; });
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

  using Plan3 = BroadcastPlan;
  static Result<Plan3> plan3(const BroadcastPlan& p) { return p; }

  template <typename U>
  static Status select(const Plan3& p, const ew::Bool* cond, const U* x, const U* y, U* out,
                       const KernelArgs& a) {
    const uint8_t* c = reinterpret_cast<const uint8_t*>(cond);
    const int64_t sc = p.inner_stride(0), sx = p.inner_stride(1), sy = p.inner_stride(2);
    parallel_for(p.numel, a.num_threads, [&](int64_t begin, int64_t end) {
      for_each_row(p, begin, end, [&](int64_t o, int64_t n, const int64_t* off) {
        const uint8_t* cr = c + off[0];
        const U* xr = x + off[1];
        const U* yr = y + off[2];
        U* orow = out + o;
        if (sc == 1 && sx == 1 && sy == 1) {
          for (int64_t i = 0; i < n; ++i) orow[i] = cr[i] != 0 ? xr[i] : yr[i];
        } else {
          for (int64_t i = 0; i < n; ++i) orow[i] = cr[i * sc] != 0 ? xr[i * sx] : yr[i * sy];
        }
      });
    });
    return Status::ok();
  }

  template <typename S, typename D>
  static Status cast(const S* in, D* out, int64_t n, const KernelArgs& a) {
    if constexpr (std::is_same_v<S, ew::Bool> &&
                  (std::is_same_v<D, float> || std::is_same_v<D, double>)) {
      const uint8_t* bytes = reinterpret_cast<const uint8_t*>(in);
      parallel_for(n, a.num_threads, [&](int64_t begin, int64_t end) {
        bool_to_float(bytes + begin, out + begin, end - begin);
      });
    } else if constexpr (kBulkCast<S, D>) {
      // The casts AMP inserts (f32 <-> f16/bf16): vectorized F16C / AVX-512 conversions.
      parallel_for(n, a.num_threads, [&](int64_t begin, int64_t end) {
        bulk_cast(in + begin, out + begin, static_cast<size_t>(end - begin));
      });
    } else {
      unary_loop(in, out, n, a.num_threads, [](S s) { return ew::cast_value<D>(s); });
    }
    return Status::ok();
  }

  static Status copy(const void* in, void* out, size_t bytes, const KernelArgs&) {
    std::memcpy(out, in, bytes);
    return Status::ok();
  }

  template <typename T>
  static Status clip(const ClipRange<T>& r, const T* in, T* out, int64_t n, const KernelArgs& a) {
    using C = typename ClipRange<T>::C;
    const C lo = r.lo_ptr ? ew::load(read_scalar<T>(r.lo_ptr)) : r.lo;
    const C hi = r.hi_ptr ? ew::load(read_scalar<T>(r.hi_ptr)) : r.hi;
    const ew::Clip<C> clip{lo, hi};
    unary_loop(in, out, n, a.num_threads, [clip](T x) { return ew::store<T>(clip(ew::load(x))); });
    return Status::ok();
  }
};

}  // namespace

void register_elementwise_kernels(KernelRegistry& r) {
  kernels::add_elementwise_family<CpuElementwise>(r);
}

}  // namespace amp::kernels::cpu
