// The elementwise kernels, written once for every backend: UnaryKernel and BroadcastKernel
// (binary arithmetic and comparisons), VariadicKernel (Max, Min), WhereKernel, CastKernel and
// ClipKernel do prepare() (arity, dtypes, shapes, the broadcast plan, the functor's attributes)
// and the dtype dispatch; run() hands typed pointers to the backend's executor, which owns only
// the loops:
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
//     using Plan3 = ...;                                  // Where's three-way plan
//     static Result<Plan3> plan3(const BroadcastPlan& p);
//     template <typename U>                               // out = c ? x : y, U: 1-8 bytes
//     static Status select(const Plan3& p, const ew::Bool* c, const U* x, const U* y,
//                          U* out, const KernelArgs& a);
//     template <typename S, typename D>                   // out[i] = cast_value<D>(in[i])
//     static Status cast(const S* in, D* out, int64_t n, const KernelArgs& a);
//     static Status copy(const void* in, void* out, size_t bytes, const KernelArgs& a);
//     template <typename T>                               // out[i] = clamp(in[i]) to r
//     static Status clip(const ClipRange<T>& r, const T* in, T* out, int64_t n,
//                        const KernelArgs& a);
//   };
//   add_elementwise_family<Exec>(registry);  // every row of elementwise_family.def
//
// Storage is converted to the compute type and back by the executor (fp32 arithmetic for
// f16/bf16, rounded once on store), so a backend may use its own conversions (the CUDA
// intrinsics) without changing a result.
#pragma once

#include <algorithm>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/common/broadcast_plan.h"
#include "kernels/common/clip_bounds.h"
#include "kernels/common/dtype_dispatch.h"
#include "kernels/common/elementwise_functors.h"
#include "kernels/common/kernel_checks.h"
#include "kernels/kernel_registry.h"

namespace amp::kernels {

// ---- The node's record into functors (most functors have none) ----------------------------

template <typename Op>
Status configure(Op&, const KernelConfig&) {
  return Status::ok();
}
template <>
inline Status configure(ew::LeakyRelu& op, const KernelConfig& cfg) {
  AMP_ASSIGN_OR_RETURN(const graph::FunctorAttrs* rec, resolved_attrs<graph::FunctorAttrs>(cfg));
  op.alpha = rec->alpha;
  return Status::ok();
}
template <>
inline Status configure(ew::HardSigmoid& op, const KernelConfig& cfg) {
  AMP_ASSIGN_OR_RETURN(const graph::FunctorAttrs* rec, resolved_attrs<graph::FunctorAttrs>(cfg));
  op.alpha = rec->alpha;
  op.beta = rec->beta;
  return Status::ok();
}
template <>
inline Status configure(ew::Gelu& op, const KernelConfig& cfg) {
  AMP_ASSIGN_OR_RETURN(const graph::FunctorAttrs* rec, resolved_attrs<graph::FunctorAttrs>(cfg));
  op.tanh = rec->gelu_tanh;
  return Status::ok();
}
template <>
inline Status configure(ew::Elu& op, const KernelConfig& cfg) {
  AMP_ASSIGN_OR_RETURN(const graph::FunctorAttrs* rec, resolved_attrs<graph::FunctorAttrs>(cfg));
  op.alpha = rec->alpha;
  return Status::ok();
}
template <>
inline Status configure(ew::Celu& op, const KernelConfig& cfg) {
  AMP_ASSIGN_OR_RETURN(const graph::FunctorAttrs* rec, resolved_attrs<graph::FunctorAttrs>(cfg));
  op.alpha = rec->alpha;
  return Status::ok();
}
template <>
inline Status configure(ew::ThresholdedRelu& op, const KernelConfig& cfg) {
  AMP_ASSIGN_OR_RETURN(const graph::FunctorAttrs* rec, resolved_attrs<graph::FunctorAttrs>(cfg));
  op.alpha = rec->alpha;
  return Status::ok();
}
template <>
inline Status configure(ew::Selu& op, const KernelConfig& cfg) {
  AMP_ASSIGN_OR_RETURN(const graph::FunctorAttrs* rec, resolved_attrs<graph::FunctorAttrs>(cfg));
  op.alpha = rec->alpha;
  op.gamma = rec->beta;
  return Status::ok();
}
template <>
inline Status configure(ew::Shrink& op, const KernelConfig& cfg) {
  AMP_ASSIGN_OR_RETURN(const graph::FunctorAttrs* rec, resolved_attrs<graph::FunctorAttrs>(cfg));
  op.lambd = rec->alpha;
  op.bias = rec->beta;
  return Status::ok();
}
template <>
inline Status configure(ew::IsInf& op, const KernelConfig& cfg) {
  AMP_ASSIGN_OR_RETURN(const graph::FunctorAttrs* rec, resolved_attrs<graph::FunctorAttrs>(cfg));
  op.detect_negative = rec->detect_negative;
  op.detect_positive = rec->detect_positive;
  return Status::ok();
}
template <>
inline Status configure(ew::Mod& op, const KernelConfig& cfg) {
  AMP_ASSIGN_OR_RETURN(const graph::FunctorAttrs* rec, resolved_attrs<graph::FunctorAttrs>(cfg));
  op.fmod = rec->fmod;
  return Status::ok();
}

// Ops whose integer form divides by input 1: a zero there is the caller's error, reported
// by backends that can see the divisor before running (the CPU).
template <typename Op>
inline constexpr bool kDividesByInput1 = std::is_same_v<Op, ew::Div> || std::is_same_v<Op, ew::Mod>;

// ---- Kernels ---------------------------------------------------------------------------------

// Unary math (out dtype = the input's) and predicates (kBoolOutput: IsNaN, IsInf).
template <typename Exec, typename Op, DTypeGroup kGroup, bool kBoolOutput = false>
class UnaryKernel final : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_RETURN_IF_ERROR(check_arity(cfg, 1, 1));
    AMP_RETURN_IF_ERROR(check_output_dtype(cfg, kBoolOutput ? DType::kBool : cfg.inputs[0].dtype));
    AMP_RETURN_IF_ERROR(check_same_shape(cfg));
    dtype_ = cfg.inputs[0].dtype;
    n_ = cfg.outputs[0].numel();
    return configure(op_, cfg);
  }
  Status run(const KernelArgs& a) const override {
    return visit_dtype(dtype_, [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      if constexpr (!in_group<T>(kGroup)) {
        return unexpected_dtype(dtype_);
      } else if constexpr (kBoolOutput) {
        return Exec::predicate(op_, a.input<T>(0), a.output<ew::Bool>(0), n_, a);
      } else {
        return Exec::unary(op_, a.input<T>(0), a.output<T>(0), n_, a);
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
    return configure(op_, cfg);
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

// ---- Max, Min, Sum and Mean over 1..N inputs
// -----------------------------------------------------

// Folded pairwise into the output: out = Op(in0, in1), then out = Op(out, in_k), each step one
// Exec::binary; kAverage then scales by 1/N (Mean). Max and Min are exact in any storage type
// (the result is always one of the inputs); Sum and Mean round each partial sum to the storage
// type, as N - 1 chained Adds would.
template <typename Exec, typename Op, DTypeGroup kGroup, bool kAverage = false>
class VariadicKernel final : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    if (cfg.inputs.empty()) return invalid_model("takes at least 1 input, has 0");
    const size_t n = cfg.inputs.size();
    AMP_RETURN_IF_ERROR(check_arity(cfg, n, n));
    dtype_ = cfg.inputs[0].dtype;
    const std::vector<DType> supported = dtypes_of(kGroup);
    if (std::find(supported.begin(), supported.end(), dtype_) == supported.end())
      return unsupported("dtype " + std::string(dtype_name(dtype_)) + " is not supported");
    for (size_t i = 1; i < n; ++i) AMP_RETURN_IF_ERROR(check_input_dtype(cfg, i, dtype_));
    AMP_RETURN_IF_ERROR(check_output_dtype(cfg, dtype_));
    std::vector<std::vector<int64_t>> all;
    for (const TensorDesc& d : cfg.inputs) all.push_back(d.dims);
    AMP_ASSIGN_OR_RETURN(std::vector<int64_t> out_dims, broadcast_dims(all));
    if (out_dims != cfg.outputs[0].dims)
      return invalid_model("output shape is not the broadcast of the inputs");
    steps_.clear();
    inputs_ = n;
    out_numel_ = cfg.outputs[0].numel();
    // Step 0 pairs input 0 with input 1 (with itself when alone, a step run() skips: a lone
    // input is copied).
    const size_t second = n > 1 ? 1 : 0;
    AMP_ASSIGN_OR_RETURN(BroadcastPlan first,
                         make_broadcast_plan_to({all[0], all[second]}, out_dims));
    AMP_RETURN_IF_ERROR(add_step(first, second, cfg));
    for (size_t i = 2; i < n; ++i) {
      AMP_ASSIGN_OR_RETURN(BroadcastPlan p, make_broadcast_plan({out_dims, all[i]}, out_dims));
      AMP_RETURN_IF_ERROR(add_step(p, i, cfg));
    }
    return Status::ok();
  }

  Status run(const KernelArgs& a) const override {
    return visit_dtype(dtype_, [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      if constexpr (in_group<T>(kGroup)) {
        T* out = a.output<T>(0);
        if (inputs_ == 1) {
          if (a.inputs[0] == a.outputs[0] || out_numel_ == 0) return Status::ok();
          return Exec::copy(a.inputs[0], out, static_cast<size_t>(out_numel_) * sizeof(T), a);
        }
        for (size_t s = 0; s < steps_.size(); ++s) {
          const T* x = s == 0 ? a.input<T>(0) : out;
          AMP_RETURN_IF_ERROR(Exec::binary(steps_[s].plan, Op{}, x, a.input<T>(steps_[s].input),
                                           out, steps_[s].numel, a));
        }
        if constexpr (kAverage)
          return Exec::unary(ew::Scale{1.0 / static_cast<double>(inputs_)}, out, out, out_numel_,
                             a);
        return Status::ok();
      } else {
        return unexpected_dtype(dtype_);
      }
    });
  }

 private:
  struct Step {
    typename Exec::Plan plan{};
    size_t input = 0;   // the step's second operand
    int64_t numel = 0;  // its element count
  };
  Status add_step(const BroadcastPlan& p, size_t input, const KernelConfig& cfg) {
    AMP_ASSIGN_OR_RETURN(typename Exec::Plan plan, Exec::plan(p));
    steps_.push_back({plan, input, cfg.inputs[input].numel()});
    return Status::ok();
  }

  DType dtype_ = DType::kUndefined;
  std::vector<Step> steps_;
  size_t inputs_ = 0;
  int64_t out_numel_ = 0;
};

// ---- Where(cond, X, Y) ---------------------------------------------------------------------

// Selection copies elements, so the executor's loop depends only on the element size: one per
// 1/2/4/8-byte unsigned type U serves every dtype of X and Y (float bits and NaN payloads pass
// through unchanged).
template <typename Exec>
class WhereKernel final : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_RETURN_IF_ERROR(check_arity(cfg, 3, 3));
    AMP_RETURN_IF_ERROR(check_input_dtype(cfg, 0, DType::kBool));
    const DType t = cfg.inputs[1].dtype;
    elem_size_ = dtype_size(t);
    if (elem_size_ == 0) return invalid_model("input 1 has no dtype");
    AMP_RETURN_IF_ERROR(check_input_dtype(cfg, 2, t));
    AMP_RETURN_IF_ERROR(check_output_dtype(cfg, t));
    AMP_ASSIGN_OR_RETURN(
        BroadcastPlan p,
        make_broadcast_plan({cfg.inputs[0].dims, cfg.inputs[1].dims, cfg.inputs[2].dims},
                            cfg.outputs[0].dims));
    AMP_ASSIGN_OR_RETURN(plan_, Exec::plan3(p));
    return Status::ok();
  }

  Status run(const KernelArgs& a) const override {
    switch (elem_size_) {
      case 1:
        return select<uint8_t>(a);
      case 2:
        return select<uint16_t>(a);
      case 4:
        return select<uint32_t>(a);
      case 8:
        return select<uint64_t>(a);
      default:
        return internal_error("Where: element size " + std::to_string(elem_size_));
    }
  }

 private:
  template <typename U>
  Status select(const KernelArgs& a) const {
    return Exec::select(plan_, a.input<ew::Bool>(0), a.input<U>(1), a.input<U>(2), a.output<U>(0),
                        a);
  }

  size_t elem_size_ = 0;
  typename Exec::Plan3 plan_{};
};

// ---- Cast, CastLike
// ------------------------------------------------------------------------------

// Between every supported dtype with the semantics of ew::cast_value: float -> float rounds once
// to nearest even (f64 -> f16/bf16 without double rounding), float -> int truncates toward zero
// and saturates (NaN -> 0), int -> int wraps, x -> bool is x != 0. Attribute 'saturate' only
// concerns fp8 targets, which AMPRT does not support. The target is the output's dtype, which
// shape inference checked against attribute 'to'. A same-dtype cast is a copy (none when
// aliased), except bool -> bool, which normalizes to 0/1.
template <typename Exec>
class CastKernel final : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    // CastLike's input 1 only names the target dtype (the output's): it is never read.
    const size_t arity = cfg.node->op == graph::OpType::kCastLike ? 2 : 1;
    AMP_RETURN_IF_ERROR(check_arity(cfg, arity, arity));
    src_ = cfg.inputs[0].dtype;
    dst_ = cfg.outputs[0].dtype;
    if (dtype_size(src_) == 0) return invalid_model("input has no dtype");
    if (dtype_size(dst_) == 0) return invalid_model("output has no dtype");
    AMP_RETURN_IF_ERROR(check_same_shape(cfg));
    n_ = cfg.outputs[0].numel();
    return Status::ok();
  }

  Status run(const KernelArgs& a) const override {
    if (src_ == dst_ && src_ != DType::kBool) {
      if (a.inputs[0] == a.outputs[0] || n_ == 0) return Status::ok();
      return Exec::copy(a.inputs[0], a.outputs[0], static_cast<size_t>(n_) * dtype_size(src_), a);
    }
    return visit_dtype(src_, [&](auto src_tag) -> Status {
      using S = typename decltype(src_tag)::type;
      return visit_dtype(dst_, [&](auto dst_tag) -> Status {
        using D = typename decltype(dst_tag)::type;
        return Exec::template cast<S, D>(a.input<S>(0), a.output<D>(0), n_, a);
      });
    });
  }

 private:
  DType src_ = DType::kUndefined;
  DType dst_ = DType::kUndefined;
  int64_t n_ = 0;
};

// ---- Clip(X, min, max) -------------------------------------------------------------------------

// The bounds one run clips to, in X's compute type: constants and absent bounds (-Inf / +Inf,
// the type's range for integers) resolved here; a bound the graph computes at run time is a
// pointer to its scalar in the executor's memory (lo_ptr / hi_ptr, else null), which the
// executor reads where it lives (the CPU on the host, CUDA in the kernel).
template <typename T>
struct ClipRange {
  using C = ew::compute_t<T>;
  C lo, hi;
  const T* lo_ptr = nullptr;
  const T* hi_ptr = nullptr;
};

// min > max gives max everywhere; NaN stays NaN (ew::Clip).
template <typename Exec>
class ClipKernel final : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_ASSIGN_OR_RETURN(bounds_, read_clip_bounds(cfg));
    dtype_ = cfg.inputs[0].dtype;
    n_ = cfg.outputs[0].numel();
    return Status::ok();
  }

  Status run(const KernelArgs& a) const override {
    return visit_dtype(dtype_, [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      if constexpr (in_group<T>(DTypeGroup::kNumeric)) {
        using C = ew::compute_t<T>;
        ClipRange<T> r{};
        if constexpr (std::is_integral_v<T>) {
          r.lo = std::numeric_limits<T>::lowest();
          r.hi = std::numeric_limits<T>::max();
        } else {
          r.lo = -std::numeric_limits<C>::infinity();
          r.hi = std::numeric_limits<C>::infinity();
        }
        resolve(0, a, r.lo, r.lo_ptr);
        resolve(1, a, r.hi, r.hi_ptr);
        return Exec::clip(r, a.input<T>(0), a.output<T>(0), n_, a);
      } else {
        return unexpected_dtype(dtype_);
      }
    });
  }

 private:
  template <typename T, typename C>
  void resolve(int k, const KernelArgs& a, C& value, const T*& ptr) const {
    if (!bounds_[k].present) return;
    if (bounds_[k].constant)
      value = ew::load(read_scalar<T>(bounds_[k].bytes));
    else
      ptr = a.input<T>(static_cast<size_t>(k) + 1);
  }

  DType dtype_ = DType::kUndefined;
  int64_t n_ = 0;
  ClipBounds bounds_;
};

// Registers every row of elementwise_family.def, and Where, Cast and Clip, with executor Exec.
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
#define AMP_EW_VARIADIC(op, functor, dtypes)                              \
  r.add_all(OpType::k##op, Exec::kBackend, dtypes_of(DTypeGroup::dtypes), \
            make_factory<VariadicKernel<Exec, functor, DTypeGroup::dtypes>>(), 0);
#define AMP_EW_PREDICATE(op, functor, dtypes)                             \
  r.add_all(OpType::k##op, Exec::kBackend, dtypes_of(DTypeGroup::dtypes), \
            make_factory<UnaryKernel<Exec, functor, DTypeGroup::dtypes, true>>());
#define AMP_EW_AVERAGE(op, functor, dtypes)                               \
  r.add_all(OpType::k##op, Exec::kBackend, dtypes_of(DTypeGroup::dtypes), \
            make_factory<VariadicKernel<Exec, functor, DTypeGroup::dtypes, true>>(), 0);
#include "kernels/common/elementwise_family.def"
#undef AMP_EW_UNARY
#undef AMP_EW_BINARY
#undef AMP_EW_COMPARE
#undef AMP_EW_VARIADIC
#undef AMP_EW_PREDICATE
#undef AMP_EW_AVERAGE
  // Where is looked up by X's dtype when it is a float type, else by cond's (bool); any X
  // dtype is handled. Cast is looked up by its source dtype.
  std::vector<DType> where_keys = dtypes_of(DTypeGroup::kFloat);
  where_keys.push_back(DType::kBool);
  r.add_all(OpType::kWhere, Exec::kBackend, where_keys, make_factory<WhereKernel<Exec>>());
  r.add_all(OpType::kCast, Exec::kBackend, all_dtypes(), make_factory<CastKernel<Exec>>());
  r.add_all(OpType::kCastLike, Exec::kBackend, all_dtypes(), make_factory<CastKernel<Exec>>());
  r.add_all(OpType::kClip, Exec::kBackend, dtypes_of(DTypeGroup::kNumeric),
            make_factory<ClipKernel<Exec>>(), 0);
}

}  // namespace amp::kernels
