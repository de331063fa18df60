// CUDA Range(start, limit, delta), as kernels/cpu/movement_range.cc. (Shape, Size,
// Constant and ConstantOfShape are copy kernels: kernels/common/copy_kernels.h.) Range reads
// start and delta on the device (they may be computed) and takes its length from the static
// output shape.
#include <algorithm>
#include <cstring>
#include <optional>

#include "kernels/cuda/movement_cuda.h"

namespace amp::kernels::cuda_mv {
namespace {

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

void register_range_kernels(KernelRegistry& r) {
  using graph::OpType;
  const Backend kCuda = Backend::kCuda;
  r.add_all(
      OpType::kRange, kCuda,
      {DType::kF32, DType::kF16, DType::kBF16, DType::kF64, DType::kI64, DType::kI32, DType::kI16},
      [] { return std::make_unique<RangeKernel>(); });
}

}  // namespace amp::kernels::cuda_mv
