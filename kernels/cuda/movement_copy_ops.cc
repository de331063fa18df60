// The copy ops (views, Transpose, DepthToSpace, Expand) on CUDA: kernels/common/
// copy_kernels.h over CUDA's copy plan (movement_copy.cu) and a device-to-device copy. Axes
// contiguous in the input merge, so e.g. NCHW -> NHWC becomes a 3-D copy; when the innermost output
// axis stays contiguous the copy moves up to 16 bytes per thread.
#include "kernels/common/copy_kernels.h"
#include "kernels/cuda/movement_cuda.h"

namespace amp::kernels::cuda_mv {
namespace {

struct CudaStridedCopy {
  static constexpr int kMaxRank = cuda_mv::kMaxRank;
  using Plan = CopyPlan;
  static Plan make_plan(int rank, const int64_t* dims, const int64_t* src_strides) {
    return make_copy_plan(rank, dims, src_strides, 0);
  }
  static Status copy(const Plan& plan, const KernelArgs& a, size_t elem_size) {
    return launch_copy_plan(plan, a.inputs[0], a.outputs[0], elem_size,
                            static_cast<cudaStream_t>(a.stream));
  }
  static Status copy_bytes(void* dst, const void* src, size_t bytes, const KernelArgs& a) {
    return cuda_mv::copy_bytes(dst, src, bytes, static_cast<cudaStream_t>(a.stream));
  }
};

}  // namespace

void register_movement_copy_kernels(KernelRegistry& r) {
  register_copy_kernels<CudaStridedCopy>(r, Backend::kCuda);
}

}  // namespace amp::kernels::cuda_mv
