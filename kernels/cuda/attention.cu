// Attention (opset 23/24) on the GPU, the algorithm of kernels/common/attention_plan.h with the
// CPU's semantics (kernels/cpu/attention.cc). Two paths:
//
// GEMM path (fp32 / fp16 / bf16 storage, no past key/value, no qk_matmul_output): the two
// products run on cuBLAS (tensor cores for fp16 / bf16, fp32 accumulation), one batched
// call each over every (batch, query head) pair, with a row softmax between them:
//   1. a small kernel writes the pair's matrix pointers (Q, K, V, Y rows of any layout,
//      3-D [B, S, H*D] or 4-D [B, H, S, D], grouped-query kv heads) into the workspace;
//   2. S = scale * Q K^T       cublasGemmBatchedEx, S in fp32 [pairs, Sq, T]
//   3. P = softmax(softcap(S) + bias) per row, one warp a row, written in the storage type
//      (in place for fp32); a row whose every key is masked gets P = 0
//   4. Y = P V                 cublasGemmBatchedEx, Y in the storage type
// Pointer arrays rather than strided batches: the 3-D layout's (batch, head) offsets are
// not one stride. Workspace: cuBLAS's own, the pointers, S and P (pairs * Sq * T each).
//
// Flash path (fp32 / fp16 / bf16 storage, no past, no qk_matmul_output, head sizes <= 128),
// taken where the GEMM path's score matrices would be large (long sequences): one pass over
// the keys with an online softmax (FlashAttention's algorithm, Dao et al. 2022), nothing of
// size Sq x T ever stored. A block of kFlashRows warps serves kFlashRows query rows of one
// (batch, query head); per tile of 32 keys:
//   1. the block loads the tile's K and V rows into shared memory, widened to fp32 (rows
//      past T are zeros, so masked-out products add 0, never 0 * NaN);
//   2. lane j of a warp computes its row's score with key j (fp32 dot product), softcap and
//      bias applied as on the other paths;
//   3. the warp's running max m and sum l are updated (m' = max(m, tile max); everything
//      accumulated so far is scaled by exp(m - m')), the tile's probabilities exp(s - m')
//      go to shared memory;
//   4. each lane accumulates its value elements (d = lane, lane + 32, ...) of P V in fp32
//      registers.
// At the end Y = O / l (0 for a row whose every key is masked, as on the other paths).
// fp32 throughout after the loads: P is not rounded to the storage type. SIMT arithmetic,
// no tensor cores: what it buys is memory (and one kernel instead of three), not FLOPs.
// Blocks stride over (batch, head) pairs past grid.y's 65535. AMP_CUDA_ATTENTION=flash|gemm|
// direct forces a path (tests, comparisons; a forced path that does not apply to a node is an
// error, not a fall back); the path taken is otherwise decided once in prepare.
//
// Direct path (everything else: f64, a past, qk_matmul_output): four plain launches (the
// present key/value caches, the scores with one thread per (query row, key), the softmax
// with one thread per row, the output with one thread per (row, value element)).
//
// present_key / present_value without a past are copies of K and V, written first on every
// path.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <type_traits>

#include "kernels/common/attention_plan.h"
#include "kernels/common/checked_kernel.h"
#include "kernels/common/reduction_family.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/cuda_launch.h"
#include "kernels/cuda/cudnn_check.h"
#include "kernels/cuda/cudnn_common.h"
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

// ---- GEMM path ----

// The matrices of every (batch, query head) pair for the two batched products.
struct PairPointers {
  void** q;
  void** k;
  void** v;
  void** s;
  void** p;
  void** y;
};

__global__ void pair_pointers_kernel(AttentionPlan p, const char* q, const char* k, const char* v,
                                     char* s, char* probs, char* y, int64_t elem,
                                     int64_t probs_elem, PairPointers out) {
  const int64_t pairs = p.batch * p.q_heads, rows = p.q_len * p.total;
  for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < pairs;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t b = t / p.q_heads, h = t % p.q_heads, kvh = h / (p.q_heads / p.kv_heads);
    out.q[t] = const_cast<char*>(q + p.q.at(b, h, 0) * elem);
    out.k[t] = const_cast<char*>(k + p.k.at(b, kvh, 0) * elem);
    out.v[t] = const_cast<char*>(v + p.v.at(b, kvh, 0) * elem);
    out.s[t] = s + t * rows * static_cast<int64_t>(sizeof(float));
    out.p[t] = probs + t * rows * probs_elem;
    out.y[t] = y + p.y.at(b, h, 0) * elem;
  }
}

// One warp per score row: P = softmax(softcap(S) + bias), P in the storage type (it may
// alias S when that is fp32: each element is read before it is written, by its own lane).
template <typename T>
__global__ void row_softmax_kernel(AttentionPlan p, const void* mask,
                                   const int64_t* __restrict__ nonpad, float* s, T* probs) {
  const int64_t rows = p.batch * p.q_heads * p.q_len;
  const int lane = threadIdx.x % 32;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (blockDim.x / 32);
  for (int64_t r = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) / 32; r < rows;
       r += warps) {
    const int64_t i = r % p.q_len;
    const int64_t h = (r / p.q_len) % p.q_heads;
    const int64_t b = r / (p.q_len * p.q_heads);
    float* sr = s + r * p.total;
    float max = -INFINITY;
    for (int64_t j = lane; j < p.total; j += 32) {
      const float v =
          attention_softcap(sr[j], p.softcap) + attention_bias<float>(p, mask, nonpad, b, h, i, j);
      sr[j] = v;
      max = fmaxf(max, v);
    }
    for (int o = 16; o > 0; o /= 2) max = fmaxf(max, __shfl_xor_sync(0xffffffffu, max, o));
    const bool none = max == -INFINITY;  // every key masked: the row attends to nothing
    float sum = 0.0f;
    for (int64_t j = lane; j < p.total; j += 32) {
      const float e = none ? 0.0f : expf(sr[j] - max);
      sr[j] = e;
      sum += e;
    }
    for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    const float inv = none ? 0.0f : 1.0f / sum;
    T* pr = probs + r * p.total;
    for (int64_t j = lane; j < p.total; j += 32) pr[j] = from_compute<T>(sr[j] * inv);
  }
}

// ---- Flash path ----

inline constexpr int kFlashRows = 8;       // warps (query rows) per block
inline constexpr int kFlashTile = 32;      // keys per tile: one per lane
inline constexpr int kFlashMaxHead = 128;  // head sizes the registers hold (4 per lane)
inline constexpr int64_t kMaxGridY =
    65535;  // CUDA's grid.y limit: (batch, head) pairs a launch spans
// The GEMM path stores two Sq x T matrices per (batch, head): beyond this, flash.
inline constexpr size_t kFlashAboveScoreBytes = size_t{64} << 20;

// The K tile's row stride: lanes read their own key's row, so an odd stride puts the 32
// lanes' reads in 32 different banks (D + 1 would be even, a 32-way conflict, for odd D).
__host__ __device__ inline int flash_k_stride(int d) {
  return d | 1;
}

// Shared memory of one block: K tile [32][flash_k_stride(D)], V tile [32][Dv], the warps'
// query rows [kFlashRows][D] and probabilities [kFlashRows][32].
inline size_t flash_shared_bytes(int64_t d, int64_t dv) {
  return static_cast<size_t>(kFlashTile * flash_k_stride(static_cast<int>(d)) + kFlashTile * dv +
                             kFlashRows * d + kFlashRows * kFlashTile) *
         sizeof(float);
}

// Loads keys or values j0 .. j0 + 31 of (b, kvh) into `tile` ([32][ld], widened to fp32; rows
// past the end zero): warp w loads rows w, w + 8, ..., its lanes along the head dimension, so
// the global reads are coalesced and no thread divides an index.
template <typename T>
__device__ void flash_load_tile(const AttentionPlan& p, const HeadStrides& strides,
                                const T* __restrict__ src, int64_t b, int64_t kvh, int64_t j0,
                                int size, int ld, int warp, int lane, float* tile) {
  for (int r = warp; r < kFlashTile; r += kFlashRows) {
    const int64_t j = j0 + r;
    float* row = tile + r * ld;
    if (j < p.total) {
      const T* in = src + strides.at(b, kvh, j);
      for (int d = lane; d < size; d += 32) row[d] = dev_load(in[d]);
    } else {
      for (int d = lane; d < size; d += 32) row[d] = 0.0f;
    }
  }
}

// One block serves kFlashRows query rows of one (batch, head) pair, and then the same rows of
// pair + gridDim.y, ...: grid.y is capped at 65535, batch x heads is not.
template <typename T>
__global__ void __launch_bounds__(kFlashRows * 32)
    flash_attention_kernel(AttentionPlan p, const T* __restrict__ q, const T* __restrict__ k,
                           const T* __restrict__ v, const void* mask,
                           const int64_t* __restrict__ nonpad, T* __restrict__ y) {
  extern __shared__ float smem[];
  const int d_k = static_cast<int>(p.head_size), d_v = static_cast<int>(p.v_head_size);
  const int ld_k = flash_k_stride(d_k);
  float* ks = smem;                    // [32][ld_k]
  float* vs = ks + kFlashTile * ld_k;  // [32][d_v]
  float* qs = vs + kFlashTile * d_v;   // [kFlashRows][d_k]
  float* ps = qs + kFlashRows * d_k;   // [kFlashRows][32]
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int64_t pairs = p.batch * p.q_heads;
  const int64_t i = static_cast<int64_t>(blockIdx.x) * kFlashRows + warp;
  const bool active = i < p.q_len;
  const float scale = static_cast<float>(p.scale);
  // The trip count is the same for every thread of the block: the barriers inside stay safe.
  for (int64_t pair = blockIdx.y; pair < pairs; pair += gridDim.y) {
    const int64_t b = pair / p.q_heads, h = pair % p.q_heads;
    const int64_t kvh = h / (p.q_heads / p.kv_heads);
    __syncthreads();  // the previous pair's query rows and tiles are no longer read
    if (active)
      for (int d = lane; d < d_k; d += 32) qs[warp * d_k + d] = dev_load(q[p.q.at(b, h, i) + d]);

    // Keys masked for every row of this block, by causality (bottom-right aligned, as in
    // attention_bias; flash has no past) or by the batch's key count, are not visited: a
    // causal block reads about half the keys. The same bound for every thread of the block,
    // so the barriers stay safe. (A skipped key's score would be -inf; only a NaN or +inf
    // product there, which the other paths turn into a NaN row, is not seen.)
    int64_t keys_end = p.total;
    if (p.causal) {
      const int64_t block_end = (static_cast<int64_t>(blockIdx.x) + 1) * kFlashRows;
      const int64_t last_row = (block_end < p.q_len ? block_end : p.q_len) - 1;
      const int64_t visible = last_row + (nonpad ? nonpad[b] - p.q_len : 0) + 1;
      if (visible < keys_end) keys_end = visible;
    }
    if (nonpad && nonpad[b] < keys_end) keys_end = nonpad[b];

    float o[kFlashMaxHead / 32] = {};
    float m = -INFINITY, l = 0.0f;
    for (int64_t j0 = 0; j0 < keys_end; j0 += kFlashTile) {
      __syncthreads();  // the previous tile is no longer read
      flash_load_tile(p, p.k, k, b, kvh, j0, d_k, ld_k, warp, lane, ks);
      flash_load_tile(p, p.v, v, b, kvh, j0, d_v, d_v, warp, lane, vs);
      __syncthreads();
      if (!active) continue;
      const int64_t j = j0 + lane;
      float s = -INFINITY;
      if (j < p.total) {
        float dot = 0.0f;
        const float* qr = qs + warp * d_k;
        const float* kr = ks + lane * ld_k;
        for (int d = 0; d < d_k; ++d) dot = fmaf(qr[d], kr[d], dot);
        s = attention_softcap(dot * scale, p.softcap) +
            attention_bias<float>(p, mask, nonpad, b, h, i, j);
      }
      float tile_max = s;
      for (int off = 16; off > 0; off /= 2)
        tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, off));
      const float m_new = fmaxf(m, tile_max);
      // Every key so far masked: nothing accumulated, nothing to add. A NaN score (fmaxf
      // skips it in the max) stays NaN, so the row is NaN as on the other paths.
      const float pj = isnan(s) ? s : m_new == -INFINITY || s == -INFINITY ? 0.0f : expf(s - m_new);
      const float alpha = m == -INFINITY ? 0.0f : expf(m - m_new);
      float tile_sum = pj;
      for (int off = 16; off > 0; off /= 2) tile_sum += __shfl_xor_sync(0xffffffffu, tile_sum, off);
      l = l * alpha + tile_sum;
      m = m_new;
      ps[warp * kFlashTile + lane] = pj;
      __syncwarp();
      const int keys = p.total - j0 < kFlashTile ? static_cast<int>(p.total - j0) : kFlashTile;
#pragma unroll
      for (int t = 0; t < kFlashMaxHead / 32; ++t) {
        const int d = lane + 32 * t;
        if (d >= d_v) break;
        float acc = o[t] * alpha;
        for (int r = 0; r < keys; ++r) acc = fmaf(ps[warp * kFlashTile + r], vs[r * d_v + d], acc);
        o[t] = acc;
      }
      __syncwarp();  // ps is rewritten by the next tile
    }
    if (!active) continue;
    const float inv = l > 0.0f ? 1.0f / l : 0.0f;
    T* yr = y + p.y.at(b, h, i);
#pragma unroll
    for (int t = 0; t < kFlashMaxHead / 32; ++t) {
      const int d = lane + 32 * t;
      if (d < d_v) yr[d] = dev_store<T>(o[t] * inv);
    }
  }
}

enum class AttentionPath { kDirect, kGemm, kFlash };

// AMP_CUDA_ATTENTION: a path forced for tests and comparisons ("" when unset). Another value
// is an error naming it, not a silent fall back to the automatic choice.
inline Result<std::string> forced_attention_path() {
  const char* e = std::getenv("AMP_CUDA_ATTENTION");
  const std::string path = e ? e : "";
  if (path.empty() || path == "gemm" || path == "flash" || path == "direct") return path;
  return invalid_argument("AMP_CUDA_ATTENTION='" + path +
                          "': expected gemm, flash or direct (or unset for the automatic choice)");
}

template <typename T>
class AttentionKernel : public SetupKernel<AttentionPlan, check_attention_io> {
  using C = compute_t<T>;
  static constexpr size_t kCublasWorkspace = size_t{4} << 20;

 public:
  Status prepare_params(const KernelConfig& cfg) override {
    path_ = AttentionPath::kDirect;
    AMP_ASSIGN_OR_RETURN(const std::string forced, forced_attention_path());
    // The direct and GEMM paths hold Sq x T scores per (batch, head) in their workspace.
    // In double: the product of three int64 sizes may not fit one.
    const double score_elements = static_cast<double>(setup_.batch * setup_.q_heads) *
                                  static_cast<double>(setup_.q_len) *
                                  static_cast<double>(setup_.total);
    const bool scores_addressable = score_elements < 0x1p52;
    if constexpr (!std::is_same_v<C, float>) {
      if (forced == "flash" || forced == "gemm") return forced_path_does_not_apply(forced);
      if (!scores_addressable) return too_many_scores(score_elements);
      return Status::ok();  // f64: the direct path
    } else {
      AMP_ASSIGN_OR_RETURN(const cuda::DeviceHandles* dev, device_handles(cfg));
      allow_tf32_ = dev->allow_tf32;
      dtype_ = cfg.inputs[0].dtype;
      const int64_t limit = std::numeric_limits<int>::max();
      const int64_t pairs = setup_.batch * setup_.q_heads;
      const bool plain = !setup_.has_past && !setup_.want_qk && pairs > 0 && setup_.q_len > 0 &&
                         setup_.total > 0 && setup_.head_size > 0 && setup_.v_head_size > 0;
      const bool gemm_fits = plain && pairs <= limit && setup_.q_len <= limit &&
                             setup_.total <= limit && setup_.head_size <= limit &&
                             setup_.q.s <= limit && setup_.k.s <= limit && setup_.v.s <= limit &&
                             setup_.y.s <= limit;
      const bool flash_fits =
          plain && setup_.head_size <= kFlashMaxHead && setup_.v_head_size <= kFlashMaxHead &&
          setup_.q_len / kFlashRows < std::numeric_limits<int>::max() &&  // grid.x
          flash_shared_bytes(setup_.head_size, setup_.v_head_size) <= size_t{48} << 10;
      // fp32 scores and the probabilities in T; fp32 probabilities overwrite the scores.
      const double score_bytes =
          score_elements *
          static_cast<double>(sizeof(float) + (std::is_same_v<T, float> ? 0 : sizeof(T)));
      // A forced path that does not apply is an error: a test forcing it must not pass on
      // another path.
      if ((forced == "flash" && !flash_fits) || (forced == "gemm" && !gemm_fits))
        return forced_path_does_not_apply(forced);
      if (forced == "direct")
        return scores_addressable ? Status::ok() : too_many_scores(score_elements);
      if (flash_fits &&
          (forced == "flash" ||
           (forced != "gemm" &&
            (!gemm_fits || score_bytes > static_cast<double>(kFlashAboveScoreBytes))))) {
        path_ = AttentionPath::kFlash;
        return Status::ok();
      }
      if (!scores_addressable) return too_many_scores(score_elements);
      if (!gemm_fits) return Status::ok();
      path_ = AttentionPath::kGemm;
      ws_ = WorkspaceLayout();
      off_cublas_ = ws_.add(kCublasWorkspace);
      off_pointers_ = ws_.add(static_cast<size_t>(pairs) * 6 * sizeof(void*));
      const size_t scores = static_cast<size_t>(pairs * setup_.q_len * setup_.total);
      off_scores_ = ws_.add(scores * sizeof(float));
      off_probs_ = std::is_same_v<T, float> ? off_scores_ : ws_.add(scores * sizeof(T));
      return Status::ok();
    }
  }

  // The path prepare() took, for profiles: which one served a node is otherwise invisible.
  std::string implementation() const override {
    switch (path_) {
      case AttentionPath::kGemm:
        return "attention: cuBLAS batched GEMMs + softmax kernel";
      case AttentionPath::kFlash:
        return "attention: own flash kernel (fp32 online softmax)";
      case AttentionPath::kDirect:
        break;
    }
    return "attention: own direct kernel";
  }

  size_t workspace_bytes() const override {
    if (path_ == AttentionPath::kGemm) return ws_.total();
    if (path_ == AttentionPath::kFlash) return 0;
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
      AMP_RETURN_IF_ERROR(launch_status("attention present"));
    }
    if (path_ == AttentionPath::kGemm) return run_gemm(a, st);
    if (path_ == AttentionPath::kFlash) return run_flash(a, st);
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

 private:
  static Status forced_path_does_not_apply(const std::string& path) {
    return unsupported("Attention: AMP_CUDA_ATTENTION=" + path + " forces a path that does not " +
                       "apply to this node (" +
                       (path == "flash"
                            ? "flash: fp32 / fp16 / bf16 without a past or qk_matmul_output, head "
                              "sizes up to 128"
                            : "gemm: fp32 / fp16 / bf16 without a past or qk_matmul_output, sizes "
                              "within int") +
                       ")");
  }

  static Status too_many_scores(double elements) {
    char n[32];
    std::snprintf(n, sizeof(n), "%.3g", elements);
    return unsupported("Attention: " + std::string(n) +
                       " attention scores (batch x heads x Sq x T) are more than its GEMM and "
                       "direct paths can hold, and the flash path does not apply (a past, "
                       "qk_matmul_output, f64 or head sizes over 128)");
  }

  Status run_flash(const KernelArgs& a, cudaStream_t st) const {
    if constexpr (!std::is_same_v<C, float>) {
      return internal_error("Attention: the flash path is for fp32 / fp16 / bf16");
    } else {
      // grid.y: batch x heads, capped at CUDA's 65535; the kernel strides over the rest.
      const int64_t pairs = setup_.batch * setup_.q_heads;
      const dim3 grid(static_cast<unsigned>((setup_.q_len + kFlashRows - 1) / kFlashRows),
                      static_cast<unsigned>(pairs < kMaxGridY ? pairs : kMaxGridY));
      flash_attention_kernel<T>
          <<<grid, kFlashRows * 32, flash_shared_bytes(setup_.head_size, setup_.v_head_size), st>>>(
              setup_, a.input<T>(0), a.input<T>(1), a.input<T>(2),
              setup_.has_mask ? a.inputs[3] : nullptr,
              setup_.has_nonpad ? a.input<int64_t>(6) : nullptr, a.output<T>(0));
      return launch_status("attention (flash)");
    }
  }

  Status run_gemm(const KernelArgs& a, cudaStream_t st) const {
    AMP_ASSIGN_OR_RETURN(const cuda::ContextHandles* ctx, context_handles(a));
    if (!ctx->cublas) return internal_error("Attention: no cuBLAS handle in the context");
    const int64_t pairs = setup_.batch * setup_.q_heads;
    void** ptr = reinterpret_cast<void**>(WorkspaceLayout::at(a.workspace, off_pointers_));
    const PairPointers pp{
        ptr, ptr + pairs, ptr + 2 * pairs, ptr + 3 * pairs, ptr + 4 * pairs, ptr + 5 * pairs};
    float* scores = reinterpret_cast<float*>(WorkspaceLayout::at(a.workspace, off_scores_));
    T* probs = reinterpret_cast<T*>(WorkspaceLayout::at(a.workspace, off_probs_));
    const int64_t elem = static_cast<int64_t>(sizeof(T));
    pair_pointers_kernel<<<grid_for(pairs), kThreads, 0, st>>>(
        setup_, static_cast<const char*>(a.inputs[0]), static_cast<const char*>(a.inputs[1]),
        static_cast<const char*>(a.inputs[2]), reinterpret_cast<char*>(scores),
        reinterpret_cast<char*>(probs), static_cast<char*>(a.outputs[0]), elem, elem, pp);
    AMP_RETURN_IF_ERROR(launch_status("attention pointers"));

    cublasHandle_t h = ctx->cublas;
    AMP_CUBLAS_RETURN_IF_ERROR(
        cublasSetWorkspace(h, WorkspaceLayout::at(a.workspace, off_cublas_), kCublasWorkspace));
    const cudaDataType_t type = cuda_type(dtype_);
    const cublasComputeType_t compute =
        std::is_same_v<T, float> && allow_tf32_ ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    const int sq = static_cast<int>(setup_.q_len), total = static_cast<int>(setup_.total);
    const int dk = static_cast<int>(setup_.head_size), dv = static_cast<int>(setup_.v_head_size);
    const float scale = static_cast<float>(setup_.scale), one = 1.0f, zero = 0.0f;
    // Column-major views of the row-major matrices: S^T [T, Sq] = (K [T, D]) (Q^T [D, Sq]).
    AMP_CUBLAS_RETURN_IF_ERROR(cublasGemmBatchedEx(
        h, CUBLAS_OP_T, CUBLAS_OP_N, total, sq, dk, &scale, pp.k, type,
        static_cast<int>(setup_.k.s), pp.q, type, static_cast<int>(setup_.q.s), &zero, pp.s,
        CUDA_R_32F, total, static_cast<int>(pairs), compute, CUBLAS_GEMM_DEFAULT));
    const int64_t rows = pairs * setup_.q_len;
    row_softmax_kernel<T><<<blocks_for(rows * 32, kThreads), kThreads, 0, st>>>(
        setup_, setup_.has_mask ? a.inputs[3] : nullptr,
        setup_.has_nonpad ? a.input<int64_t>(6) : nullptr, scores, probs);
    AMP_RETURN_IF_ERROR(launch_status("attention softmax"));
    // Y^T [Dv, Sq] = (V^T [Dv, T]) (P^T [T, Sq]).
    AMP_CUBLAS_RETURN_IF_ERROR(cublasGemmBatchedEx(
        h, CUBLAS_OP_N, CUBLAS_OP_N, dv, sq, total, &one, pp.v, type, static_cast<int>(setup_.v.s),
        pp.p, type, total, &zero, pp.y, type, static_cast<int>(setup_.y.s), static_cast<int>(pairs),
        compute, CUBLAS_GEMM_DEFAULT));
    return Status::ok();
  }

  AttentionPath path_ = AttentionPath::kDirect;
  bool allow_tf32_ = false;
  DType dtype_ = DType::kF32;
  WorkspaceLayout ws_;
  size_t off_cublas_ = 0, off_pointers_ = 0, off_scores_ = 0, off_probs_ = 0;
};

}  // namespace

void register_attention_kernels(KernelRegistry& r) {
  add_typed_kernels<AttentionKernel>(r, graph::OpType::kAttention, Backend::kCuda,
                                     reduction::FloatTypes{});
}

}  // namespace amp::kernels::cuda
