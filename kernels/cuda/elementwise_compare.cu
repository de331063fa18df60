// CUDA comparisons with numpy broadcasting (Equal, Greater, Less: numeric inputs, bool
// output; Equal also on bool), the logical And, and Where(cond, X, Y). Mirrors
// kernels/cpu/elementwise_compare.cc and elementwise_where.cc. f16/bf16 compare their exact
// fp32 values. Where copies elements, so one kernel per element size (1/2/4/8 bytes) serves
// every dtype of X and Y, float bits and NaN payloads unchanged.
#include <type_traits>

#include "kernels/cuda/elementwise_device.h"

namespace amp::kernels::cuda_ew {
namespace {

using amp::cuda::unexpected_dtype;
using amp::cuda::visit_dtype;
using graph::OpType;

template <typename T, typename Op>
struct CompareF {
  __device__ __forceinline__ ew::Bool operator()(T a, T b) const {
    return ew::Bool{static_cast<uint8_t>(Op{}(dev_load(a), dev_load(b)) ? 1 : 0)};
  }
};

struct BoolEqualF {
  __device__ __forceinline__ ew::Bool operator()(ew::Bool a, ew::Bool b) const {
    return ew::Bool{static_cast<uint8_t>((a.v != 0) == (b.v != 0) ? 1 : 0)};
  }
};

struct AndF {
  __device__ __forceinline__ ew::Bool operator()(ew::Bool a, ew::Bool b) const {
    return ew::Bool{static_cast<uint8_t>((a.v != 0) & (b.v != 0))};
  }
};

template <typename Op>
class CompareKernel final : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_RETURN_IF_ERROR(check_arity(cfg, 2, 2));
    dtype_ = cfg.inputs[0].dtype;
    const bool bool_ok = std::is_same_v<Op, ew::Equal> && dtype_ == DType::kBool;
    if (!is_float(dtype_) && !is_integer(dtype_) && !bool_ok)
      return unsupported("dtype " + std::string(dtype_name(dtype_)) + " is not supported");
    AMP_RETURN_IF_ERROR(check_input_dtype(cfg, 1, dtype_));
    AMP_RETURN_IF_ERROR(check_output_dtype(cfg, DType::kBool));
    AMP_ASSIGN_OR_RETURN(
        plan_, make_plan2({cfg.inputs[0].dims, cfg.inputs[1].dims}, cfg.outputs[0].dims, true));
    return Status::ok();
  }

  Status run(const KernelArgs& a) const override {
    const cudaStream_t stream = static_cast<cudaStream_t>(a.stream);
    ew::Bool* out = a.output<ew::Bool>(0);
    return visit_dtype(dtype_, [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      if constexpr (ew::kIsFloatStorage<T> || std::is_integral_v<T>) {
        return launch_map2(plan_, a.input<T>(0), a.input<T>(1), out, CompareF<T, Op>{}, stream);
      } else if constexpr (std::is_same_v<T, ew::Bool> && std::is_same_v<Op, ew::Equal>) {
        return launch_map2(plan_, a.input<ew::Bool>(0), a.input<ew::Bool>(1), out, BoolEqualF{},
                           stream);
      } else {
        return unexpected_dtype(dtype_);
      }
    });
  }

 private:
  DType dtype_ = DType::kUndefined;
  BroadcastPlan<2> plan_;
};

class AndKernel final : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_RETURN_IF_ERROR(check_arity(cfg, 2, 2));
    AMP_RETURN_IF_ERROR(check_input_dtype(cfg, 0, DType::kBool));
    AMP_RETURN_IF_ERROR(check_input_dtype(cfg, 1, DType::kBool));
    AMP_RETURN_IF_ERROR(check_output_dtype(cfg, DType::kBool));
    AMP_ASSIGN_OR_RETURN(
        plan_, make_plan2({cfg.inputs[0].dims, cfg.inputs[1].dims}, cfg.outputs[0].dims, true));
    return Status::ok();
  }
  Status run(const KernelArgs& a) const override {
    return launch_map2(plan_, a.input<ew::Bool>(0), a.input<ew::Bool>(1), a.output<ew::Bool>(0),
                       AndF{}, static_cast<cudaStream_t>(a.stream));
  }

 private:
  BroadcastPlan<2> plan_;
};

template <typename U>
struct WhereF {
  __device__ __forceinline__ U operator()(ew::Bool c, U x, U y) const { return c.v != 0 ? x : y; }
};

// Where's 8-byte element: an aligned 64-bit integer (tensors of 8-byte types are 8-aligned).
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
    AMP_ASSIGN_OR_RETURN(plan_,
                         make_plan3({cfg.inputs[0].dims, cfg.inputs[1].dims, cfg.inputs[2].dims},
                                    cfg.outputs[0].dims, true));
    return Status::ok();
  }

  Status run(const KernelArgs& a) const override {
    const cudaStream_t s = static_cast<cudaStream_t>(a.stream);
    const ew::Bool* c = a.input<ew::Bool>(0);
    switch (elem_size_) {
      case 1:
        return launch_map3(plan_, c, a.input<uint8_t>(1), a.input<uint8_t>(2), a.output<uint8_t>(0),
                           WhereF<uint8_t>{}, s);
      case 2:
        return launch_map3(plan_, c, a.input<uint16_t>(1), a.input<uint16_t>(2),
                           a.output<uint16_t>(0), WhereF<uint16_t>{}, s);
      case 4:
        return launch_map3(plan_, c, a.input<uint32_t>(1), a.input<uint32_t>(2),
                           a.output<uint32_t>(0), WhereF<uint32_t>{}, s);
      case 8:
        return launch_map3(plan_, c, a.input<uint64_t>(1), a.input<uint64_t>(2),
                           a.output<uint64_t>(0), WhereF<uint64_t>{}, s);
      default:
        break;
    }
    return internal_error("Where: element size " + std::to_string(elem_size_));
  }

 private:
  size_t elem_size_ = 0;
  BroadcastPlan<3> plan_;
};

}  // namespace

void register_compare(KernelRegistry& r) {
  const Backend kCuda = Backend::kCuda;
  std::vector<DType> equal_dtypes = numeric_dtypes();
  equal_dtypes.push_back(DType::kBool);
  r.add_all(OpType::kEqual, kCuda, equal_dtypes, make_factory<CompareKernel<ew::Equal>>());
  r.add_all(OpType::kGreater, kCuda, numeric_dtypes(), make_factory<CompareKernel<ew::Greater>>());
  r.add_all(OpType::kLess, kCuda, numeric_dtypes(), make_factory<CompareKernel<ew::Less>>());
  r.add_all(OpType::kAnd, kCuda, {DType::kBool}, make_factory<AndKernel>(), 0);
  // Looked up by X's dtype when it is a float type, else by cond's (bool): registered for
  // bool and each float type, and any X dtype is handled.
  std::vector<DType> where_keys = float_dtypes();
  where_keys.push_back(DType::kBool);
  r.add_all(OpType::kWhere, kCuda, where_keys, make_factory<WhereKernel>());
}

}  // namespace amp::kernels::cuda_ew
