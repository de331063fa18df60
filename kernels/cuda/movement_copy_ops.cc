// The copy ops (views, Transpose, DepthToSpace, Expand, Tile, Shape, Size, Constant,
// ConstantOfShape) on CUDA: kernels/common/copy_kernels.h over CUDA's copy plan, tile and
// fill kernels (movement_copy.cu) and device copies. Axes
// contiguous in the input merge, so e.g. NCHW -> NHWC becomes a 3-D copy; when the innermost output
// axis stays contiguous the copy moves up to 16 bytes per thread.
#include "kernels/common/copy_kernels.h"
#include "kernels/cuda/movement_cuda.h"

namespace amp::kernels::cuda {
namespace {

struct CudaCopy {
  static constexpr int kMaxRank = cuda::kMaxRank;
  using Plan = CopyPlan;
  static Plan make_plan(int rank, const int64_t* dims, const int64_t* src_strides) {
    return make_copy_plan(rank, dims, src_strides, 0);
  }
  static Status copy(const Plan& plan, const KernelArgs& a, size_t elem_size) {
    return launch_copy_plan(plan, a.inputs[0], a.outputs[0], elem_size, stream(a));
  }
  static Status copy_bytes(void* dst, const void* src, size_t bytes, const KernelArgs& a) {
    return cuda::copy_bytes(dst, src, bytes, stream(a));
  }
  static Status tile(const KernelArgs& a, int rank, const int64_t* in_dims, const int64_t* out_dims,
                     size_t elem_size) {
    return launch_tile(a.inputs[0], a.outputs[0], rank, in_dims, out_dims, elem_size, stream(a));
  }
  static Status write_bytes(void* dst, const std::vector<uint8_t>& host, const KernelArgs& a) {
    return write_host_bytes(dst, host, stream(a));
  }
  static Status fill(void* dst, uint64_t bits, int64_t count, size_t elem_size,
                     const KernelArgs& a) {
    return launch_fill(dst, bits, count, elem_size, stream(a));
  }
  static cudaStream_t stream(const KernelArgs& a) { return static_cast<cudaStream_t>(a.stream); }
};

}  // namespace

void register_copy_kernels(KernelRegistry& r) {
  add_copy_kernels<CudaCopy>(r, Backend::kCuda);
}

}  // namespace amp::kernels::cuda
