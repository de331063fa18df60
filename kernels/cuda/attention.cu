// Attention (opset 23/24) on the GPU, the algorithm of kernels/common/attention_plan.h with the
// CPU's semantics (kernels/cpu/attention.cc), in four plain launches: the present key/value
// caches, the scores (one thread per (query row, key), into the workspace, fp32 or f64), the
// softmax (one thread per row), and the output (one thread per (row, value element)). A first
// version for correctness: no tiling, no tensor cores, the scores of every row in the
// workspace (rows x T compute values).
#include <cmath>

#include "kernels/common/attention_plan.h"
#include "kernels/common/checked_kernel.h"
#include "kernels/common/reduction_family.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/cuda_launch.h"
#include "kernels/cuda/reduce_util.h"

namespace amp::kernels::cuda {
namespace {

// Key or value row j of kv head h: from the past, else from the new tensor.
template <typename T>
__device__ __forceinline__ const T* kv_row(const AttentionPlan& p, const T* past, const T* now,
                                           const HeadStrides& st, int64_t size, int64_t b,
                                           int64_t h, int64_t j) {
  if (j < p.past_len) return past + ((b * p.kv_heads + h) * p.past_len + j) * size;
  return now + st.at(b, h, j - p.past_len);
}

// present = past then the new rows, [B, Hkv, T, size].
template <typename T>
__global__ void present_kernel(AttentionPlan p, const T* __restrict__ past,
                               const T* __restrict__ now, HeadStrides st, int64_t size,
                               T* __restrict__ out) {
  const int64_t n = p.batch * p.kv_heads * p.total * size;
  for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < n;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t d = t % size;
    const int64_t j = (t / size) % p.total;
    const int64_t h = (t / (size * p.total)) % p.kv_heads;
    const int64_t b = t / (size * p.total * p.kv_heads);
    out[t] = kv_row(p, past, now, st, size, b, h, j)[d];
  }
}

template <typename T, typename C>
__global__ void scores_kernel(AttentionPlan p, const T* __restrict__ q, const T* __restrict__ k,
                              const T* __restrict__ past_k, const void* mask,
                              const int64_t* __restrict__ nonpad, C* __restrict__ s,
                              T* __restrict__ qk) {
  const int64_t rows = p.batch * p.q_heads * p.q_len;
  const int64_t n = rows * p.total;
  const C scale = static_cast<C>(p.scale);
  for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < n;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t j = t % p.total, r = t / p.total;
    const int64_t i = r % p.q_len;
    const int64_t h = (r / p.q_len) % p.q_heads;
    const int64_t b = r / (p.q_len * p.q_heads);
    const T* qr = q + p.q.at(b, h, i);
    const T* kr = kv_row(p, past_k, k, p.k, p.head_size, b, h / (p.q_heads / p.kv_heads), j);
    C dot = C(0);
    for (int64_t d = 0; d < p.head_size; ++d) dot += to_compute(qr[d]) * to_compute(kr[d]);
    C sj = attention_softcap(dot * scale, p.softcap);
    if (qk && p.qk_output_mode <= 1) qk[t] = from_compute<T>(sj);
    sj += attention_bias<C>(p, mask, nonpad, b, h, i, j);
    if (qk && p.qk_output_mode == 2) qk[t] = from_compute<T>(sj);
    s[t] = sj;
  }
}

template <typename T, typename C>
__global__ void softmax_kernel(AttentionPlan p, C* __restrict__ s, T* __restrict__ qk) {
  const int64_t rows = p.batch * p.q_heads * p.q_len;
  for (int64_t r = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; r < rows;
       r += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    C* sr = s + r * p.total;
    C max = -C(INFINITY);
    for (int64_t j = 0; j < p.total; ++j) max = sr[j] > max ? sr[j] : max;
    const bool none = max == -C(INFINITY);  // every key masked: the row attends to nothing
    C sum = C(0);
    for (int64_t j = 0; j < p.total; ++j) {
      sr[j] = none ? C(0) : exp(sr[j] - max);
      sum += sr[j];
    }
    const C inv = none ? C(0) : C(1) / sum;
    for (int64_t j = 0; j < p.total; ++j) {
      sr[j] *= inv;
      if (qk && p.qk_output_mode == 3) qk[r * p.total + j] = from_compute<T>(sr[j]);
    }
  }
}

template <typename T, typename C>
__global__ void output_kernel(AttentionPlan p, const C* __restrict__ s, const T* __restrict__ v,
                              const T* __restrict__ past_v, T* __restrict__ y) {
  const int64_t rows = p.batch * p.q_heads * p.q_len;
  const int64_t n = rows * p.v_head_size;
  for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < n;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t d = t % p.v_head_size, r = t / p.v_head_size;
    const int64_t i = r % p.q_len;
    const int64_t h = (r / p.q_len) % p.q_heads;
    const int64_t b = r / (p.q_len * p.q_heads);
    const int64_t kvh = h / (p.q_heads / p.kv_heads);
    const C* sr = s + r * p.total;
    C acc = C(0);
    for (int64_t j = 0; j < p.total; ++j)
      acc += sr[j] * to_compute(kv_row(p, past_v, v, p.v, p.v_head_size, b, kvh, j)[d]);
    y[p.y.at(b, h, i) + d] = from_compute<T>(acc);
  }
}

template <typename T>
class AttentionKernel : public SetupKernel<AttentionPlan, check_attention_io> {
  using C = compute_t<T>;

 public:
  size_t workspace_bytes() const override {
    return static_cast<size_t>(setup_.batch * setup_.q_heads * setup_.q_len * setup_.total) *
           sizeof(C);
  }

  Status run(const KernelArgs& a) const override {
    cudaStream_t st = stream_of(a);
    const T* past_k = setup_.has_past ? a.input<T>(4) : nullptr;
    const T* past_v = setup_.has_past ? a.input<T>(5) : nullptr;
    if (setup_.want_present) {
      const int64_t nk = setup_.batch * setup_.kv_heads * setup_.total * setup_.head_size;
      const int64_t nv = setup_.batch * setup_.kv_heads * setup_.total * setup_.v_head_size;
      if (nk > 0)
        present_kernel<T><<<grid_for(nk), kThreads, 0, st>>>(
            setup_, past_k, a.input<T>(1), setup_.k, setup_.head_size, a.output<T>(1));
      if (nv > 0)
        present_kernel<T><<<grid_for(nv), kThreads, 0, st>>>(
            setup_, past_v, a.input<T>(2), setup_.v, setup_.v_head_size, a.output<T>(2));
    }
    const int64_t rows = setup_.batch * setup_.q_heads * setup_.q_len;
    if (rows == 0) return launch_status("attention");
    C* s = static_cast<C*>(a.workspace);
    T* qk = setup_.want_qk ? a.output<T>(3) : nullptr;
    if (setup_.total > 0)
      scores_kernel<T, C><<<grid_for(rows * setup_.total), kThreads, 0, st>>>(
          setup_, a.input<T>(0), a.input<T>(1), past_k, setup_.has_mask ? a.inputs[3] : nullptr,
          setup_.has_nonpad ? a.input<int64_t>(6) : nullptr, s, qk);
    softmax_kernel<T, C><<<grid_for(rows), kThreads, 0, st>>>(setup_, s, qk);
    if (setup_.v_head_size > 0)
      output_kernel<T, C><<<grid_for(rows * setup_.v_head_size), kThreads, 0, st>>>(
          setup_, s, a.input<T>(2), past_v, a.output<T>(0));
    return launch_status("attention");
  }
};

}  // namespace

void register_attention_kernels(KernelRegistry& r) {
  add_typed_kernels<AttentionKernel>(r, graph::OpType::kAttention, Backend::kCuda,
                                     reduction::FloatTypes{});
}

}  // namespace amp::kernels::cuda
