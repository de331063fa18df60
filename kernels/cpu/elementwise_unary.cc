// Unary elementwise ops: math (Abs, Neg, Exp, Log, Sqrt, Reciprocal, Erf), activations
// (Sigmoid, Tanh, Relu, LeakyRelu, HardSigmoid, HardSwish, Gelu) and Not. Float storage
// computes in fp32 (f64 in f64) and rounds once on store; Abs, Neg and Relu also have
// integer loops. Output 0 may overwrite input 0 (same shape and dtype).
#include <memory>
#include <type_traits>

#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/elementwise_cpu.h"

namespace amp::kernels::cpu {
namespace {

using graph::OpType;

// Ops that also accept integer storage: Abs on every integer, Neg and Relu on signed ones.
template <typename Op>
inline constexpr bool kIntegerOp = false;
template <>
inline constexpr bool kIntegerOp<ew::Abs> = true;
template <>
inline constexpr bool kIntegerOp<ew::Neg> = true;
template <>
inline constexpr bool kIntegerOp<ew::Relu> = true;

template <typename T, typename Op>
constexpr bool unary_supports() {
  if constexpr (ew::kIsFloatStorage<T>) return true;
  if constexpr (std::is_integral_v<T>)
    return kIntegerOp<Op> && (std::is_signed_v<T> || std::is_same_v<Op, ew::Abs>);
  return false;
}

template <typename Op>
Status check_unary_dtype(DType t) {
  return visit_dtype(t, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    if constexpr (unary_supports<T, Op>()) return Status::ok();
    return unsupported("dtype " + std::string(dtype_name(t)) + " is not supported");
  });
}

template <typename Op>
Status run_unary(DType t, const Op& op, const void* in, void* out, int64_t n, int threads) {
  return visit_dtype(t, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    if constexpr (unary_supports<T, Op>()) {
      const Op o = op;  // a local copy keeps the parameters in registers
      unary_loop(static_cast<const T*>(in), static_cast<T*>(out), n, threads,
                 [o](T x) { return ew::store<T>(o(ew::load(x))); });
      return Status::ok();
    } else {
      return unexpected_dtype(t);
    }
  });
}

// One input, one output of the same dtype and shape.
Status prepare_same_shape(const KernelConfig& cfg) {
  AMP_RETURN_IF_ERROR(check_arity(cfg, 1, 1));
  AMP_RETURN_IF_ERROR(check_output_dtype(cfg, cfg.inputs[0].dtype));
  if (cfg.outputs[0].dims != cfg.inputs[0].dims)
    return invalid_model("output shape differs from the input's");
  return Status::ok();
}

// Reads an op's attributes into its functor; most ops have none.
template <typename Op>
Status configure(Op&, const graph::Attributes&) {
  return Status::ok();
}
template <>
Status configure(ew::LeakyRelu& op, const graph::Attributes& attrs) {
  AMP_ASSIGN_OR_RETURN(op.alpha, attrs.get_float("alpha", 0.01f));
  return Status::ok();
}
template <>
Status configure(ew::HardSigmoid& op, const graph::Attributes& attrs) {
  AMP_ASSIGN_OR_RETURN(op.alpha, attrs.get_float("alpha", 0.2f));
  AMP_ASSIGN_OR_RETURN(op.beta, attrs.get_float("beta", 0.5f));
  return Status::ok();
}

template <typename Op>
class UnaryKernel final : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_RETURN_IF_ERROR(prepare_same_shape(cfg));
    dtype_ = cfg.inputs[0].dtype;
    AMP_RETURN_IF_ERROR(check_unary_dtype<Op>(dtype_));
    n_ = cfg.outputs[0].numel();
    return configure(op_, node_attrs(cfg));
  }
  Status run(const KernelArgs& a) const override {
    return run_unary(dtype_, op_, a.inputs[0], a.outputs[0], n_, a.num_threads);
  }

 private:
  Op op_{};
  DType dtype_ = DType::kUndefined;
  int64_t n_ = 0;
};

// Gelu's formula comes from attribute 'approximate' ("none": erf, "tanh").
class GeluKernel final : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_RETURN_IF_ERROR(prepare_same_shape(cfg));
    dtype_ = cfg.inputs[0].dtype;
    AMP_RETURN_IF_ERROR(check_unary_dtype<ew::GeluErf>(dtype_));
    n_ = cfg.outputs[0].numel();
    // (A plain Result rather than AMP_ASSIGN_OR_RETURN: GCC 12 warns spuriously about a
    // moved-from std::string there.)
    const Result<std::string> approx = node_attrs(cfg).get_string("approximate", "none");
    if (!approx.is_ok()) return approx.status();
    if (*approx != "none" && *approx != "tanh")
      return invalid_model("attribute 'approximate' is '" + *approx + "', expected none or tanh");
    tanh_ = *approx == "tanh";
    return Status::ok();
  }
  Status run(const KernelArgs& a) const override {
    if (tanh_)
      return run_unary(dtype_, ew::GeluTanh{}, a.inputs[0], a.outputs[0], n_, a.num_threads);
    return run_unary(dtype_, ew::GeluErf{}, a.inputs[0], a.outputs[0], n_, a.num_threads);
  }

 private:
  bool tanh_ = false;
  DType dtype_ = DType::kUndefined;
  int64_t n_ = 0;
};

class NotKernel final : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_RETURN_IF_ERROR(prepare_same_shape(cfg));
    AMP_RETURN_IF_ERROR(check_input_dtype(cfg, 0, DType::kBool));
    n_ = cfg.outputs[0].numel();
    return Status::ok();
  }
  Status run(const KernelArgs& a) const override {
    unary_loop(a.input<uint8_t>(0), a.output<uint8_t>(0), n_, a.num_threads,
               [](uint8_t x) { return static_cast<uint8_t>(x == 0); });
    return Status::ok();
  }

 private:
  int64_t n_ = 0;
};

}  // namespace

void register_elementwise_unary(KernelRegistry& r) {
  const std::vector<DType>& floats = float_dtypes();
  std::vector<DType> signed_numeric = floats;
  for (DType t : {DType::kI64, DType::kI32, DType::kI16, DType::kI8}) signed_numeric.push_back(t);

  r.add_all(OpType::kAbs, Backend::kCpu, numeric_dtypes(), make_factory<UnaryKernel<ew::Abs>>(), 0);
  r.add_all(OpType::kNeg, Backend::kCpu, signed_numeric, make_factory<UnaryKernel<ew::Neg>>(), 0);
  r.add_all(OpType::kRelu, Backend::kCpu, signed_numeric, make_factory<UnaryKernel<ew::Relu>>(), 0);
  r.add_all(OpType::kExp, Backend::kCpu, floats, make_factory<UnaryKernel<ew::Exp>>(), 0);
  r.add_all(OpType::kLog, Backend::kCpu, floats, make_factory<UnaryKernel<ew::Log>>(), 0);
  r.add_all(OpType::kSqrt, Backend::kCpu, floats, make_factory<UnaryKernel<ew::Sqrt>>(), 0);
  r.add_all(OpType::kReciprocal, Backend::kCpu, floats, make_factory<UnaryKernel<ew::Reciprocal>>(),
            0);
  r.add_all(OpType::kErf, Backend::kCpu, floats, make_factory<UnaryKernel<ew::Erf>>(), 0);
  r.add_all(OpType::kSigmoid, Backend::kCpu, floats, make_factory<UnaryKernel<ew::Sigmoid>>(), 0);
  r.add_all(OpType::kTanh, Backend::kCpu, floats, make_factory<UnaryKernel<ew::Tanh>>(), 0);
  r.add_all(OpType::kLeakyRelu, Backend::kCpu, floats, make_factory<UnaryKernel<ew::LeakyRelu>>(),
            0);
  r.add_all(OpType::kHardSigmoid, Backend::kCpu, floats,
            make_factory<UnaryKernel<ew::HardSigmoid>>(), 0);
  r.add_all(OpType::kHardSwish, Backend::kCpu, floats, make_factory<UnaryKernel<ew::HardSwish>>(),
            0);
  r.add_all(OpType::kGelu, Backend::kCpu, floats, make_factory<GeluKernel>(), 0);
  r.add_all(OpType::kNot, Backend::kCpu, {DType::kBool}, make_factory<NotKernel>(), 0);
}

}  // namespace amp::kernels::cpu
