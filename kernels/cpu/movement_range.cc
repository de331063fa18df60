// Range(start, limit, delta) on the CPU. (Shape, Size, Constant and ConstantOfShape are
// copy kernels: kernels/common/copy_kernels.h.) Range reads start and delta at run time
// (they may be computed) and takes its length from the static output shape.
#include "kernels/common/checked_kernel.h"
#include "kernels/common/dtype_dispatch.h"
#include "kernels/common/movement_io.h"
#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/movement_common.h"

namespace amp::kernels::cpu {
namespace {

// Range(start, limit, delta): out[i] = start + i * delta, the length fixed by the output
// shape. Floats compute in fp32 (f64 in f64) and round once on store; integers in int64.
template <typename T>
void fill_range(T start, T delta, T* out, int64_t n) {
  if constexpr (std::is_same_v<T, double>) {
    for (int64_t i = 0; i < n; ++i) out[i] = start + static_cast<double>(i) * delta;
  } else if constexpr (std::is_integral_v<T>) {
    const int64_t s = start, d = delta;
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(s + i * d);
  } else {
    const float s = load_f32(start), d = load_f32(delta);
    for (int64_t i = 0; i < n; ++i) out[i] = store_as<T>(s + static_cast<float>(i) * d);
  }
}

class RangeKernel : public SetupKernel<RangeShape, check_range_io> {
 public:
  Status run(const KernelArgs& a) const override {
    return visit_dtype(setup_.dtype, [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      if constexpr (in_group<T>(DTypeGroup::kNumeric)) {  // registered: range_dtypes()
        fill_range(*a.input<T>(0), *a.input<T>(2), a.output<T>(0), setup_.n);
        return Status::ok();
      } else {
        return unexpected_dtype(setup_.dtype);
      }
    });
  }
};

}  // namespace

void register_range_kernels(KernelRegistry& r) {
  r.add_all(graph::OpType::kRange, Backend::kCpu, range_dtypes(), make_factory<RangeKernel>());
}

}  // namespace amp::kernels::cpu
