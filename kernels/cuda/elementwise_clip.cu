// CUDA Clip(X, min, max) on float and integer storage. Mirrors kernels/cpu/elementwise_clip.cc:
// min and max are optional scalar inputs; constant bounds are read once in prepare(),
// run-time ones on the device at each run. A missing bound is -Inf / +Inf (the type's range
// for integers); min > max gives max everywhere; NaN stays NaN. Output 0 may overwrite
// input 0.
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/common/clip_bounds.h"
#include "kernels/cuda/elementwise_device.h"

namespace amp::kernels::cuda {
namespace {

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
  ClipBounds bounds_;
};

}  // namespace

void register_clip_kernels(KernelRegistry& r) {
  r.add_all(graph::OpType::kClip, Backend::kCuda, numeric_dtypes(), make_factory<ClipKernel>(), 0);
}

}  // namespace amp::kernels::cuda
