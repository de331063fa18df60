// CUDA unary elementwise ops: math (Abs, Neg, Exp, Log, Sqrt, Reciprocal, Erf), activations
// (Sigmoid, Tanh, Relu, LeakyRelu, HardSigmoid, HardSwish, Gelu), Not and Clip. Mirrors
// kernels/cpu/elementwise_unary.cc and elementwise_clip.cc: same dtypes, attributes and
// functors (fp32 arithmetic for f16/bf16, rounded once on store; f64 in f64). Contiguous
// and vectorized (16-byte Pack loads: 8 halves, 4 floats) when the pointers are aligned.
// Output 0 may overwrite input 0.
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/cuda/elementwise_device.h"

namespace amp::kernels::cuda_ew {
namespace {

using amp::cuda::unexpected_dtype;
using amp::cuda::visit_dtype;
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
Status run_unary(DType t, const Op& op, const void* in, void* out, int64_t n, cudaStream_t stream) {
  return visit_dtype(t, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    if constexpr (unary_supports<T, Op>()) {
      return launch_map1(static_cast<const T*>(in), static_cast<T*>(out), n, UnaryF<T, Op>{op},
                         stream);
    } else {
      return unexpected_dtype(t);
    }
  });
}

// One input, one output of the same dtype and shape.
Status prepare_same_shape(const KernelConfig& cfg) {
  AMP_RETURN_IF_ERROR(check_arity(cfg, 1, 1));
  AMP_RETURN_IF_ERROR(check_output_dtype(cfg, cfg.inputs[0].dtype));
  return check_same_shape(cfg);
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
    return run_unary(dtype_, op_, a.inputs[0], a.outputs[0], n_,
                     static_cast<cudaStream_t>(a.stream));
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
    const Result<std::string> approx = node_attrs(cfg).get_string("approximate", "none");
    if (!approx.is_ok()) return approx.status();
    if (*approx != "none" && *approx != "tanh")
      return invalid_model("attribute 'approximate' is '" + *approx + "', expected none or tanh");
    tanh_ = *approx == "tanh";
    return Status::ok();
  }
  Status run(const KernelArgs& a) const override {
    const cudaStream_t s = static_cast<cudaStream_t>(a.stream);
    if (tanh_) return run_unary(dtype_, ew::GeluTanh{}, a.inputs[0], a.outputs[0], n_, s);
    return run_unary(dtype_, ew::GeluErf{}, a.inputs[0], a.outputs[0], n_, s);
  }

 private:
  bool tanh_ = false;
  DType dtype_ = DType::kUndefined;
  int64_t n_ = 0;
};

struct NotF {
  __device__ __forceinline__ ew::Bool operator()(ew::Bool x) const {
    return ew::Bool{static_cast<uint8_t>(x.v == 0 ? 1 : 0)};
  }
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
    return launch_map1(a.input<ew::Bool>(0), a.output<ew::Bool>(0), n_, NotF{},
                       static_cast<cudaStream_t>(a.stream));
  }

 private:
  int64_t n_ = 0;
};

// ---- Clip ---------------------------------------------------------------------------------

// Clip with bounds known on the host (constants, or the type's range when absent) or read
// from device scalars at run (bounds computed by the graph). A device bound is one load per
// element from the same address: an L1 hit, negligible next to the streamed input.
template <typename T>
struct ClipF {
  using C = ew::compute_t<T>;
  C lo;
  C hi;
  const T* lo_ptr;  // non-null: a run-time bound on the device
  const T* hi_ptr;
  __device__ __forceinline__ T operator()(T x) const {
    const C l = lo_ptr ? dev_load(*lo_ptr) : lo;
    const C h = hi_ptr ? dev_load(*hi_ptr) : hi;
    return dev_store<T>(ew::Clip<C>{l, h}(dev_load(x)));
  }
};

struct Bound {
  bool present = false;
  bool constant = false;
  alignas(8) uint8_t bytes[8] = {};  // the constant's value, in the input's dtype
};

template <typename T>
T read_scalar(const void* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

class ClipKernel final : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_RETURN_IF_ERROR(check_arity(cfg, 1, 3));
    dtype_ = cfg.inputs[0].dtype;
    if (!is_float(dtype_) && !is_integer(dtype_))
      return unsupported("dtype " + std::string(dtype_name(dtype_)) + " is not supported");
    AMP_RETURN_IF_ERROR(check_output_dtype(cfg, dtype_));
    AMP_RETURN_IF_ERROR(check_same_shape(cfg));
    n_ = cfg.outputs[0].numel();
    for (size_t i = 1; i < 3; ++i) {
      Bound& b = bounds_[i - 1];
      b = Bound{};
      if (i >= cfg.inputs.size() || !cfg.inputs[i].present) continue;
      const TensorDesc& d = cfg.inputs[i];
      AMP_RETURN_IF_ERROR(check_input_dtype(cfg, i, dtype_));
      if (d.numel() != 1)
        return invalid_model(std::string(i == 1 ? "min" : "max") + " has " +
                             std::to_string(d.numel()) + " elements, expected a scalar");
      b.present = true;
      if (d.constant_data) {
        b.constant = true;
        std::memcpy(b.bytes, d.constant_data, dtype_size(dtype_));
      }
    }
    return Status::ok();
  }

  Status run(const KernelArgs& a) const override {
    return visit_dtype(dtype_, [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      if constexpr (ew::kIsFloatStorage<T> || std::is_integral_v<T>) {
        using C = ew::compute_t<T>;
        ClipF<T> f{};
        if constexpr (std::is_integral_v<T>) {
          f.lo = std::numeric_limits<T>::lowest();
          f.hi = std::numeric_limits<T>::max();
        } else {
          f.lo = -std::numeric_limits<C>::infinity();
          f.hi = std::numeric_limits<C>::infinity();
        }
        f.lo_ptr = nullptr;
        f.hi_ptr = nullptr;
        if (bounds_[0].present) {
          if (bounds_[0].constant)
            f.lo = ew::load(read_scalar<T>(bounds_[0].bytes));
          else
            f.lo_ptr = a.input<T>(1);
        }
        if (bounds_[1].present) {
          if (bounds_[1].constant)
            f.hi = ew::load(read_scalar<T>(bounds_[1].bytes));
          else
            f.hi_ptr = a.input<T>(2);
        }
        return launch_map1(a.input<T>(0), a.output<T>(0), n_, f,
                           static_cast<cudaStream_t>(a.stream));
      } else {
        return unexpected_dtype(dtype_);
      }
    });
  }

 private:
  DType dtype_ = DType::kUndefined;
  int64_t n_ = 0;
  Bound bounds_[2];
};

}  // namespace

void register_unary(KernelRegistry& r) {
  const Backend kCuda = Backend::kCuda;
  const std::vector<DType>& floats = float_dtypes();
  std::vector<DType> signed_numeric = floats;
  for (DType t : {DType::kI64, DType::kI32, DType::kI16, DType::kI8}) signed_numeric.push_back(t);

  r.add_all(OpType::kAbs, kCuda, numeric_dtypes(), make_factory<UnaryKernel<ew::Abs>>(), 0);
  r.add_all(OpType::kNeg, kCuda, signed_numeric, make_factory<UnaryKernel<ew::Neg>>(), 0);
  r.add_all(OpType::kRelu, kCuda, signed_numeric, make_factory<UnaryKernel<ew::Relu>>(), 0);
  r.add_all(OpType::kExp, kCuda, floats, make_factory<UnaryKernel<ew::Exp>>(), 0);
  r.add_all(OpType::kLog, kCuda, floats, make_factory<UnaryKernel<ew::Log>>(), 0);
  r.add_all(OpType::kSqrt, kCuda, floats, make_factory<UnaryKernel<ew::Sqrt>>(), 0);
  r.add_all(OpType::kReciprocal, kCuda, floats, make_factory<UnaryKernel<ew::Reciprocal>>(), 0);
  r.add_all(OpType::kErf, kCuda, floats, make_factory<UnaryKernel<ew::Erf>>(), 0);
  r.add_all(OpType::kSigmoid, kCuda, floats, make_factory<UnaryKernel<ew::Sigmoid>>(), 0);
  r.add_all(OpType::kTanh, kCuda, floats, make_factory<UnaryKernel<ew::Tanh>>(), 0);
  r.add_all(OpType::kLeakyRelu, kCuda, floats, make_factory<UnaryKernel<ew::LeakyRelu>>(), 0);
  r.add_all(OpType::kHardSigmoid, kCuda, floats, make_factory<UnaryKernel<ew::HardSigmoid>>(), 0);
  r.add_all(OpType::kHardSwish, kCuda, floats, make_factory<UnaryKernel<ew::HardSwish>>(), 0);
  r.add_all(OpType::kGelu, kCuda, floats, make_factory<GeluKernel>(), 0);
  r.add_all(OpType::kNot, kCuda, {DType::kBool}, make_factory<NotKernel>(), 0);
  r.add_all(OpType::kClip, kCuda, numeric_dtypes(), make_factory<ClipKernel>(), 0);
}

}  // namespace amp::kernels::cuda_ew
