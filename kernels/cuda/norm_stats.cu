// GroupNormalization, MeanVarianceNormalization and LRN on the GPU, mirroring
// kernels/cpu/norm_stats.cc (statistics in double, outputs rounded once). One block per
// group (GroupNormalization) or per slot (MeanVarianceNormalization) sums x and x^2 with a
// shared-memory tree, then writes its elements; LRN is one thread per element.
#include <cmath>

#include "kernels/common/checked_kernel.h"
#include "kernels/common/reduction_family.h"
#include "kernels/common/stat_norm_io.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/reduce_util.h"

namespace amp::kernels::cuda {
namespace {

// Block-wide sums of (a, b) into s_a[0], s_b[0]; every thread reads them after.
__device__ void block_sum2(double a, double b, double* s_a, double* s_b) {
  s_a[threadIdx.x] = a;
  s_b[threadIdx.x] = b;
  __syncthreads();
  for (unsigned w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) {
      s_a[threadIdx.x] += s_a[threadIdx.x + w];
      s_b[threadIdx.x] += s_b[threadIdx.x + w];
    }
    __syncthreads();
  }
}

template <typename T>
__device__ __forceinline__ double dval(T v) {
  return static_cast<double>(to_compute(v));
}

template <typename T>
__global__ void group_norm_kernel(const T* __restrict__ x, const T* __restrict__ scale,
                                  const T* __restrict__ bias, T* __restrict__ y, GroupNormShape s) {
  __shared__ double s_sum[kThreads], s_sq[kThreads];
  const int64_t cpg = s.c / s.groups, block = cpg * s.spatial;
  for (int64_t item = blockIdx.x; item < s.n * s.groups; item += gridDim.x) {
    const int64_t g = item % s.groups;
    const T* xb = x + item * block;
    T* yb = y + item * block;
    double sum = 0.0, sq = 0.0;
    for (int64_t i = threadIdx.x; i < block; i += blockDim.x) {
      const double v = dval(xb[i]);
      sum += v;
      sq += v * v;
    }
    block_sum2(sum, sq, s_sum, s_sq);
    const double mean = block > 0 ? s_sum[0] / static_cast<double>(block) : 0.0;
    const double var =
        block > 0 ? fmax(0.0, s_sq[0] / static_cast<double>(block) - mean * mean) : 0.0;
    const double inv = 1.0 / sqrt(var + static_cast<double>(s.epsilon));
    __syncthreads();  // s_sum / s_sq are reused by the next item
    for (int64_t i = threadIdx.x; i < block; i += blockDim.x) {
      const int64_t ch = s.scale_per_group ? g : g * cpg + i / s.spatial;
      const double v = (dval(xb[i]) - mean) * inv * dval(scale[ch]) + dval(bias[ch]);
      yb[i] = from_compute<T>(static_cast<compute_t<T>>(v));
    }
  }
}

template <typename T>
__global__ void mvn_kernel(const T* __restrict__ x, T* __restrict__ y, MvnShape s) {
  __shared__ double s_sum[kThreads], s_sq[kThreads];
  const double n = static_cast<double>(s.per_slot);
  for (int64_t slot = blockIdx.x; slot < s.slots; slot += gridDim.x) {
    double sum = 0.0, sq = 0.0;
    for (int64_t j = threadIdx.x; j < s.per_slot; j += blockDim.x) {
      const double v = dval(x[mvn_element(s, slot, j)]);
      sum += v;
      sq += v * v;
    }
    block_sum2(sum, sq, s_sum, s_sq);
    const double mean = s_sum[0] / n;
    const double inv = 1.0 / (sqrt(fmax(0.0, s_sq[0] / n - mean * mean)) + kMvnEpsilon);
    __syncthreads();
    for (int64_t j = threadIdx.x; j < s.per_slot; j += blockDim.x) {
      const int64_t e = mvn_element(s, slot, j);
      y[e] = from_compute<T>(static_cast<compute_t<T>>((dval(x[e]) - mean) * inv));
    }
  }
}

template <typename T>
__global__ void lrn_kernel(const T* __restrict__ x, T* __restrict__ y, LrnShape s, int64_t n) {
  const double scale = static_cast<double>(s.alpha) / static_cast<double>(s.size);
  for (int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; e < n;
       e += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t p = e % s.spatial, ch = (e / s.spatial) % s.c, b = e / (s.spatial * s.c);
    double sq = 0.0;
    for (int64_t q = lrn_first(s, ch); q <= lrn_last(s, ch); ++q) {
      const double v = dval(x[(b * s.c + q) * s.spatial + p]);
      sq += v * v;
    }
    const double d = pow(static_cast<double>(s.bias) + scale * sq, static_cast<double>(s.beta));
    y[e] = from_compute<T>(static_cast<compute_t<T>>(dval(x[e]) / d));
  }
}

template <typename T>
class GroupNormKernel : public CheckedKernel<T, GroupNormShape, check_group_norm_io> {
 public:
  Status run(const KernelArgs& a) const override {
    const int64_t items = this->shape_.n * this->shape_.groups;
    if (items == 0) return Status::ok();
    group_norm_kernel<T>
        <<<blocks_for(items, 1), kThreads, 0, static_cast<cudaStream_t>(a.stream)>>>(
            a.input<T>(0), a.input<T>(1), a.input<T>(2), a.output<T>(0), this->shape_);
    return launch_status("group_norm_kernel");
  }
};

template <typename T>
class MvnKernel : public CheckedKernel<T, MvnShape, check_mvn_io> {
 public:
  Status run(const KernelArgs& a) const override {
    if (this->shape_.numel == 0) return Status::ok();
    mvn_kernel<T>
        <<<blocks_for(this->shape_.slots, 1), kThreads, 0, static_cast<cudaStream_t>(a.stream)>>>(
            a.input<T>(0), a.output<T>(0), this->shape_);
    return launch_status("mvn_kernel");
  }
};

template <typename T>
class LrnKernel : public CheckedKernel<T, LrnShape, check_lrn_io> {
 public:
  Status run(const KernelArgs& a) const override {
    const int64_t n = this->shape_.n * this->shape_.c * this->shape_.spatial;
    if (n == 0) return Status::ok();
    lrn_kernel<T><<<grid_for(n), kThreads, 0, static_cast<cudaStream_t>(a.stream)>>>(
        a.input<T>(0), a.output<T>(0), this->shape_, n);
    return launch_status("lrn_kernel");
  }
};

}  // namespace

void register_norm_stats_kernels(KernelRegistry& r) {
  add_typed_kernels<GroupNormKernel>(r, graph::OpType::kGroupNormalization, Backend::kCuda,
                                     reduction::FloatTypes{});
  add_typed_kernels<MvnKernel>(r, graph::OpType::kMeanVarianceNormalization, Backend::kCuda,
                               reduction::FloatTypes{});
  add_typed_kernels<LrnKernel>(r, graph::OpType::kLRN, Backend::kCuda, reduction::FloatTypes{});
}

}  // namespace amp::kernels::cuda
