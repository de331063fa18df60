// CUDA Gather(data, indices; axis), mirroring kernels/cpu/movement_slice_gather.cc: one
// inner block per (outer, index), the indices (i32 or i64) read on the device. Negative
// indices count from the end. The CPU rejects an index outside [-dim, dim) with
// invalid_input; a kernel cannot return a Status without synchronizing, so here such an
// index yields zeros in its output block (see launch_gather).
#include "kernels/common/checked_kernel.h"
#include "kernels/common/movement_io.h"
#include "kernels/cuda/movement_cuda.h"

namespace amp::kernels::cuda {
namespace {

class GatherKernel : public SetupKernel<GatherLayout, check_gather_io> {
 public:
  Status run(const KernelArgs& a) const override {
    return launch_gather(a.inputs[0], a.inputs[1], setup_.idx_dtype, a.outputs[0], setup_.outer,
                         setup_.dim, setup_.n_idx, setup_.inner, setup_.elem_size,
                         static_cast<cudaStream_t>(a.stream));
  }
};

}  // namespace

void register_gather_kernels(KernelRegistry& r) {
  add_any_dtype_kernel<GatherKernel>(r, graph::OpType::kGather, Backend::kCuda);
}

}  // namespace amp::kernels::cuda
