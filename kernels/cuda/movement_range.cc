// CUDA Range(start, limit, delta), as kernels/cpu/movement_range.cc. (Shape, Size,
// Constant and ConstantOfShape are copy kernels: kernels/common/copy_kernels.h.) Range reads
// start and delta on the device (they may be computed) and takes its length from the static
// output shape.
#include "kernels/common/movement_io.h"
#include "kernels/cuda/movement_cuda.h"

namespace amp::kernels::cuda {
namespace {

// Range(start, limit, delta): out[i] = start + i * delta, the length fixed by the output.
class RangeKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_ASSIGN_OR_RETURN(n_, check_range_io(cfg));
    dtype_ = cfg.outputs[0].dtype;
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

}  // namespace amp::kernels::cuda
