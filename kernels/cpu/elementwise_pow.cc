// Pow(X, Y) with numpy broadcasting. The exponent may have another numeric dtype than the
// base; the output has the base's. The exponent is brought to one "exponent type" per
// base kind, once in prepare() when constant, else into the workspace at run:
//   f32/f16/bf16 base -> float (fp32 arithmetic)   f64 base -> double
//   integer base, integer exponent -> int64 (exact, wrapping ew::ipow)
//   integer base, float exponent -> double (pow in double, saturated to the base type)
// A constant scalar exponent 2 on a float base is x * x (same value as powf, far cheaper;
// LayerNorm decompositions write it).
#include <cstring>

#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/elementwise_cpu.h"

namespace amp::kernels::cpu {
namespace {

enum class ExpKind : uint8_t { kFloat, kDouble, kInt64 };

DType exp_kind_dtype(ExpKind k) {
  switch (k) {
    case ExpKind::kFloat:
      return DType::kF32;
    case ExpKind::kDouble:
      return DType::kF64;
    case ExpKind::kInt64:
      return DType::kI64;
  }
  return DType::kUndefined;
}

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
    AMP_RETURN_IF_ERROR(check_arity(cfg, 2, 2));
    base_ = cfg.inputs[0].dtype;
    exp_ = cfg.inputs[1].dtype;
    if (!is_float(base_) && !is_integer(base_))
      return unsupported("base dtype " + std::string(dtype_name(base_)) + " is not supported");
    if (!is_float(exp_) && !is_integer(exp_))
      return unsupported("exponent dtype " + std::string(dtype_name(exp_)) + " is not supported");
    AMP_RETURN_IF_ERROR(check_output_dtype(cfg, base_));
    AMP_ASSIGN_OR_RETURN(
        plan_, make_broadcast_plan({cfg.inputs[0].dims, cfg.inputs[1].dims}, cfg.outputs[0].dims));
    kind_ = base_ == DType::kF64 ? ExpKind::kDouble
            : is_float(base_)    ? ExpKind::kFloat
            : is_integer(exp_)   ? ExpKind::kInt64
                                 : ExpKind::kDouble;
    exp_numel_ = cfg.inputs[1].numel();
    convert_ = exp_ != exp_kind_dtype(kind_);
    const void* c = cfg.inputs[1].constant_data;
    exp_const_.clear();
    if (convert_ && c) {
      exp_const_.resize(static_cast<size_t>(exp_numel_) * 8);
      AMP_RETURN_IF_ERROR(convert_exponent(exp_, c, kind_, exp_const_.data(), exp_numel_));
    }
    square_ = false;
    if (c && exp_numel_ == 1 && is_float(base_)) {
      double e = 0;
      if (kind_ == ExpKind::kFloat)
        e = convert_ ? *reinterpret_cast<const float*>(exp_const_.data())
                     : *static_cast<const float*>(c);
      else
        e = convert_ ? *reinterpret_cast<const double*>(exp_const_.data())
                     : *static_cast<const double*>(c);
      square_ = e == 2.0;
    }
    return Status::ok();
  }

  size_t workspace_bytes() const override {
    return convert_ && exp_const_.empty() ? static_cast<size_t>(exp_numel_) * 8 : 0;
  }

  Status run(const KernelArgs& a) const override {
    const void* e = a.inputs[1];
    if (convert_) {
      if (!exp_const_.empty()) {
        e = exp_const_.data();
      } else {
        AMP_RETURN_IF_ERROR(convert_exponent(exp_, a.inputs[1], kind_, a.workspace, exp_numel_));
        e = a.workspace;
      }
    }
    return visit_dtype(base_, [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      if constexpr (ew::kIsFloatStorage<T>) {
        using C = ew::compute_t<T>;  // float or double, as kind_ says
        if (square_) {
          unary_loop(a.input<T>(0), a.output<T>(0), plan_.numel, a.num_threads, [](T x) {
            const C v = ew::load(x);
            return ew::store<T>(v * v);
          });
          return Status::ok();
        }
        binary_loop(plan_, a.input<T>(0), static_cast<const C*>(e), a.output<T>(0), a.num_threads,
                    [](T x, C y) { return ew::store<T>(ew::Pow{}(ew::load(x), y)); });
        return Status::ok();
      } else if constexpr (std::is_integral_v<T>) {
        if (kind_ == ExpKind::kInt64)
          binary_loop(plan_, a.input<T>(0), static_cast<const int64_t*>(e), a.output<T>(0),
                      a.num_threads, [](T x, int64_t y) { return ew::Pow{}(x, y); });
        else
          binary_loop(plan_, a.input<T>(0), static_cast<const double*>(e), a.output<T>(0),
                      a.num_threads, [](T x, double y) { return ew::Pow{}(x, y); });
        return Status::ok();
      } else {
        return unexpected_dtype(base_);
      }
    });
  }

 private:
  DType base_ = DType::kUndefined;
  DType exp_ = DType::kUndefined;
  ExpKind kind_ = ExpKind::kFloat;
  BroadcastPlan plan_;
  int64_t exp_numel_ = 0;
  bool convert_ = false;            // the exponent's dtype is not the kind's type
  std::vector<uint8_t> exp_const_;  // converted constant exponent (8 bytes per element)
  bool square_ = false;             // constant scalar exponent 2 on a float base
};

}  // namespace

// Looked up by the first float input: Pow(int, float) finds the float kernels, which
// handle any base; integer keys serve integer bases with integer exponents.
void register_pow_kernels(KernelRegistry& r) {
  r.add_all(graph::OpType::kPow, Backend::kCpu, numeric_dtypes(), make_factory<PowKernel>(), 0);
}

}  // namespace amp::kernels::cpu
