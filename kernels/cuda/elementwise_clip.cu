// CUDA Clip(X, min, max) on float and integer storage. Mirrors kernels/cpu/elementwise_clip.cc:
// min and max are optional scalar inputs; constant bounds are read once in prepare(),
// run-time ones on the device at each run. A missing bound is -Inf / +Inf (the type's range
// for integers); min > max gives max everywhere; NaN stays NaN. Output 0 may overwrite
// input 0.
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/cuda/elementwise_device.h"

namespace amp::kernels::cuda_ew {
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

void register_clip(KernelRegistry& r) {
  r.add_all(graph::OpType::kClip, Backend::kCuda, numeric_dtypes(), make_factory<ClipKernel>(), 0);
}

}  // namespace amp::kernels::cuda_ew
