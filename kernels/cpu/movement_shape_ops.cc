// Shape ops and sources: Shape, Size, ConstantOfShape, Range, Constant.
// Shape, Size and Constant know their whole output at prepare(); run() copies it out.
// ConstantOfShape fills the static output shape with its 'value' element. Range reads
// start and delta at run time (they may be computed) and takes its length from the
// static output shape.
#include <cstring>

#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/movement_common.h"

namespace amp::kernels::cpu {
namespace {

// Copies bytes fixed at prepare() into the output.
class FixedOutputKernel : public Kernel {
 public:
  Status run(const KernelArgs& a) const override {
    if (!bytes_.empty()) std::memcpy(a.outputs[0], bytes_.data(), bytes_.size());
    return Status::ok();
  }

 protected:
  Status set_output(const KernelConfig& cfg, DType dtype, const std::vector<int64_t>& dims,
                    const void* data) {
    const TensorDesc& out = cfg.outputs[0];
    if (out.dtype != dtype || out.dims != dims)
      return invalid_model(op_label(cfg) + ": output is " + std::string(dtype_name(out.dtype)) +
                           dims_to_string(out.dims) + ", expected " +
                           std::string(dtype_name(dtype)) + dims_to_string(dims));
    bytes_.resize(out.bytes());
    if (!bytes_.empty()) std::memcpy(bytes_.data(), data, bytes_.size());
    return Status::ok();
  }

 private:
  std::vector<uint8_t> bytes_;
};

// Shape(data; start, end from opset 15): the selected input dims as i64.
class ShapeKernel : public FixedOutputKernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    const std::vector<int64_t>& dims = cfg.inputs[0].dims;
    const int64_t r = static_cast<int64_t>(dims.size());
    int64_t start = 0, end = r;
    if (cfg.node->op_version >= 15) {
      AMP_ASSIGN_OR_RETURN(start, cfg.node->attrs.get_int("start", 0));
      AMP_ASSIGN_OR_RETURN(end, cfg.node->attrs.get_int("end", r));
    }
    const auto clamp_index = [r](int64_t v) {
      if (v < 0) v += r;
      return std::clamp<int64_t>(v, 0, r);
    };
    start = clamp_index(start);
    end = std::max(clamp_index(end), start);
    std::vector<int64_t> values(dims.begin() + start, dims.begin() + end);
    return set_output(cfg, DType::kI64, {static_cast<int64_t>(values.size())}, values.data());
  }
};

// Size(data): the element count as an i64 scalar.
class SizeKernel : public FixedOutputKernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    const int64_t n = cfg.inputs[0].numel();
    return set_output(cfg, DType::kI64, {}, &n);
  }
};

// Constant: the output is one of the value attributes.
class ConstantKernel : public FixedOutputKernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_ASSIGN_OR_RETURN(const ConstantValue v, read_constant_value(node_attrs(cfg)));
    return set_output(cfg, v.dtype, v.dims, v.bytes.data());
  }
};

// ConstantOfShape(shape): the output filled with the one-element 'value' (default f32 0).
class ConstantOfShapeKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    const TensorDesc& out = cfg.outputs[0];
    AMP_ASSIGN_OR_RETURN(std::optional<graph::TensorData> value,
                         cfg.node->attrs.get_tensor("value"));
    DType dtype = DType::kF32;
    if (value) {
      if (value->numel() != 1)
        return invalid_model("ConstantOfShape: 'value' must hold one element, it has " +
                             std::to_string(value->numel()));
      dtype = value->dtype();
      std::memcpy(&value_, value->bytes(), dtype_size(dtype));
    }
    if (out.dtype != dtype)
      return invalid_model("ConstantOfShape: output dtype " + std::string(dtype_name(out.dtype)) +
                           " differs from the value's " + std::string(dtype_name(dtype)));
    numel_ = out.numel();
    elem_ = dtype_size(dtype);
    return Status::ok();
  }

  Status run(const KernelArgs& a) const override {
    fill_elements(a.outputs[0], &value_, numel_, elem_);
    return Status::ok();
  }

 private:
  uint64_t value_ = 0;  // the element's bytes (0 is zero in every dtype)
  int64_t numel_ = 0;
  size_t elem_ = 0;
};

// Range(start, limit, delta): out[i] = start + i * delta, the length fixed by the output
// shape. Floats compute in fp32 (f64 in f64) and round once on store; integers in int64.
template <typename T>
class RangeKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    for (size_t i = 0; i < 3; ++i)
      if (cfg.inputs.size() <= i || !cfg.inputs[i].present || cfg.inputs[i].numel() != 1)
        return invalid_model("Range: input " + std::to_string(i) + " must be a scalar");
    if (cfg.outputs[0].rank() != 1) return invalid_model("Range: output must be 1-D");
    n_ = cfg.outputs[0].numel();
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

void register_movement_shape_kernels(KernelRegistry& r) {
  using graph::OpType;
  r.add_all(OpType::kShape, Backend::kCpu, all_dtypes(),
            [] { return std::make_unique<ShapeKernel>(); });
  r.add_all(OpType::kSize, Backend::kCpu, all_dtypes(),
            [] { return std::make_unique<SizeKernel>(); });
  // Constant has no inputs: looked up by its output dtype.
  r.add_all(OpType::kConstant, Backend::kCpu, all_dtypes(),
            [] { return std::make_unique<ConstantKernel>(); });
  // ConstantOfShape is looked up by its i64 shape input.
  r.add_all(OpType::kConstantOfShape, Backend::kCpu, {DType::kI64},
            [] { return std::make_unique<ConstantOfShapeKernel>(); });
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
