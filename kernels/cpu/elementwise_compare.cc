// Comparisons with numpy broadcasting (Equal, Greater, Less: numeric inputs, bool output;
// Equal also on bool) and the logical And. f16/bf16 compare their exact fp32 values.
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/elementwise_cpu.h"

namespace amp::kernels::cpu {
namespace {

using graph::OpType;

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
        plan_, make_broadcast_plan({cfg.inputs[0].dims, cfg.inputs[1].dims}, cfg.outputs[0].dims));
    return Status::ok();
  }

  Status run(const KernelArgs& a) const override {
    uint8_t* out = a.output<uint8_t>(0);
    return visit_dtype(dtype_, [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      if constexpr (ew::kIsFloatStorage<T> || std::is_integral_v<T>) {
        binary_loop(plan_, a.input<T>(0), a.input<T>(1), out, a.num_threads,
                    [](T x, T y) { return static_cast<uint8_t>(Op{}(ew::load(x), ew::load(y))); });
        return Status::ok();
      } else if constexpr (std::is_same_v<T, ew::Bool> && std::is_same_v<Op, ew::Equal>) {
        binary_loop(
            plan_, a.input<uint8_t>(0), a.input<uint8_t>(1), out, a.num_threads,
            [](uint8_t x, uint8_t y) { return static_cast<uint8_t>((x != 0) == (y != 0)); });
        return Status::ok();
      } else {
        return unexpected_dtype(dtype_);
      }
    });
  }

 private:
  DType dtype_ = DType::kUndefined;
  BroadcastPlan plan_;
};

class AndKernel final : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_RETURN_IF_ERROR(check_arity(cfg, 2, 2));
    AMP_RETURN_IF_ERROR(check_input_dtype(cfg, 0, DType::kBool));
    AMP_RETURN_IF_ERROR(check_input_dtype(cfg, 1, DType::kBool));
    AMP_RETURN_IF_ERROR(check_output_dtype(cfg, DType::kBool));
    AMP_ASSIGN_OR_RETURN(
        plan_, make_broadcast_plan({cfg.inputs[0].dims, cfg.inputs[1].dims}, cfg.outputs[0].dims));
    return Status::ok();
  }
  Status run(const KernelArgs& a) const override {
    binary_loop(plan_, a.input<uint8_t>(0), a.input<uint8_t>(1), a.output<uint8_t>(0),
                a.num_threads,
                [](uint8_t x, uint8_t y) { return static_cast<uint8_t>((x != 0) & (y != 0)); });
    return Status::ok();
  }

 private:
  BroadcastPlan plan_;
};

}  // namespace

void register_elementwise_compare(KernelRegistry& r) {
  std::vector<DType> equal_dtypes = numeric_dtypes();
  equal_dtypes.push_back(DType::kBool);
  r.add_all(OpType::kEqual, Backend::kCpu, equal_dtypes, make_factory<CompareKernel<ew::Equal>>());
  r.add_all(OpType::kGreater, Backend::kCpu, numeric_dtypes(),
            make_factory<CompareKernel<ew::Greater>>());
  r.add_all(OpType::kLess, Backend::kCpu, numeric_dtypes(),
            make_factory<CompareKernel<ew::Less>>());
  r.add_all(OpType::kAnd, Backend::kCpu, {DType::kBool}, make_factory<AndKernel>(), 0);
}

}  // namespace amp::kernels::cpu
