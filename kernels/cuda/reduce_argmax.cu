// ArgMax and ArgMin on the GPU: the index (i64) of the largest (smallest) element along
// `axis` (default 0), keepdims (default 1), select_last_index (default 0: the first of
// equal extremes). NaN counts as the extreme (numpy.argmax/argmin), exactly as
// kernels/cpu/reduce_argmax.cc: each thread scans its elements in increasing index order
// with the shared arg_takes() step, and partial results merge with the same preference
// (the more extreme value; NaN beyond everything; ties to the smaller index, or the larger
// with select_last).
//
// Geometry: input viewed as [outer, len, inner]. inner == 1: one warp (len <= 1024) or one
// block per row. inner > 1: one thread per (outer, inner) column scanning down the axis;
// neighbouring threads read neighbouring columns.
#include "kernels/common/checked_kernel.h"
#include "kernels/common/reduction_family.h"
#include "kernels/common/reduction_io.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/reduce_util.h"

namespace amp::kernels::cuda {
namespace {

// Whether candidate (v, i) beats the current (best, bi); bi < 0 means "nothing yet".
template <typename C>
__device__ __forceinline__ bool arg_better(C v, int64_t i, C best, int64_t bi, bool last,
                                           bool smallest) {
  if (i < 0) return false;
  if (bi < 0) return true;
  const bool nv = is_nan_value(v), nb = is_nan_value(best);
  if (nv || nb) {
    if (nv && nb) return last ? i > bi : i < bi;
    return nv;
  }
  if (smallest ? v < best : v > best) return true;
  if (smallest ? v > best : v < best) return false;
  return last ? i > bi : i < bi;
}

template <typename T>
__global__ void argmax_rows_kernel(const T* __restrict__ x, int64_t* __restrict__ y, int64_t outer,
                                   int64_t len, bool last, bool smallest, bool warp_group) {
  using C = compute_t<T>;
  __shared__ C s_val[kWarp];
  __shared__ int64_t s_idx[kWarp];
  const int width = warp_group ? kWarp : static_cast<int>(blockDim.x);
  const int lane =
      warp_group ? static_cast<int>(threadIdx.x) % kWarp : static_cast<int>(threadIdx.x);
  const int64_t per_block = warp_group ? blockDim.x / kWarp : 1;
  for (int64_t row = blockIdx.x * per_block + (warp_group ? threadIdx.x / kWarp : 0); row < outer;
       row += static_cast<int64_t>(gridDim.x) * per_block) {
    const T* xr = x + row * len;
    C best = C(0);
    int64_t bi = -1;
    // Each thread sees its indices in increasing order, so the shared CPU step applies.
    visit_row(xr, len, lane, width, [&](int64_t i, C v) {
      if (bi < 0 || arg_takes(v, best, last, smallest)) {
        best = v;
        bi = i;
      }
    });
    // Warp merge.
    for (int d = kWarp / 2; d > 0; d /= 2) {
      const C ov = shfl_down(best, d);
      const int64_t oi = shfl_down(bi, d);
      if (arg_better(ov, oi, best, bi, last, smallest)) {
        best = ov;
        bi = oi;
      }
    }
    if (!warp_group) {
      const int w = threadIdx.x / kWarp;
      const int warps = blockDim.x / kWarp;
      __syncthreads();
      if (lane % kWarp == 0) {
        s_val[w] = best;
        s_idx[w] = bi;
      }
      __syncthreads();
      if (w == 0) {
        best = lane < warps ? s_val[lane] : C(0);
        bi = lane < warps ? s_idx[lane] : -1;
        for (int d = kWarp / 2; d > 0; d /= 2) {
          const C ov = shfl_down(best, d);
          const int64_t oi = shfl_down(bi, d);
          if (arg_better(ov, oi, best, bi, last, smallest)) {
            best = ov;
            bi = oi;
          }
        }
      }
    }
    if (lane == 0) y[row] = bi < 0 ? 0 : bi;
  }
}

template <typename T>
__global__ void argmax_columns_kernel(const T* __restrict__ x, int64_t* __restrict__ y,
                                      int64_t outer, int64_t len, int64_t inner, bool last,
                                      bool smallest) {
  using C = compute_t<T>;
  const int64_t n = outer * inner;
  for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < n;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t o = t / inner, c = t % inner;
    const T* base = x + o * len * inner + c;
    C best = to_compute(base[0]);
    int64_t idx = 0;
    for (int64_t i = 1; i < len; ++i) {
      const C v = to_compute(base[i * inner]);
      if (arg_takes(v, best, last, smallest)) {
        best = v;
        idx = i;
      }
    }
    y[t] = idx;
  }
}

template <typename T>
class ArgMaxKernel : public CheckedKernel<T, ArgReduceShape, check_arg_reduce_io> {
 public:
  Status run(const KernelArgs& a) const override {
    if (this->shape_.outer * this->shape_.inner == 0) return Status::ok();
    const T* x = a.input<T>(0);
    int64_t* y = a.output<int64_t>(0);
    cudaStream_t st = stream_of(a);
    if (this->shape_.inner == 1) {
      const bool warp_group = this->shape_.len <= kWarpRowMax;
      const unsigned blocks = warp_group ? blocks_for(this->shape_.outer, kThreads / kWarp)
                                         : blocks_for(this->shape_.outer, 1);
      argmax_rows_kernel<T><<<blocks, kThreads, 0, st>>>(x, y, this->shape_.outer, this->shape_.len,
                                                         this->shape_.select_last_index,
                                                         this->shape_.smallest, warp_group);
    } else {
      argmax_columns_kernel<T>
          <<<blocks_for(this->shape_.outer * this->shape_.inner, kThreads), kThreads, 0, st>>>(
              x, y, this->shape_.outer, this->shape_.len, this->shape_.inner,
              this->shape_.select_last_index, this->shape_.smallest);
    }
    AMP_CUDA_RETURN_IF_ERROR(cudaGetLastError());
    return Status::ok();
  }
};

}  // namespace

void register_argmax_kernels(KernelRegistry& r) {
  add_typed_kernels<ArgMaxKernel>(r, graph::OpType::kArgMax, Backend::kCuda,
                                  reduction::ArgMaxTypes{});
  add_typed_kernels<ArgMaxKernel>(r, graph::OpType::kArgMin, Backend::kCuda,
                                  reduction::ArgMaxTypes{});
}

}  // namespace amp::kernels::cuda
