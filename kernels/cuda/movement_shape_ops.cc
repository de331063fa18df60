// CUDA shape ops and sources: Shape, Size, ConstantOfShape, Range, Constant, mirroring
// kernels/cpu/movement_shape_ops.cc. Shape, Size and Constant know their whole output at
// prepare(): the bytes are kept in the kernel (immutable after prepare, so run() stays const
// and thread-safe) and written by write_host_bytes. ConstantOfShape fills the static output
// shape with its 'value' element. Range reads start and delta on the device (they may be
// computed) and takes its length from the static output shape.
#include <algorithm>
#include <cstring>
#include <optional>

#include "kernels/common/fixed_output.h"
#include "kernels/cuda/movement_cuda.h"

namespace amp::kernels::cuda_mv {
namespace {

// Shape, Size and Constant: writes the bytes fixed at prepare() (common/fixed_output.h).
class FixedOutputKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_ASSIGN_OR_RETURN(bytes_, fixed_output_bytes(cfg));
    return Status::ok();
  }
  Status run(const KernelArgs& a) const override {
    return write_host_bytes(a.outputs[0], bytes_, static_cast<cudaStream_t>(a.stream));
  }

 private:
  std::vector<uint8_t> bytes_;
};

// ConstantOfShape(shape): the output filled with the recorded element.
class ConstantOfShapeKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_ASSIGN_OR_RETURN(fill_, constant_of_shape_fill(cfg));
    return Status::ok();
  }
  Status run(const KernelArgs& a) const override {
    return launch_fill(a.outputs[0], fill_.bits, fill_.numel, fill_.elem_size,
                       static_cast<cudaStream_t>(a.stream));
  }

 private:
  FillElement fill_;
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
  r.add_all(OpType::kShape, kCuda, all_dtypes(),
            [] { return std::make_unique<FixedOutputKernel>(); });
  r.add_all(OpType::kSize, kCuda, all_dtypes(),
            [] { return std::make_unique<FixedOutputKernel>(); });
  // Constant has no inputs: looked up by its output dtype.
  r.add_all(OpType::kConstant, kCuda, all_dtypes(),
            [] { return std::make_unique<FixedOutputKernel>(); });
  // ConstantOfShape is looked up by its i64 shape input.
  r.add_all(OpType::kConstantOfShape, kCuda, {DType::kI64},
            [] { return std::make_unique<ConstantOfShapeKernel>(); });
  r.add_all(
      OpType::kRange, kCuda,
      {DType::kF32, DType::kF16, DType::kBF16, DType::kF64, DType::kI64, DType::kI32, DType::kI16},
      [] { return std::make_unique<RangeKernel>(); });
}

}  // namespace amp::kernels::cuda_mv
