// The elementwise kernels, written once for every backend: UnaryKernel and BroadcastKernel
// (binary arithmetic and comparisons) do prepare() (arity, dtypes, shapes, the broadcast plan, the
// functor's attributes) and the dtype dispatch; run() hands typed pointers to the backend's
// executor, which owns only the loops:
//
//   struct Exec {
//     static constexpr Backend kBackend = Backend::kCpu;
//     using Plan = ...;                                   // what a broadcast loop runs from
//     static Result<Plan> plan(const BroadcastPlan& p);   // from the common plan
//     template <typename T, typename Op>                  // out[i] = op(in[i]), storage T
//     static Status unary(const Op& op, const T* in, T* out, int64_t n, const KernelArgs& a);
//     template <typename T, typename Op>                  // out = op(x, y) broadcast
//     static Status binary(const Plan& p, const Op& op, const T* x, const T* y, T* out,
//                          int64_t y_numel, const KernelArgs& a);
//     template <typename T, typename Op>                  // out = op(x, y) as bool
//     static Status compare(const Plan& p, const Op& op, const T* x, const T* y,
//                           ew::Bool* out, const KernelArgs& a);
//   };
//   add_elementwise_family<Exec>(registry);  // every row of elementwise_family.def
//
// Storage is converted to the compute type and back by the executor (fp32 arithmetic for
// f16/bf16, rounded once on store), so a backend may use its own conversions (the CUDA
// intrinsics) without changing a result.
#pragma once

#include <string>
#include <type_traits>
#include <vector>

#include "kernels/common/broadcast_plan.h"
#include "kernels/common/dtype_dispatch.h"
#include "kernels/common/elementwise_functors.h"
#include "kernels/common/kernel_params.h"
#include "kernels/kernel_registry.h"

namespace amp::kernels {

// ---- Attributes into functors (most functors have none) ------------------------------------

template <typename Op>
Status configure(Op&, const graph::Attributes&) {
  return Status::ok();
}
template <>
inline Status configure(ew::LeakyRelu& op, const graph::Attributes& attrs) {
  AMP_ASSIGN_OR_RETURN(op.alpha, attrs.get_float("alpha", 0.01f));
  return Status::ok();
}
template <>
inline Status configure(ew::HardSigmoid& op, const graph::Attributes& attrs) {
  AMP_ASSIGN_OR_RETURN(op.alpha, attrs.get_float("alpha", 0.2f));
  AMP_ASSIGN_OR_RETURN(op.beta, attrs.get_float("beta", 0.5f));
  return Status::ok();
}
template <>
inline Status configure(ew::Gelu& op, const graph::Attributes& attrs) {
  // (A plain Result rather than AMP_ASSIGN_OR_RETURN: GCC 12 warns spuriously about a
  // moved-from std::string there.)
  const Result<std::string> approx = attrs.get_string("approximate", "none");
  if (!approx.is_ok()) return approx.status();
  if (*approx != "none" && *approx != "tanh")
    return invalid_model("attribute 'approximate' is '" + *approx + "', expected none or tanh");
  op.tanh = *approx == "tanh";
  return Status::ok();
}
template <>
inline Status configure(ew::Mod& op, const graph::Attributes& attrs) {
  AMP_ASSIGN_OR_RETURN(int64_t fmod, attrs.get_int("fmod", 0));
  if (fmod != 0 && fmod != 1) return invalid_model("attribute 'fmod' must be 0 or 1");
  op.fmod = fmod == 1;
  return Status::ok();
}

// Ops whose integer form divides by input 1: a zero there is the caller's error, reported
// by backends that can see the divisor before running (the CPU).
template <typename Op>
inline constexpr bool kDividesByInput1 = std::is_same_v<Op, ew::Div> || std::is_same_v<Op, ew::Mod>;

// ---- Kernels ---------------------------------------------------------------------------------

template <typename Exec, typename Op, DTypeGroup kGroup>
class UnaryKernel final : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_RETURN_IF_ERROR(check_arity(cfg, 1, 1));
    AMP_RETURN_IF_ERROR(check_output_dtype(cfg, cfg.inputs[0].dtype));
    AMP_RETURN_IF_ERROR(check_same_shape(cfg));
    dtype_ = cfg.inputs[0].dtype;
    n_ = cfg.outputs[0].numel();
    return configure(op_, node_attrs(cfg));
  }
  Status run(const KernelArgs& a) const override {
    return visit_dtype(dtype_, [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      if constexpr (in_group<T>(kGroup)) {
        return Exec::unary(op_, a.input<T>(0), a.output<T>(0), n_, a);
      } else {
        return unexpected_dtype(dtype_);
      }
    });
  }

 private:
  Op op_{};
  DType dtype_ = DType::kUndefined;
  int64_t n_ = 0;
};

// Binary arithmetic (out dtype = the inputs') and comparisons (kBoolOutput: out is bool).
template <typename Exec, typename Op, DTypeGroup kGroup, bool kBoolOutput>
class BroadcastKernel final : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_RETURN_IF_ERROR(check_arity(cfg, 2, 2));
    dtype_ = cfg.inputs[0].dtype;
    AMP_RETURN_IF_ERROR(check_input_dtype(cfg, 1, dtype_));
    AMP_RETURN_IF_ERROR(check_output_dtype(cfg, kBoolOutput ? DType::kBool : dtype_));
    AMP_ASSIGN_OR_RETURN(
        BroadcastPlan p,
        make_broadcast_plan({cfg.inputs[0].dims, cfg.inputs[1].dims}, cfg.outputs[0].dims));
    AMP_ASSIGN_OR_RETURN(plan_, Exec::plan(p));
    y_numel_ = cfg.inputs[1].numel();
    return configure(op_, node_attrs(cfg));
  }
  Status run(const KernelArgs& a) const override {
    return visit_dtype(dtype_, [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      if constexpr (!in_group<T>(kGroup)) {
        return unexpected_dtype(dtype_);
      } else if constexpr (kBoolOutput) {
        return Exec::compare(plan_, op_, a.input<T>(0), a.input<T>(1), a.output<ew::Bool>(0), a);
      } else {
        return Exec::binary(plan_, op_, a.input<T>(0), a.input<T>(1), a.output<T>(0), y_numel_, a);
      }
    });
  }

 private:
  Op op_{};
  DType dtype_ = DType::kUndefined;
  typename Exec::Plan plan_{};
  int64_t y_numel_ = 0;
};

// Registers every row of elementwise_family.def with executor Exec.
template <typename Exec>
void add_elementwise_family(KernelRegistry& r) {
  using graph::OpType;
#define AMP_EW_UNARY(op, functor, dtypes)                                 \
  r.add_all(OpType::k##op, Exec::kBackend, dtypes_of(DTypeGroup::dtypes), \
            make_factory<UnaryKernel<Exec, functor, DTypeGroup::dtypes>>(), 0);
#define AMP_EW_BINARY(op, functor, dtypes)                                \
  r.add_all(OpType::k##op, Exec::kBackend, dtypes_of(DTypeGroup::dtypes), \
            make_factory<BroadcastKernel<Exec, functor, DTypeGroup::dtypes, false>>(), 0);
#define AMP_EW_COMPARE(op, functor, dtypes)                               \
  r.add_all(OpType::k##op, Exec::kBackend, dtypes_of(DTypeGroup::dtypes), \
            make_factory<BroadcastKernel<Exec, functor, DTypeGroup::dtypes, true>>());
#include "kernels/common/elementwise_family.def"
#undef AMP_EW_UNARY
#undef AMP_EW_BINARY
#undef AMP_EW_COMPARE
}

}  // namespace amp::kernels
