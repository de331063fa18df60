// CUDA shape ops and sources: Shape, Size, ConstantOfShape, Range, Constant, mirroring
// kernels/cpu/movement_shape_ops.cc. Shape, Size and Constant know their whole output at
// prepare(): the bytes are kept in the kernel (immutable after prepare, so run() stays const
// and thread-safe) and written by write_host_bytes. ConstantOfShape fills the static output
// shape with its 'value' element. Range reads start and delta on the device (they may be
// computed) and takes its length from the static output shape.
#include <algorithm>
#include <cstring>
#include <optional>

#include "kernels/cuda/movement_cuda.h"

namespace amp::kernels::cuda_mv {
namespace {

// Writes bytes fixed at prepare() into the output.
class FixedOutputKernel : public Kernel {
 public:
  Status run(const KernelArgs& a) const override {
    return write_host_bytes(a.outputs[0], bytes_, static_cast<cudaStream_t>(a.stream));
  }

 protected:
  Status set_output(const KernelConfig& cfg, DType dtype, const std::vector<int64_t>& dims,
                    const void* data) {
    if (cfg.outputs.empty() || !cfg.outputs[0].present)
      return invalid_model(op_label(cfg) + ": needs an output");
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
    if (cfg.inputs.empty()) return invalid_model("Shape: needs an input");
    const std::vector<int64_t>& dims = cfg.inputs[0].dims;
    const int64_t r = static_cast<int64_t>(dims.size());
    int64_t start = 0, end = r;
    if (cfg.node && cfg.node->op_version >= 15) {
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
    if (cfg.inputs.empty()) return invalid_model("Size: needs an input");
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
    if (cfg.outputs.empty() || !cfg.outputs[0].present)
      return invalid_model("ConstantOfShape: needs an output");
    const TensorDesc& out = cfg.outputs[0];
    AMP_ASSIGN_OR_RETURN(std::optional<graph::TensorData> value,
                         node_attrs(cfg).get_tensor("value"));
    DType dtype = DType::kF32;
    value_ = 0;
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
    return launch_fill(a.outputs[0], value_, numel_, elem_, static_cast<cudaStream_t>(a.stream));
  }

 private:
  uint64_t value_ = 0;  // the element's bytes (0 is zero in every dtype)
  int64_t numel_ = 0;
  size_t elem_ = 0;
};

// Range(start, limit, delta): out[i] = start + i * delta, the length fixed by the output.
class RangeKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    for (size_t i = 0; i < 3; ++i)
      if (cfg.inputs.size() <= i || !cfg.inputs[i].present || cfg.inputs[i].numel() != 1)
        return invalid_model("Range: input " + std::to_string(i) + " must be a scalar");
    if (cfg.outputs.empty() || !cfg.outputs[0].present || cfg.outputs[0].rank() != 1)
      return invalid_model("Range: output must be 1-D");
    dtype_ = cfg.outputs[0].dtype;
    if (cfg.inputs[0].dtype != dtype_ || cfg.inputs[2].dtype != dtype_)
      return invalid_model("Range: start and delta must have the output's dtype " +
                           std::string(dtype_name(dtype_)));
    n_ = cfg.outputs[0].numel();
    return Status::ok();
  }

  Status run(const KernelArgs& a) const override {
    return launch_range(dtype_, a.inputs[0], a.inputs[2], a.outputs[0], n_,
                        static_cast<cudaStream_t>(a.stream));
  }

 private:
  DType dtype_ = DType::kUndefined;
  int64_t n_ = 0;
};

}  // namespace

void register_shape_kernels(KernelRegistry& r) {
  using graph::OpType;
  const Backend kCuda = Backend::kCuda;
  r.add_all(OpType::kShape, kCuda, all_dtypes(), [] { return std::make_unique<ShapeKernel>(); });
  r.add_all(OpType::kSize, kCuda, all_dtypes(), [] { return std::make_unique<SizeKernel>(); });
  // Constant has no inputs: looked up by its output dtype.
  r.add_all(OpType::kConstant, kCuda, all_dtypes(),
            [] { return std::make_unique<ConstantKernel>(); });
  // ConstantOfShape is looked up by its i64 shape input.
  r.add_all(OpType::kConstantOfShape, kCuda, {DType::kI64},
            [] { return std::make_unique<ConstantOfShapeKernel>(); });
  r.add_all(
      OpType::kRange, kCuda,
      {DType::kF32, DType::kF16, DType::kBF16, DType::kF64, DType::kI64, DType::kI32, DType::kI16},
      [] { return std::make_unique<RangeKernel>(); });
}

}  // namespace amp::kernels::cuda_mv
