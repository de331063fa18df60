// The row normalization shared by LayerNormalization and RMSNormalization (norm_layer.cu)
// and InstanceNormalization (norm_instance.cu): X viewed as [rows, n], each row normalized
// with its own mean (0 with `rms`) and variance, then y = (x - mean) * inv_std * scale + bias with
// the parameters supplied per (row, element) by a small policy struct.
//
// Statistics are two-pass like the CPU (mean, then the mean of squared deviations; never
// E[x^2] - E[x]^2), with fp32 sums (f64 for f64) reduced across a warp (n <= 1024) or a
// block; three reads of each row, the last two from L1/L2. Included by .cu files only.
#pragma once

#include "kernels/cuda/reduce_util.h"

namespace amp::kernels::cuda {

// Optional statistics outputs (LayerNormalization's Mean and InvStdDev): nullptr when
// absent; any float dtype.
struct StatOutputs {
  void* mean = nullptr;
  DType mean_dtype = DType::kUndefined;
  void* inv_std = nullptr;
  DType inv_dtype = DType::kUndefined;
};

// Params must provide  C scale(int64_t row, int64_t i) const  and  C bias(row, i) const.
template <typename T, typename Params>
__global__ void normalize_rows_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t rows,
                                      int64_t n, compute_t<T> eps, Params prm, StatOutputs stats,
                                      bool rms, bool warp_group) {
  using C = compute_t<T>;
  __shared__ C scratch[kWarp];
  const int width = warp_group ? kWarp : static_cast<int>(blockDim.x);
  const int lane =
      warp_group ? static_cast<int>(threadIdx.x) % kWarp : static_cast<int>(threadIdx.x);
  const int64_t per_block = warp_group ? blockDim.x / kWarp : 1;
  for (int64_t row = blockIdx.x * per_block + (warp_group ? threadIdx.x / kWarp : 0); row < rows;
       row += static_cast<int64_t>(gridDim.x) * per_block) {
    const T* xr = x + row * n;
    T* yr = y + row * n;
    C mean = C(0);
    if (!rms) {
      C sum = C(0);
      visit_row(xr, n, lane, width, [&](int64_t, C v) { sum += v; });
      mean = group_reduce(sum, SumOp{}, C(0), scratch, warp_group) / static_cast<C>(n);
    }
    C sq = C(0);
    visit_row(xr, n, lane, width, [&](int64_t, C v) { sq += squared_deviation(v, mean); });
    const C var = group_reduce(sq, SumOp{}, C(0), scratch, warp_group) / static_cast<C>(n);
    const C inv = inv_std_dev(var, eps);
    visit_row(xr, n, lane, width, [&](int64_t i, C v) {
      yr[i] = from_compute<T>(normalize_value(v, mean, inv, prm.scale(row, i), prm.bias(row, i)));
    });
    if (lane == 0) {
      if (stats.mean) store_float_any(stats.mean_dtype, stats.mean, row, static_cast<double>(mean));
      if (stats.inv_std)
        store_float_any(stats.inv_dtype, stats.inv_std, row, static_cast<double>(inv));
    }
  }
}

template <typename T, typename Params>
Status launch_normalize_rows(const T* x, T* y, int64_t rows, int64_t n, compute_t<T> eps,
                             const Params& prm, const StatOutputs& stats, cudaStream_t st,
                             bool rms = false) {
  if (rows == 0) return Status::ok();
  const bool warp_group = n <= kWarpRowMax;
  const unsigned blocks = warp_group ? blocks_for(rows, kThreads / kWarp) : blocks_for(rows, 1);
  normalize_rows_kernel<T, Params>
      <<<blocks, kThreads, 0, st>>>(x, y, rows, n, eps, prm, stats, rms, warp_group);
  AMP_CUDA_RETURN_IF_ERROR(cudaGetLastError());
  return Status::ok();
}

}  // namespace amp::kernels::cuda
