// The Reduce* ops over any set of axes on the GPU (every row of
// kernels/common/reduction_family.def), one kernel template over the table's reducers (map
// on load, step to combine, finish on store).
//
// Semantics mirror kernels/cpu/reduce_axes.cc: axes from the optional constant input 1
// (absent or empty: all axes, or a copy with noop_with_empty_axes=1), keepdims, fp32
// accumulation for f32/f16/bf16 (f64 for f64, int64 for integers: sums wrap to the
// storage type on store, integer means truncate), NaN-propagating Max/Min, ONNX's
// identities for an empty reduced set. Run-time (non-constant) axes are unsupported on
// CUDA: reading them would need a device-to-host copy and a synchronization inside run().
//
// Geometry (ReducePlan, reduce_util.h), two shapes:
//   inner_reduced  each output reduces contiguous runs: one warp (short) or one block
//                  (long) per output, 16-byte vector loads along the runs; runs shorter
//                  than 32 elements are walked as one flattened index space instead, so
//                  lanes are not left idle.
//   inner kept     one thread per output column, accumulating down the reduced rows;
//                  neighbouring threads read neighbouring columns (coalesced).
// When there are too few outputs to fill the GPU and each reduces many elements (ReduceMean
// over a whole tensor), the reduced range is split into `splits` pieces: a first kernel
// writes per-piece partials into the workspace, a second combines them per output.
#include <algorithm>
#include <cstring>

#include "kernels/common/reduction_family.h"
#include "kernels/common/reduction_io.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/reduce_util.h"

namespace amp::kernels::cuda {
namespace {

template <typename T, typename R>
__device__ __forceinline__ T finish(compute_t<T> acc, int64_t count) {
  return from_compute<T>(R::finish(acc, count));
}

struct ReduceParams {
  ReducePlan p;
  int64_t splits = 1;
  int64_t chunk = 0;  // units per split (see the kernels)
  bool flat = false;  // inner_reduced with short runs: flattened indexing
  bool warp_group = true;
};

// inner_reduced: item = (output o, split s). Units per split: flattened j when flat;
// elements of the run when red_count == 1; whole runs (r) otherwise.
template <typename T, typename R>
__global__ void reduce_inner_kernel(const T* __restrict__ x, T* __restrict__ y,
                                    compute_t<T>* __restrict__ partial, ReduceParams rp) {
  using C = compute_t<T>;
  __shared__ C scratch[kWarp];
  const ReducePlan& p = rp.p;
  const StepOp<R> op;
  const C init = R::template init<T>();
  const bool wg = rp.warp_group;
  const int width = wg ? kWarp : static_cast<int>(blockDim.x);
  const int lane = wg ? static_cast<int>(threadIdx.x) % kWarp : static_cast<int>(threadIdx.x);
  const int64_t per_block = wg ? blockDim.x / kWarp : 1;
  const int64_t items = p.kept_count * rp.splits;
  for (int64_t item = blockIdx.x * per_block + (wg ? threadIdx.x / kWarp : 0); item < items;
       item += static_cast<int64_t>(gridDim.x) * per_block) {
    const int64_t o = item % p.kept_count;
    const int64_t s = item / p.kept_count;
    const T* base = x + offset_of(o, p.kept_dims, p.kept_strides, p.n_kept);
    C acc = init;
    auto add = [&](int64_t, C v) { acc = op(acc, R::map(v)); };
    if (rp.flat) {
      const int64_t total = p.red_count * p.inner;
      const int64_t j0 = s * rp.chunk;
      const int64_t j1 = min64(total, j0 + rp.chunk);
      for (int64_t j = j0 + lane; j < j1; j += width) {
        const int64_t r = j / p.inner, i = j % p.inner;
        acc =
            op(acc, R::map(to_compute(base[offset_of(r, p.red_dims, p.red_strides, p.n_red) + i])));
      }
    } else if (p.red_count == 1) {
      const int64_t i0 = s * rp.chunk;
      const int64_t i1 = min64(p.inner, i0 + rp.chunk);
      if (i1 > i0) visit_row(base + i0, i1 - i0, lane, width, add);
    } else {
      const int64_t r0 = s * rp.chunk;
      const int64_t r1 = min64(p.red_count, r0 + rp.chunk);
      for (int64_t r = r0; r < r1; ++r)
        visit_row(base + offset_of(r, p.red_dims, p.red_strides, p.n_red), p.inner, lane, width,
                  add);
    }
    acc = group_reduce(acc, op, init, scratch, wg);
    if (lane == 0) {
      if (rp.splits == 1)
        y[o] = finish<T, R>(acc, p.reduce_size);
      else
        partial[s * p.kept_count + o] = acc;
    }
  }
}

// Inner dim kept: one thread per (output column o, split s), o = row * inner + c.
template <typename T, typename R>
__global__ void reduce_outer_kernel(const T* __restrict__ x, T* __restrict__ y,
                                    compute_t<T>* __restrict__ partial, ReduceParams rp) {
  using C = compute_t<T>;
  const ReducePlan& p = rp.p;
  const StepOp<R> op;
  const int64_t n_out = p.kept_count * p.inner;
  const int64_t total = n_out * rp.splits;
  for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < total;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t o = t % n_out;
    const int64_t s = t / n_out;
    const int64_t row = o / p.inner, c = o % p.inner;
    const T* base = x + offset_of(row, p.kept_dims, p.kept_strides, p.n_kept) + c;
    const int64_t r0 = s * rp.chunk;
    const int64_t r1 = min64(p.red_count, r0 + rp.chunk);
    C acc = R::template init<T>();
    for (int64_t r = r0; r < r1; ++r)
      acc = op(acc, R::map(to_compute(base[offset_of(r, p.red_dims, p.red_strides, p.n_red)])));
    if (rp.splits == 1)
      y[o] = finish<T, R>(acc, p.reduce_size);
    else
      partial[s * n_out + o] = acc;
  }
}

// Combines the partials [splits, n_out] of the split kernels into the outputs.
template <typename T, typename R>
__global__ void reduce_combine_kernel(const compute_t<T>* __restrict__ partial, T* __restrict__ y,
                                      int64_t n_out, int64_t splits, int64_t count) {
  using C = compute_t<T>;
  const StepOp<R> op;
  for (int64_t o = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; o < n_out;
       o += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    C acc = R::template init<T>();
    for (int64_t s = 0; s < splits; ++s) acc = op(acc, partial[s * n_out + o]);
    y[o] = finish<T, R>(acc, count);
  }
}

// Chooses splits and group size for a plan (header comment).
ReduceParams make_params(const ReducePlan& p, int sms) {
  ReduceParams rp;
  rp.p = p;
  const int64_t target_items = 4 * static_cast<int64_t>(sms);  // enough blocks to fill the GPU
  if (p.inner_reduced) {
    rp.flat = p.red_count > 1 && p.inner < kWarp;
    const int64_t work = p.red_count * p.inner;  // elements per output
    int64_t splits = 1;
    if (p.kept_count < target_items && work > 32768)
      splits = std::min<int64_t>((work + 16383) / 16384, (target_items + p.kept_count - 1) /
                                                             std::max<int64_t>(1, p.kept_count));
    if (rp.flat) {
      rp.chunk = (work + splits - 1) / std::max<int64_t>(1, splits);
      rp.chunk = std::max<int64_t>(1, rp.chunk);
    } else if (p.red_count == 1) {
      // Multiples of 256 elements keep every piece's start 16-byte aligned.
      rp.chunk = ((p.inner + splits - 1) / std::max<int64_t>(1, splits) + 255) / 256 * 256;
      rp.chunk = std::max<int64_t>(256, rp.chunk);
    } else {
      rp.chunk = std::max<int64_t>(1, (p.red_count + splits - 1) / std::max<int64_t>(1, splits));
    }
    const int64_t units = rp.flat ? work : (p.red_count == 1 ? p.inner : p.red_count);
    rp.splits = std::max<int64_t>(1, (units + rp.chunk - 1) / rp.chunk);
    rp.warp_group = work / rp.splits <= kWarpRowMax;
  } else {
    const int64_t n_out = p.kept_count * p.inner;
    int64_t splits = 1;
    const int64_t target_threads = target_items * kThreads;
    if (n_out < target_threads && p.red_count >= 256)
      splits = std::min<int64_t>((p.red_count + 63) / 64,
                                 (target_threads + n_out - 1) / std::max<int64_t>(1, n_out));
    rp.chunk = std::max<int64_t>(1, (p.red_count + splits - 1) / std::max<int64_t>(1, splits));
    rp.splits = std::max<int64_t>(1, (p.red_count + rp.chunk - 1) / rp.chunk);
  }
  return rp;
}

template <typename T, typename R>
class ReduceKernel : public Kernel {
  using C = compute_t<T>;

 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_ASSIGN_OR_RETURN(const ReduceAxesShape s, check_reduce_axes_io(cfg, dtype_of<T>()));
    if (s.runtime_axes)
      return unsupported(
          "run-time (non-constant) axes: the CUDA kernel plans the reduction in prepare()");
    in_numel_ = s.in_numel;
    const auto* dev = static_cast<const cuda::DeviceHandles*>(cfg.backend_handle);
    const int sms =
        dev && dev->props.multiProcessorCount > 0 ? dev->props.multiProcessorCount : 132;
    AMP_ASSIGN_OR_RETURN(const ReducePlan plan, plan_constant_axes(s, &copy_));
    params_ = make_params(plan, sms);
    return Status::ok();
  }

  size_t workspace_bytes() const override {
    if (copy_ || params_.splits <= 1) return 0;
    const ReducePlan& p = params_.p;
    const int64_t n_out = p.inner_reduced ? p.kept_count : p.kept_count * p.inner;
    return static_cast<size_t>(n_out * params_.splits) * sizeof(C);
  }

  Status run(const KernelArgs& a) const override {
    const T* x = a.input<T>(0);
    T* y = a.output<T>(0);
    cudaStream_t st = stream_of(a);
    if (copy_) {
      if (in_numel_ > 0)
        AMP_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(y, x, static_cast<size_t>(in_numel_) * sizeof(T),
                                                 cudaMemcpyDeviceToDevice, st));
      return Status::ok();
    }
    const ReducePlan& p = params_.p;
    const int64_t n_out = p.inner_reduced ? p.kept_count : p.kept_count * p.inner;
    if (n_out == 0) return Status::ok();
    C* partial = static_cast<C*>(a.workspace);
    if (p.inner_reduced) {
      const int64_t items = p.kept_count * params_.splits;
      const unsigned blocks =
          params_.warp_group ? blocks_for(items, kThreads / kWarp) : blocks_for(items, 1);
      reduce_inner_kernel<T, R><<<blocks, kThreads, 0, st>>>(x, y, partial, params_);
    } else {
      reduce_outer_kernel<T, R><<<blocks_for(n_out * params_.splits, kThreads), kThreads, 0, st>>>(
          x, y, partial, params_);
    }
    AMP_CUDA_RETURN_IF_ERROR(cudaGetLastError());
    if (params_.splits > 1) {
      reduce_combine_kernel<T, R><<<blocks_for(n_out, kThreads), kThreads, 0, st>>>(
          partial, y, n_out, params_.splits, p.reduce_size);
      AMP_CUDA_RETURN_IF_ERROR(cudaGetLastError());
    }
    return Status::ok();
  }

 private:
  int64_t in_numel_ = 0;
  bool copy_ = false;
  ReduceParams params_;
};

}  // namespace

void register_reduce_axes_kernels(KernelRegistry& r) {
  add_reduction_family<ReduceKernel>(r, Backend::kCuda);
}

}  // namespace amp::kernels::cuda
