// Softmax and LogSoftmax on the GPU, max-subtracted, in fp32 (f64 for f64).
//
// Semantics mirror kernels/cpu/softmax.cc: opset >= 13 (and op_version 0) normalize along
// `axis` (default -1); opset < 13 coerces the input to 2-D at `axis` (default 1) and
// normalizes each whole row. Both become [outer, len, inner] with the normalized dim in
// the middle (inner = 1 for the old form).
//
// inner == 1 (the usual case: attention scores, classifier logits): one warp per row when
// len <= 1024, else one block; three passes over the row (max, sum of exp(x - max),
// outputs), reading 16 bytes at a time; the re-reads hit L1/L2. The arithmetic is
// reduction_functors.h's, so every output is the CPU's up to summation order; f16/bf16
// round once, on store.
// inner > 1: one thread per (outer, inner) column, the same three passes down the axis.
#include "kernels/common/checked_kernel.h"
#include "kernels/common/reduction_family.h"
#include "kernels/common/reduction_io.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/reduce_util.h"

namespace amp::kernels::cuda {
namespace {

template <typename T, bool kLog>
__global__ void softmax_rows_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t outer,
                                    int64_t len, bool warp_group) {
  using C = compute_t<T>;
  __shared__ C scratch[kWarp];
  const int width = warp_group ? kWarp : static_cast<int>(blockDim.x);
  const int lane =
      warp_group ? static_cast<int>(threadIdx.x) % kWarp : static_cast<int>(threadIdx.x);
  const int64_t per_block = warp_group ? blockDim.x / kWarp : 1;
  for (int64_t row = blockIdx.x * per_block + (warp_group ? threadIdx.x / kWarp : 0); row < outer;
       row += static_cast<int64_t>(gridDim.x) * per_block) {
    const T* xr = x + row * len;
    T* yr = y + row * len;
    C m = reduce_identity_max<C>();
    visit_row(xr, len, lane, width, [&](int64_t, C v) { m = reduce_max_step(m, v); });
    m = group_reduce(m, MaxOp{}, reduce_identity_max<C>(), scratch, warp_group);
    C sum = C(0);
    visit_row(xr, len, lane, width, [&](int64_t, C v) { sum += softmax_exp(v, m); });
    sum = group_reduce(sum, SumOp{}, C(0), scratch, warp_group);
    if constexpr (kLog) {
      const C log_sum = math_log(sum);
      visit_row(xr, len, lane, width,
                [&](int64_t i, C v) { yr[i] = from_compute<T>(log_softmax_value(v, m, log_sum)); });
    } else {
      const C inv = C(1) / sum;
      visit_row(xr, len, lane, width,
                [&](int64_t i, C v) { yr[i] = from_compute<T>(softmax_value(v, m, inv)); });
    }
  }
}

template <typename T, bool kLog>
__global__ void softmax_columns_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t outer,
                                       int64_t len, int64_t inner) {
  using C = compute_t<T>;
  const int64_t n = outer * inner;
  for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < n;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t o = t / inner, c = t % inner;
    const T* xb = x + o * len * inner + c;
    T* yb = y + o * len * inner + c;
    C m = reduce_identity_max<C>();
    for (int64_t i = 0; i < len; ++i) m = reduce_max_step(m, to_compute(xb[i * inner]));
    C sum = C(0);
    for (int64_t i = 0; i < len; ++i) sum += softmax_exp(to_compute(xb[i * inner]), m);
    if constexpr (kLog) {
      const C log_sum = math_log(sum);
      for (int64_t i = 0; i < len; ++i)
        yb[i * inner] = from_compute<T>(log_softmax_value(to_compute(xb[i * inner]), m, log_sum));
    } else {
      const C inv = C(1) / sum;
      for (int64_t i = 0; i < len; ++i)
        yb[i * inner] = from_compute<T>(softmax_value(to_compute(xb[i * inner]), m, inv));
    }
  }
}

template <typename T, bool kLog>
class SoftmaxKernel : public CheckedKernel<T, graph::AxisGeometry, check_softmax_io> {
 public:
  Status run(const KernelArgs& a) const override {
    if (this->shape_.outer * this->shape_.len * this->shape_.inner == 0) return Status::ok();
    const T* x = a.input<T>(0);
    T* y = a.output<T>(0);
    cudaStream_t st = stream_of(a);
    if (this->shape_.inner == 1) {
      const bool warp_group = this->shape_.len <= kWarpRowMax;
      const unsigned blocks = warp_group ? blocks_for(this->shape_.outer, kThreads / kWarp)
                                         : blocks_for(this->shape_.outer, 1);
      softmax_rows_kernel<T, kLog>
          <<<blocks, kThreads, 0, st>>>(x, y, this->shape_.outer, this->shape_.len, warp_group);
    } else {
      softmax_columns_kernel<T, kLog>
          <<<blocks_for(this->shape_.outer * this->shape_.inner, kThreads), kThreads, 0, st>>>(
              x, y, this->shape_.outer, this->shape_.len, this->shape_.inner);
    }
    AMP_CUDA_RETURN_IF_ERROR(cudaGetLastError());
    return Status::ok();
  }
};

}  // namespace

void register_softmax_kernels(KernelRegistry& r) {
  add_softmax_family<SoftmaxKernel>(r, Backend::kCuda);
}

}  // namespace amp::kernels::cuda
