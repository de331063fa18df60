// Clip(X, min, max) on float and integer storage. min and max are optional scalar inputs
// (the importer turns opset < 11 attributes into constant inputs); constant bounds are
// read once in prepare(), runtime ones at each run. A missing bound is -Inf / +Inf (the
// type's range for integers). min > max gives max everywhere; NaN stays NaN.
#include <cstring>
#include <limits>

#include "kernels/common/clip_bounds.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/elementwise_cpu.h"

namespace amp::kernels::cpu {
namespace {

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
      if constexpr (ew::kIsFloatStorage<T> || std::is_integral_v<T>) {
        using C = ew::compute_t<T>;
        C lo, hi;
        if constexpr (std::is_integral_v<T>) {
          lo = std::numeric_limits<T>::lowest();
          hi = std::numeric_limits<T>::max();
        } else {
          lo = -std::numeric_limits<C>::infinity();
          hi = std::numeric_limits<C>::infinity();
        }
        if (bounds_[0].present) lo = ew::load(read_scalar<T>(bound_ptr(0, a)));
        if (bounds_[1].present) hi = ew::load(read_scalar<T>(bound_ptr(1, a)));
        const ew::Clip<C> clip{lo, hi};
        unary_loop(a.input<T>(0), a.output<T>(0), n_, a.num_threads,
                   [clip](T x) { return ew::store<T>(clip(ew::load(x))); });
        return Status::ok();
      } else {
        return unexpected_dtype(dtype_);
      }
    });
  }

 private:
  const void* bound_ptr(int k, const KernelArgs& a) const {
    return bounds_[k].constant ? static_cast<const void*>(bounds_[k].bytes) : a.inputs[k + 1];
  }

  DType dtype_ = DType::kUndefined;
  int64_t n_ = 0;
  ClipBounds bounds_;
};

}  // namespace

void register_clip_kernels(KernelRegistry& r) {
  r.add_all(graph::OpType::kClip, Backend::kCpu, numeric_dtypes(), make_factory<ClipKernel>(), 0);
}

}  // namespace amp::kernels::cpu
