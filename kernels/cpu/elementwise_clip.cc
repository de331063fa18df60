// Clip(X, min, max) on float and integer storage. min and max are optional scalar inputs
// (the importer turns opset < 11 attributes into constant inputs); constant bounds are
// read once in prepare(), runtime ones at each run. A missing bound is -Inf / +Inf (the
// type's range for integers). min > max gives max everywhere; NaN stays NaN.
#include <cstring>
#include <limits>

#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/elementwise_cpu.h"

namespace amp::kernels::cpu {
namespace {

template <typename T>
T read_scalar(const void* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

struct Bound {
  bool present = false;
  bool constant = false;
  alignas(8) uint8_t bytes[8] = {};  // the constant's value, in the input's dtype
};

class ClipKernel final : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_RETURN_IF_ERROR(check_arity(cfg, 1, 3));
    dtype_ = cfg.inputs[0].dtype;
    if (!is_float(dtype_) && !is_integer(dtype_))
      return unsupported("dtype " + std::string(dtype_name(dtype_)) + " is not supported");
    AMP_RETURN_IF_ERROR(check_output_dtype(cfg, dtype_));
    if (cfg.outputs[0].dims != cfg.inputs[0].dims)
      return invalid_model("output shape differs from the input's");
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
  Bound bounds_[2];
};

}  // namespace

void register_elementwise_clip(KernelRegistry& r) {
  r.add_all(graph::OpType::kClip, Backend::kCpu, numeric_dtypes(), make_factory<ClipKernel>(), 0);
}

}  // namespace amp::kernels::cpu
