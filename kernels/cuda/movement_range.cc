// CUDA Range(start, limit, delta), as kernels/cpu/movement_range.cc. (Shape, Size,
// Constant and ConstantOfShape are copy kernels: kernels/common/copy_kernels.h.) Range reads
// start and delta on the device (they may be computed) and takes its length from the static
// output shape.
#include "kernels/common/checked_kernel.h"
#include "kernels/common/dtype_dispatch.h"
#include "kernels/common/movement_io.h"
#include "kernels/cuda/movement_cuda.h"

namespace amp::kernels::cuda {
namespace {

// Range(start, limit, delta): out[i] = start + i * delta, the length fixed by the output.
class RangeKernel : public SetupKernel<RangeShape, check_range_io> {
 public:
  Status run(const KernelArgs& a) const override {
    return launch_range(setup_.dtype, a.inputs[0], a.inputs[2], a.outputs[0], setup_.n,
                        static_cast<cudaStream_t>(a.stream));
  }
};

}  // namespace

void register_range_kernels(KernelRegistry& r) {
  r.add_all(graph::OpType::kRange, Backend::kCuda, range_dtypes(), make_factory<RangeKernel>());
}

}  // namespace amp::kernels::cuda
