// GlobalAveragePool and GlobalMaxPool on the GPU: [N, C, D1..Dk] -> [N, C, 1..1], the mean
// or the (NaN-propagating) max over the spatial dims, which are contiguous per (n, c) plane
// (kernels/cpu/reduce_global_pool.cc). One warp
// per plane when the plane has <= 1024 elements (ResNet's 7x7 head), else one block;
// 16-byte loads, fp32 sums (f64 for f64), one rounding on store.
#include "kernels/common/checked_kernel.h"
#include "kernels/common/reduction_family.h"
#include "kernels/common/reduction_io.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/reduce_util.h"

namespace amp::kernels::cuda {
namespace {

template <typename T>
__global__ void global_pool_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t planes,
                                   int64_t spatial, bool is_max, bool warp_group) {
  using C = compute_t<T>;
  __shared__ C scratch[kWarp];
  const int width = warp_group ? kWarp : static_cast<int>(blockDim.x);
  const int lane =
      warp_group ? static_cast<int>(threadIdx.x) % kWarp : static_cast<int>(threadIdx.x);
  const int64_t per_block = warp_group ? blockDim.x / kWarp : 1;
  for (int64_t p = blockIdx.x * per_block + (warp_group ? threadIdx.x / kWarp : 0); p < planes;
       p += static_cast<int64_t>(gridDim.x) * per_block) {
    if (is_max) {
      const C lowest = reduction::lowest_of<T>();
      C m = lowest;
      visit_row(x + p * spatial, spatial, lane, width,
                [&](int64_t, C v) { m = reduce_max_step(m, v); });
      m = group_reduce(m, MaxOp{}, lowest, scratch, warp_group);
      if (lane == 0) y[p] = from_compute<T>(m);
    } else {
      C sum = C(0);
      visit_row(x + p * spatial, spatial, lane, width, [&](int64_t, C v) { sum += v; });
      sum = group_reduce(sum, SumOp{}, C(0), scratch, warp_group);
      if (lane == 0) y[p] = from_compute<T>(reduce_mean_finish(sum, spatial));
    }
  }
}

template <typename T>
class GlobalPoolKernel : public CheckedKernel<T, GlobalPoolShape, check_global_pool_io> {
 public:
  Status run(const KernelArgs& a) const override {
    if (this->shape_.planes == 0) return Status::ok();
    const bool warp_group = this->shape_.spatial <= kWarpRowMax;
    const unsigned blocks = warp_group ? blocks_for(this->shape_.planes, kThreads / kWarp)
                                       : blocks_for(this->shape_.planes, 1);
    global_pool_kernel<T>
        <<<blocks, kThreads, 0, stream_of(a)>>>(a.input<T>(0), a.output<T>(0), this->shape_.planes,
                                                this->shape_.spatial, this->shape_.max, warp_group);
    AMP_CUDA_RETURN_IF_ERROR(cudaGetLastError());
    return Status::ok();
  }
};

}  // namespace

void register_global_pool_kernels(KernelRegistry& r) {
  add_typed_kernels<GlobalPoolKernel>(r, graph::OpType::kGlobalAveragePool, Backend::kCuda,
                                      reduction::FloatTypes{});
  add_typed_kernels<GlobalPoolKernel>(r, graph::OpType::kGlobalMaxPool, Backend::kCuda,
                                      reduction::FloatTypes{});
}

}  // namespace amp::kernels::cuda
