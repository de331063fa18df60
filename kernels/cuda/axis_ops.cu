// The ops along one axis on the GPU, mirroring kernels/cpu/axis_ops.cc: one thread per line
// (the `len` elements at stride `inner`), neighbouring threads on neighbouring columns when
// inner > 1. TopK selects its k outputs one after another, each the best element ordered
// after the previous pick by top_k_before (kernels/common/axis_ops_io.h, the CPU's order):
// O(k * len) per line and no scratch memory. Not tuned: lines are serial.
#include <cmath>

#include "kernels/common/axis_ops_io.h"
#include "kernels/common/checked_kernel.h"
#include "kernels/common/element_access.h"
#include "kernels/common/reduction_family.h"
#include "kernels/common/reduction_io.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/reduce_util.h"

namespace amp::kernels::cuda {
namespace {

#define AMP_LINES(line, n)                                                                     \
  for (int64_t line = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; line < (n); \
       line += static_cast<int64_t>(gridDim.x) * blockDim.x)

template <typename T>
__global__ void cum_sum_kernel(const T* __restrict__ x, T* __restrict__ y, CumSumShape s,
                               const void* axis_ptr) {
  int64_t axis = s.axis;
  if (axis < 0) axis = cum_sum_axis(load_index(axis_ptr, s.axis_dtype, 0), s.rank);
  if (axis < 0) return;  // out of range: the CPU reports it; nothing is written here
  const graph::AxisGeometry g = cum_sum_geometry(s, axis);
  using C = compute_t<T>;
  AMP_LINES(line, g.outer * g.inner) {
    const int64_t base = axis_line_base(line, g.len, g.inner);
    C sum = C(0);
    for (int64_t i = 0; i < g.len; ++i) {
      const int64_t at = base + (s.reverse ? g.len - 1 - i : i) * g.inner;
      const C v = to_compute(x[at]);
      if (s.exclusive) {
        y[at] = from_compute<T>(sum);
        sum += v;
      } else {
        sum += v;
        y[at] = from_compute<T>(sum);
      }
    }
  }
}

template <typename T>
__global__ void top_k_kernel(const T* __restrict__ x, T* __restrict__ values,
                             int64_t* __restrict__ indices, TopKShape s) {
  using C = compute_t<T>;
  AMP_LINES(line, s.outer * s.inner) {
    const int64_t o = line / s.inner, j = line % s.inner;
    const T* xl = x + o * s.len * s.inner + j;
    int64_t prev = -1;
    C prev_v = C(0);
    for (int64_t r = 0; r < s.k; ++r) {
      int64_t best = -1;
      C best_v = C(0);
      for (int64_t i = 0; i < s.len; ++i) {
        const C v = to_compute(xl[i * s.inner]);
        if (prev >= 0 && !top_k_before(prev_v, prev, v, i, s.largest)) continue;
        if (best < 0 || top_k_before(v, i, best_v, best, s.largest)) {
          best = i;
          best_v = v;
        }
      }
      const int64_t at = (o * s.k + r) * s.inner + j;
      values[at] = xl[best * s.inner];
      indices[at] = best;
      prev = best;
      prev_v = best_v;
    }
  }
}

template <typename T>
__global__ void hardmax_kernel(const T* __restrict__ x, T* __restrict__ y, graph::AxisGeometry g) {
  AMP_LINES(line, g.outer * g.inner) {
    const int64_t base = axis_line_base(line, g.len, g.inner);
    int64_t best = 0;
    for (int64_t i = 1; i < g.len; ++i)
      if (to_compute(x[base + i * g.inner]) > to_compute(x[base + best * g.inner])) best = i;
    for (int64_t i = 0; i < g.len; ++i)
      y[base + i * g.inner] = from_compute<T>(static_cast<compute_t<T>>(i == best ? 1 : 0));
  }
}

template <typename T>
__global__ void lp_norm_kernel(const T* __restrict__ x, T* __restrict__ y, LpNormShape s) {
  using C = compute_t<T>;
  AMP_LINES(line, s.outer * s.inner) {
    const int64_t base = axis_line_base(line, s.len, s.inner);
    C norm = C(0);
    for (int64_t i = 0; i < s.len; ++i) {
      const C v = to_compute(x[base + i * s.inner]);
      norm += s.p == 1 ? (v < C(0) ? -v : v) : v * v;
    }
    if (s.p == 2) norm = sqrt(norm);
    const C inv = norm > C(0) ? C(1) / norm : C(0);
    for (int64_t i = 0; i < s.len; ++i)
      y[base + i * s.inner] = from_compute<T>(to_compute(x[base + i * s.inner]) * inv);
  }
}

template <typename T>
class CumSumKernel : public CheckedKernel<T, CumSumShape, check_cum_sum_io> {
 public:
  Status run(const KernelArgs& a) const override {
    int64_t n = 1;
    for (int k = 0; k < this->shape_.rank; ++k) n *= this->shape_.dims[k];
    if (n == 0) return Status::ok();
    cum_sum_kernel<T><<<grid_for(n), kThreads, 0, static_cast<cudaStream_t>(a.stream)>>>(
        a.input<T>(0), a.output<T>(0), this->shape_, a.inputs[1]);
    return launch_status("cum_sum_kernel");
  }
};

template <typename T>
class TopKKernel : public CheckedKernel<T, TopKShape, check_top_k_io> {
 public:
  Status run(const KernelArgs& a) const override {
    const int64_t lines = this->shape_.outer * this->shape_.inner;
    if (lines == 0 || this->shape_.k == 0) return Status::ok();
    top_k_kernel<T><<<grid_for(lines), kThreads, 0, static_cast<cudaStream_t>(a.stream)>>>(
        a.input<T>(0), a.output<T>(0), a.output<int64_t>(1), this->shape_);
    return launch_status("top_k_kernel");
  }
};

template <typename T>
class HardmaxKernel : public CheckedKernel<T, graph::AxisGeometry, check_softmax_io> {
 public:
  Status run(const KernelArgs& a) const override {
    const int64_t lines = this->shape_.outer * this->shape_.inner;
    if (lines == 0 || this->shape_.len == 0) return Status::ok();
    hardmax_kernel<T><<<grid_for(lines), kThreads, 0, static_cast<cudaStream_t>(a.stream)>>>(
        a.input<T>(0), a.output<T>(0), this->shape_);
    return launch_status("hardmax_kernel");
  }
};

template <typename T>
class LpNormKernel : public CheckedKernel<T, LpNormShape, check_lp_norm_io> {
 public:
  Status run(const KernelArgs& a) const override {
    const int64_t lines = this->shape_.outer * this->shape_.inner;
    if (lines == 0) return Status::ok();
    lp_norm_kernel<T><<<grid_for(lines), kThreads, 0, static_cast<cudaStream_t>(a.stream)>>>(
        a.input<T>(0), a.output<T>(0), this->shape_);
    return launch_status("lp_norm_kernel");
  }
};

}  // namespace

void register_axis_ops_kernels(KernelRegistry& r) {
  add_typed_kernels<CumSumKernel>(r, graph::OpType::kCumSum, Backend::kCuda, reduction::SumTypes{});
  add_typed_kernels<TopKKernel>(r, graph::OpType::kTopK, Backend::kCuda, reduction::ArgMaxTypes{});
  add_typed_kernels<HardmaxKernel>(r, graph::OpType::kHardmax, Backend::kCuda,
                                   reduction::FloatTypes{});
  add_typed_kernels<LpNormKernel>(r, graph::OpType::kLpNormalization, Backend::kCuda,
                                  reduction::FloatTypes{});
}

}  // namespace amp::kernels::cuda
