// CUDA variadic Max and Min with numpy broadcasting, and Pow. Mirrors
// kernels/cpu/elementwise_binary.cc and elementwise_pow.cc: same dtypes and functors (fp32
// arithmetic for f16/bf16, f64 in f64, integers wrap). Two-input arithmetic is the family
// table's (elementwise_family.cu).
//
// Output 0 may overwrite input 0 when their shapes match.
#include <cstring>
#include <type_traits>

#include "kernels/cuda/elementwise_device.h"

namespace amp::kernels::cuda {
namespace {

using graph::OpType;

template <typename T>
inline constexpr bool kNumeric = ew::kIsFloatStorage<T> || std::is_integral_v<T>;

Status check_numeric(DType t) {
  if (is_float(t) || is_integer(t)) return Status::ok();
  return unsupported("dtype " + std::string(dtype_name(t)) + " is not supported");
}

// Max / Min over 1..N inputs, folded pairwise into the output: out = Op(in0, in1), then
// out = Op(out, in_k), one launch each on the same stream. Exact in any storage type (the
// result is always one of the inputs).
template <typename Op>
class VariadicKernel final : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    if (cfg.inputs.empty()) return invalid_model("takes at least 1 input, has 0");
    const size_t n = cfg.inputs.size();
    AMP_RETURN_IF_ERROR(check_arity(cfg, n, n));
    dtype_ = cfg.inputs[0].dtype;
    AMP_RETURN_IF_ERROR(check_numeric(dtype_));
    for (size_t i = 1; i < n; ++i) AMP_RETURN_IF_ERROR(check_input_dtype(cfg, i, dtype_));
    AMP_RETURN_IF_ERROR(check_output_dtype(cfg, dtype_));
    std::vector<std::vector<int64_t>> all;
    for (const TensorDesc& d : cfg.inputs) all.push_back(d.dims);
    AMP_ASSIGN_OR_RETURN(std::vector<int64_t> out_dims, broadcast_dims(all));
    if (out_dims != cfg.outputs[0].dims)
      return invalid_model("output shape is not the broadcast of the inputs");
    num_inputs_ = n;
    plans_.clear();
    // Step 0 pairs input 0 with input 1 (with itself when alone: Op(x, x) = x).
    AMP_ASSIGN_OR_RETURN(DevicePlan<2> first,
                         make_plan2({all[0], all[n > 1 ? 1 : 0]}, out_dims, false));
    plans_.push_back(first);
    for (size_t i = 2; i < n; ++i) {
      AMP_ASSIGN_OR_RETURN(DevicePlan<2> p, make_plan2({out_dims, all[i]}, out_dims, true));
      plans_.push_back(p);
    }
    return Status::ok();
  }

  Status run(const KernelArgs& a) const override {
    const cudaStream_t stream = static_cast<cudaStream_t>(a.stream);
    return visit_dtype(dtype_, [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      if constexpr (kNumeric<T>) {
        T* out = a.output<T>(0);
        const T* second = a.input<T>(num_inputs_ > 1 ? 1 : 0);
        AMP_RETURN_IF_ERROR(
            launch_map2(plans_[0], a.input<T>(0), second, out, BinaryF<T, Op>{}, stream));
        for (size_t i = 2; i < num_inputs_; ++i)
          AMP_RETURN_IF_ERROR(launch_map2(plans_[i - 1], static_cast<const T*>(out), a.input<T>(i),
                                          out, BinaryF<T, Op>{}, stream));
        return Status::ok();
      } else {
        return unexpected_dtype(dtype_);
      }
    });
  }

 private:
  DType dtype_ = DType::kUndefined;
  size_t num_inputs_ = 0;
  std::vector<DevicePlan<2>> plans_;  // plans_[0]: (in0, in1); plans_[i - 1]: (out, in_i)
};

// ---- Pow ------------------------------------------------------------------------------------
//
// The exponent may have another numeric dtype than the base; the output has the base's.
// As on the CPU, the exponent is brought to one "exponent type" K per base kind:
//   f32/f16/bf16 base -> float    f64 base -> double
//   integer base, integer exponent -> int64 (exact, wrapping ew::ipow)
//   integer base, float exponent -> double (pow in double, saturated to the base type)
// A constant scalar exponent is converted once in prepare() and passed by value (and 2 on a
// float base is x * x, as on the CPU); a tensor exponent of another dtype is converted into
// the workspace at run.

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
    AMP_RETURN_IF_ERROR(check_arity(cfg, 2, 2));
    base_ = cfg.inputs[0].dtype;
    exp_ = cfg.inputs[1].dtype;
    if (!is_float(base_) && !is_integer(base_))
      return unsupported("base dtype " + std::string(dtype_name(base_)) + " is not supported");
    if (!is_float(exp_) && !is_integer(exp_))
      return unsupported("exponent dtype " + std::string(dtype_name(exp_)) + " is not supported");
    AMP_RETURN_IF_ERROR(check_output_dtype(cfg, base_));
    AMP_ASSIGN_OR_RETURN(
        plan_, make_plan2({cfg.inputs[0].dims, cfg.inputs[1].dims}, cfg.outputs[0].dims, true));
    kind_ = base_ == DType::kF64 ? ExpKind::kDouble
            : is_float(base_)    ? ExpKind::kFloat
            : is_integer(exp_)   ? ExpKind::kInt64
                                 : ExpKind::kDouble;
    exp_numel_ = cfg.inputs[1].numel();
    convert_ = exp_ != exp_kind_dtype(kind_);
    const void* c = cfg.inputs[1].constant_data;
    // A constant scalar exponent: the output is the base's elements in order (the scalar's
    // dims are all 1, so broadcasting only prepends 1s).
    scalar_ = c != nullptr && exp_numel_ == 1;
    square_ = false;
    scalar_bits_ = 0;
    if (scalar_) {
      AMP_RETURN_IF_ERROR(visit_dtype(exp_, [&](auto tag) -> Status {
        using E = typename decltype(tag)::type;
        if constexpr (ew::kIsFloatStorage<E> || std::is_integral_v<E>) {
          E e;
          std::memcpy(&e, c, sizeof(E));
          switch (kind_) {
            case ExpKind::kFloat: {
              const float v = ew::cast_value<float>(e);
              std::memcpy(&scalar_bits_, &v, sizeof(v));
              square_ = v == 2.0f;
              break;
            }
            case ExpKind::kDouble: {
              const double v = ew::cast_value<double>(e);
              std::memcpy(&scalar_bits_, &v, sizeof(v));
              square_ = is_float(base_) && v == 2.0;
              break;
            }
            case ExpKind::kInt64: {
              const int64_t v = ew::cast_value<int64_t>(e);
              std::memcpy(&scalar_bits_, &v, sizeof(v));
              break;
            }
          }
          return Status::ok();
        } else {
          return unexpected_dtype(exp_);
        }
      }));
    }
    return Status::ok();
  }

  size_t workspace_bytes() const override {
    return convert_ && !scalar_ ? static_cast<size_t>(exp_numel_) * 8 : 0;
  }

  Status run(const KernelArgs& a) const override {
    const cudaStream_t stream = static_cast<cudaStream_t>(a.stream);
    if (scalar_) return run_scalar(a, stream);
    const void* e = a.inputs[1];
    if (convert_) {
      AMP_RETURN_IF_ERROR(convert_exponent(a.inputs[1], a.workspace, stream));
      e = a.workspace;
    }
    return visit_dtype(base_, [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      if constexpr (ew::kIsFloatStorage<T>) {
        using K = float_kind_t<T>;
        return launch_map2(plan_, a.input<T>(0), static_cast<const K*>(e), a.output<T>(0),
                           PowF<T, K>{}, stream);
      } else if constexpr (std::is_integral_v<T>) {
        if (kind_ == ExpKind::kInt64)
          return launch_map2(plan_, a.input<T>(0), static_cast<const int64_t*>(e), a.output<T>(0),
                             PowF<T, int64_t>{}, stream);
        return launch_map2(plan_, a.input<T>(0), static_cast<const double*>(e), a.output<T>(0),
                           PowF<T, double>{}, stream);
      } else {
        return unexpected_dtype(base_);
      }
    });
  }

 private:
  Status run_scalar(const KernelArgs& a, cudaStream_t stream) const {
    const int64_t n = plan_.numel;
    return visit_dtype(base_, [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      if constexpr (ew::kIsFloatStorage<T>) {
        using K = float_kind_t<T>;
        if (square_) return launch_map1(a.input<T>(0), a.output<T>(0), n, SquareF<T>{}, stream);
        K e;
        std::memcpy(&e, &scalar_bits_, sizeof(K));
        return launch_map1(a.input<T>(0), a.output<T>(0), n, PowScalarF<T, K>{e}, stream);
      } else if constexpr (std::is_integral_v<T>) {
        if (kind_ == ExpKind::kInt64) {
          int64_t e;
          std::memcpy(&e, &scalar_bits_, sizeof(e));
          return launch_map1(a.input<T>(0), a.output<T>(0), n, PowScalarF<T, int64_t>{e}, stream);
        }
        double e;
        std::memcpy(&e, &scalar_bits_, sizeof(e));
        return launch_map1(a.input<T>(0), a.output<T>(0), n, PowScalarF<T, double>{e}, stream);
      } else {
        return unexpected_dtype(base_);
      }
    });
  }

  // The exponent tensor converted to the kind type, into `dst` (exp_numel_ * 8 bytes).
  Status convert_exponent(const void* src, void* dst, cudaStream_t stream) const {
    return visit_dtype(exp_, [&](auto tag) -> Status {
      using E = typename decltype(tag)::type;
      if constexpr (ew::kIsFloatStorage<E> || std::is_integral_v<E>) {
        const E* in = static_cast<const E*>(src);
        switch (kind_) {
          case ExpKind::kFloat:
            return launch_map1(in, static_cast<float*>(dst), exp_numel_, ConvertF<E, float>{},
                               stream);
          case ExpKind::kDouble:
            return launch_map1(in, static_cast<double*>(dst), exp_numel_, ConvertF<E, double>{},
                               stream);
          case ExpKind::kInt64:
            return launch_map1(in, static_cast<int64_t*>(dst), exp_numel_, ConvertF<E, int64_t>{},
                               stream);
        }
        return unexpected_dtype(exp_);
      } else {
        return unexpected_dtype(exp_);
      }
    });
  }

  DType base_ = DType::kUndefined;
  DType exp_ = DType::kUndefined;
  ExpKind kind_ = ExpKind::kFloat;
  DevicePlan<2> plan_;
  int64_t exp_numel_ = 0;
  bool convert_ = false;      // the exponent's dtype is not the kind's type
  bool scalar_ = false;       // constant scalar exponent, passed by value
  bool square_ = false;       // ... equal to 2 on a float base
  uint64_t scalar_bits_ = 0;  // the scalar exponent in the kind's type
};

}  // namespace

void register_binary_kernels(KernelRegistry& r) {
  const std::vector<DType>& numeric = numeric_dtypes();
  r.add_all(OpType::kMax, Backend::kCuda, numeric, make_factory<VariadicKernel<ew::Max>>(), 0);
  r.add_all(OpType::kMin, Backend::kCuda, numeric, make_factory<VariadicKernel<ew::Min>>(), 0);
}

// Looked up by the first float input: Pow(int, float) finds the float kernels, which
// handle any base; integer keys serve integer bases with integer exponents.
void register_pow_kernels(KernelRegistry& r) {
  r.add_all(OpType::kPow, Backend::kCuda, numeric_dtypes(), make_factory<PowKernel>(), 0);
}

}  // namespace amp::kernels::cuda
