// RotaryEmbedding (opset 23) on the GPU: one thread per output element, the rule of
// kernels/common/rotary_plan.h (kernels/cpu/rotary_embedding.cc). A position outside the
// caches cannot raise an error without a sync: its rows are written as zeros.
#include "kernels/common/checked_kernel.h"
#include "kernels/common/reduction_family.h"
#include "kernels/common/rotary_plan.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/cuda_launch.h"
#include "kernels/cuda/reduce_util.h"

namespace amp::kernels::cuda {
namespace {

template <typename T>
__global__ void rotary_kernel(RotaryPlan p, const T* __restrict__ x, const T* __restrict__ cos,
                              const T* __restrict__ sin, const int64_t* __restrict__ positions,
                              T* __restrict__ y) {
  using C = compute_t<T>;
  const int64_t n = p.batch * p.seq * p.heads * p.head_size;
  const int64_t half = p.rotary_dim / 2;
  for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < n;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t d = t % p.head_size;
    const int64_t r = t / p.head_size;
    const int64_t h = r % p.heads, s = (r / p.heads) % p.seq, b = r / (p.heads * p.seq);
    const T* xr = x + p.x.at(b, h, s);
    T* out = y + p.x.at(b, h, s) + d;
    const int64_t row = rotary_cache_row(p, positions, b, s);
    if (row < 0) {
      *out = from_compute<T>(C(0));
      continue;
    }
    if (d >= p.rotary_dim) {
      *out = xr[d];
      continue;
    }
    int64_t i1, i2, k;
    const bool first = rotary_pair(p, d, &i1, &i2, &k);
    const C c = to_compute(cos[row * half + k]), sn = to_compute(sin[row * half + k]);
    const C x1 = to_compute(xr[i1]), x2 = to_compute(xr[i2]);
    *out = from_compute<T>(first ? c * x1 - sn * x2 : sn * x1 + c * x2);
  }
}

template <typename T>
class RotaryEmbeddingKernel : public SetupKernel<RotaryPlan, check_rotary_io> {
 public:
  Status run(const KernelArgs& a) const override {
    const int64_t n = setup_.batch * setup_.seq * setup_.heads * setup_.head_size;
    if (n == 0) return Status::ok();
    rotary_kernel<T><<<grid_for(n), kThreads, 0, stream_of(a)>>>(
        setup_, a.input<T>(0), a.input<T>(1), a.input<T>(2),
        setup_.has_positions ? a.input<int64_t>(3) : nullptr, a.output<T>(0));
    return launch_status("rotary_kernel");
  }
};

}  // namespace

void register_rotary_embedding_kernels(KernelRegistry& r) {
  add_typed_kernels<RotaryEmbeddingKernel>(r, graph::OpType::kRotaryEmbedding, Backend::kCuda,
                                           reduction::FloatTypes{});
}

}  // namespace amp::kernels::cuda
