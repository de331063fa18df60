// Range(start, limit, delta) on the CPU. (Shape, Size, Constant and ConstantOfShape are
// copy kernels: kernels/common/copy_kernels.h.) Range reads start and delta at run time
// (they may be computed) and takes its length from the static output shape.
#include "kernels/common/movement_io.h"
#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/movement_common.h"

namespace amp::kernels::cpu {
namespace {

// Range(start, limit, delta): out[i] = start + i * delta, the length fixed by the output
// shape. Floats compute in fp32 (f64 in f64) and round once on store; integers in int64.
template <typename T>
class RangeKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_ASSIGN_OR_RETURN(n_, check_range_io(cfg));
    return Status::ok();
  }

  Status run(const KernelArgs& a) const override {
    const T start = *a.input<T>(0);
    const T delta = *a.input<T>(2);
    T* out = a.output<T>(0);
    if constexpr (std::is_same_v<T, double>) {
      for (int64_t i = 0; i < n_; ++i) out[i] = start + static_cast<double>(i) * delta;
    } else if constexpr (std::is_integral_v<T>) {
      const int64_t s = start, d = delta;
      for (int64_t i = 0; i < n_; ++i) out[i] = static_cast<T>(s + i * d);
    } else {
      const float s = load_f32(start), d = load_f32(delta);
      for (int64_t i = 0; i < n_; ++i) out[i] = store_as<T>(s + static_cast<float>(i) * d);
    }
    return Status::ok();
  }

 private:
  int64_t n_ = 0;
};

}  // namespace

void register_range_kernels(KernelRegistry& r) {
  using graph::OpType;
  r.add_all(OpType::kRange, Backend::kCpu, {DType::kF32},
            [] { return std::make_unique<RangeKernel<float>>(); });
  r.add_all(OpType::kRange, Backend::kCpu, {DType::kF16},
            [] { return std::make_unique<RangeKernel<Half>>(); });
  r.add_all(OpType::kRange, Backend::kCpu, {DType::kBF16},
            [] { return std::make_unique<RangeKernel<BFloat16>>(); });
  r.add_all(OpType::kRange, Backend::kCpu, {DType::kF64},
            [] { return std::make_unique<RangeKernel<double>>(); });
  r.add_all(OpType::kRange, Backend::kCpu, {DType::kI64},
            [] { return std::make_unique<RangeKernel<int64_t>>(); });
  r.add_all(OpType::kRange, Backend::kCpu, {DType::kI32},
            [] { return std::make_unique<RangeKernel<int32_t>>(); });
  r.add_all(OpType::kRange, Backend::kCpu, {DType::kI16},
            [] { return std::make_unique<RangeKernel<int16_t>>(); });
}

}  // namespace amp::kernels::cpu
