// Attention (opset 23/24) on the CPU, the algorithm of kernels/common/attention_plan.h, fp32
// arithmetic (f64 for f64) whatever the storage type.
//
// Blocked by (batch, query head): a task first copies its kv head's keys transposed,
// K^T [D, T], and its values, V [T, Dv], into a per-thread slice of the workspace in the
// compute type. The copies cost (D + Dv) T per task against the Sq (D + Dv) T multiply-adds
// they feed. Then:
//   - fp32 compute on a CPU with AVX2 and FMA (head_strips): query rows in strips of up to
//     6, the strip's scores S = Q K^T and outputs O = P V as register-blocked products
//     (gemm_strip_avx2.h, the packed GEMM's micro-kernel), each row's softmax between them:
//     scale and mask in one vectorized pass, max and sum by softmax_rows.h, exp by exp_f32. The
//     6-layer encoder at 128 tokens (demo_bert6_fused_128, Intel Xeon model 167 as
//     AVX2-only, one thread): attention 5.7 -> 2.7 ms of 33 -> 30; ONNX Runtime, whose
//     attention is unfused MatMuls and a Softmax, took 31-33 ms.
//     The copies go into panels of 16 columns (zero-padded), so the micro-kernel reads a
//     panel's rows one after another (K^T's rows were T apart). On a CPU with AVX-512 both
//     products run the AVX-512 micro-kernel (gemm_strip_avx512.h): 6 rows times 48 columns
//     a step, bit for bit what the AVX2 kernel computes. With the softmax's passes
//     vectorized per ISA (softmax_rows.h; 4 floats a step before), a
//     Whisper-tiny-style encoder's attention (6 heads of 64 over 500 frames, Intel Xeon
//     model 167, one thread) went from 6.0 to 3.5 ms a node, the encoder from 77 to 64 ms
//     (ONNX Runtime 74).
//   - otherwise (f64, or no AVX2) one query row at a time: its scores are D axpy steps over
//     a contiguous row of K^T and its output T axpy steps over rows of V, inner loops the
//     compiler vectorizes per ISA (AMP_ISA_CLONES), though without FMA: the build is ISO
//     C++, so GCC does not contract a * b + c.
// Causal masking alone (causal_only: no mask, padding, softcap or qk output): a strip
// computes the scores, and multiplies the values, only up to the last key its last row sees,
// and each row's softmax masks its own keys past that (a GPT-2-style decoder's attention at
// 128 tokens: half the multiply-adds).
// A strip of queries or less (a decoder's step; Whisper's cross-attention) reads K and V in
// place instead of copying them: head_in_place (2.6-3.0 -> 0.7-0.8 ms a cross-attention of
// Whisper-tiny's decoder, AMD EPYC, one thread).
// When there are fewer (batch, head) pairs than threads, or a number that does not divide
// among them, each pair's query rows are split into as many parts as make the tasks divide
// evenly (each part copies K^T and V again: (D + Dv) T against its rows' (D + Dv) T
// multiply-adds each). A ViT-tiny's 3 heads on 2 threads: the encoder 14.1 -> 11.9 ms with
// the AVX-512 kernel (ONNX Runtime 14.2). When K^T and V would not fit in kMaxBlockElements
// per thread (very long keys), each row reads K and V in place instead (row_direct: one dot
// product per key).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <numeric>

#include "kernels/common/attention_plan.h"
#include "kernels/common/checked_kernel.h"
#include "kernels/common/reduction_family.h"
#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/gemm_strip_avx2.h"
#include "kernels/cpu/gemm_strip_avx512.h"
#include "kernels/cpu/reduce_util.h"
#include "kernels/cpu/softmax_rows.h"
#include "kernels/cpu/vector_exp.h"

namespace amp::kernels::cpu {
namespace {

// s[j] = sum_d q[d] kt[d][j] for j < T: D passes over contiguous rows of K^T.
template <typename C>
AMP_ISA_CLONES void attention_scores(const C* __restrict__ q, const C* __restrict__ kt, int64_t dk,
                                     int64_t total, C* __restrict__ s) {
  for (int64_t j = 0; j < total; ++j) s[j] = C(0);
  for (int64_t d = 0; d < dk; ++d) {
    const C qd = q[d];
    const C* __restrict__ row = kt + d * total;
    for (int64_t j = 0; j < total; ++j) s[j] += qd * row[j];
  }
}

// acc[d] = sum_j p[j] v[j][d] for d < Dv: T passes over contiguous rows of V.
template <typename C>
AMP_ISA_CLONES void attention_weighted_sum(const C* __restrict__ p, const C* __restrict__ v,
                                           int64_t total, int64_t dv, C* __restrict__ acc) {
  for (int64_t d = 0; d < dv; ++d) acc[d] = C(0);
  for (int64_t j = 0; j < total; ++j) {
    const C w = p[j];
    const C* __restrict__ row = v + j * dv;
    for (int64_t d = 0; d < dv; ++d) acc[d] += w * row[d];
  }
}

// A row of storage values widened to the compute type, or narrowed back: fp16 / bf16 through
// bulk_cast (cpu_common.h), not one element at a time, which cost more than the products on
// short sequences.
template <typename T, typename C>
void widen_row(const T* src, C* dst, int64_t n) {
  if constexpr (kBulkCast<T, C>) {
    bulk_cast(src, dst, static_cast<size_t>(n));
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] = to_compute(src[i]);
  }
}
template <typename T, typename C>
void narrow_row(const C* src, T* dst, int64_t n) {
  if constexpr (kBulkCast<C, T>) {
    bulk_cast(src, dst, static_cast<size_t>(n));
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] = from_compute<T>(src[i]);
  }
}

template <typename T>
class AttentionKernel : public SetupKernel<AttentionPlan, check_attention_io> {
  using C = compute_t<T>;

 public:
  Status prepare_params(const KernelConfig& cfg) override {
    threads_ = std::max(1, cfg.num_threads);
    strips_ = std::is_same_v<C, float> && cpu_has_avx2_fma();
    panels_ = strips_;
    avx512_ = strips_ && cpu_has_avx512f();
    return Status::ok();
  }

  size_t workspace_bytes() const override {
    return static_cast<size_t>(threads_) * static_cast<size_t>(thread_scratch()) * sizeof(C);
  }

  Status run(const KernelArgs& a) const override {
    const T* q = a.input<T>(0);
    const T* k = a.input<T>(1);
    const T* v = a.input<T>(2);
    const void* mask = setup_.has_mask ? a.inputs[3] : nullptr;
    const T* past_k = setup_.has_past ? a.input<T>(4) : nullptr;
    const T* past_v = setup_.has_past ? a.input<T>(5) : nullptr;
    const int64_t* nonpad = setup_.has_nonpad ? a.input<int64_t>(6) : nullptr;
    if (setup_.want_present) {
      write_present(past_k, k, setup_.k, setup_.head_size, a.output<T>(1));
      write_present(past_v, v, setup_.v, setup_.v_head_size, a.output<T>(2));
    }
    T* y = a.output<T>(0);
    T* qk = setup_.want_qk ? a.output<T>(3) : nullptr;
    // Tasks: (batch, query head) pairs, their query rows in `splits` parts (header), when
    // blocked, else single query rows.
    const int64_t pairs = setup_.batch * setup_.q_heads;
    const bool in_place = few_queries();
    const int64_t splits =
        blocked() && !in_place ? row_splits(pairs, std::min<int64_t>(threads_, a.num_threads)) : 1;
    const int64_t tasks = blocked() || in_place ? pairs * splits : pairs * setup_.q_len;
    const int chunks = static_cast<int>(std::min<int64_t>({threads_, a.num_threads, tasks}));
    C* scratch = static_cast<C*>(a.workspace);
    parallel_for(
        std::max(chunks, 1), chunks,
        [&](int64_t c0, int64_t c1) {
          for (int64_t c = c0; c < c1; ++c) {
            C* s = scratch + c * thread_scratch();
            for (int64_t t = tasks * c / chunks; t < tasks * (c + 1) / chunks; ++t) {
              if constexpr (std::is_same_v<T, float>) {
                if (in_place) {
                  head_in_place(t, q, k, v, past_k, past_v, mask, nonpad, y, qk, s);
                  continue;
                }
              }
              if (blocked()) {
                head_block(t / splits, t % splits, splits, q, k, v, past_k, past_v, mask, nonpad, y,
                           qk, s);
              } else {
                row_direct(t, q, k, v, past_k, past_v, mask, nonpad, y, qk, s);
              }
            }
          }
        },
        /*grain=*/1);
    return Status::ok();
  }

 private:
  static constexpr int64_t kMaxBlockElements = int64_t{1} << 22;  // 16 MiB of fp32 per thread

  // K^T and V in a task's workspace: [D, T] and [T, Dv] row-major, or with panels_ (the
  // strips, both ISAs) in panels of kPanel = 16 columns, zero-padded: K^T's panel p holds keys [16
  // p, 16 p + 16), V's value columns [16 p, 16 p + 16), each a row of 16 per d or key.
  static constexpr int64_t kPanel = kAvx512PanelWidth;
  static int64_t padded(int64_t n) { return (n + kPanel - 1) / kPanel * kPanel; }
  int64_t kt_elements() const {
    return setup_.head_size * (panels_ ? padded(setup_.total) : setup_.total);
  }
  int64_t v_elements() const {
    return setup_.total * (panels_ ? padded(setup_.v_head_size) : setup_.v_head_size);
  }
  int64_t block_elements() const { return kt_elements() + v_elements(); }
  bool blocked() const { return block_elements() <= kMaxBlockElements; }

  // Causal masking and nothing else (no mask, padding, softcap or qk output): row i's
  // scores past keys_for(i) are masked, so they are neither computed nor read.
  bool causal_only() const {
    return setup_.causal && !setup_.has_mask && !setup_.has_nonpad && setup_.softcap <= 0.0f &&
           !setup_.want_qk;
  }
  int64_t keys_for(int64_t i) const {
    return causal_only() ? std::min(setup_.total, i + setup_.past_len + 1) : setup_.total;
  }

  // Parts to split each pair's query rows into so that pairs x parts tasks divide evenly
  // among `threads` (header); 1 where the parts would be shorter than two strips.
  int64_t row_splits(int64_t pairs, int64_t threads) const {
    const int64_t parts = threads / std::gcd(pairs, threads);
    return parts > 1 && setup_.q_len >= parts * 2 * kStripRows ? parts : 1;
  }

  // head_strips' groups of strips, and the keys of a block (its header).
  static constexpr int64_t kGroupStrips = 8;
  static constexpr int64_t kKeyBlock = 256;

  // A strip of queries or less over f32 keys and values (a decoder's step, Whisper's
  // cross-attention over 1500 frames): head_in_place reads K and V where they are.
  bool few_queries() const {
    return std::is_same_v<T, float> && strips_ && setup_.q_len <= kStripRows;
  }

  // Per thread: K^T and V when blocked, then the scores, output accumulators and query of
  // one row (of a group of strips of rows with strips_); head_in_place's own when it runs.
  int64_t thread_scratch() const {
    const int64_t total = setup_.total, dk = setup_.head_size, dv = setup_.v_head_size;
    if (few_queries()) return (total + dk) * kStripColumns + kStripRows * (total + dv);
    const int64_t rows = strips_ ? kGroupStrips * kStripRows : 1;
    return (blocked() ? block_elements() : 0) + rows * (total + dv + dk);
  }

  // Scores and bias of query row (b, h, i), softmax-normalized in s[0, T); writes the
  // requested qk_matmul_output row. `s` holds the raw dot products on entry.
  void softmax_row(int64_t b, int64_t h, int64_t i, const void* mask, const int64_t* nonpad,
                   T* qk_row, C* s, int64_t n) const {
    const C scale = static_cast<C>(setup_.scale);
    const bool biased = setup_.has_mask || setup_.causal || setup_.has_nonpad;
    // The common mask, an fp32 additive one and nothing else (a BERT padding mask): read
    // its row directly rather than through attention_bias's per-element dispatch, which
    // cost as much as the products on short sequences.
    const float* mask_row = nullptr;
    if (setup_.has_mask && !setup_.mask_bool && setup_.mask_dtype == DType::kF32 &&
        !setup_.causal && !setup_.has_nonpad)
      mask_row = static_cast<const float*>(mask) + b * setup_.mask_strides[0] +
                 h * setup_.mask_strides[1] + i * setup_.mask_strides[2];
    const int64_t mask_step = setup_.mask_strides[3];
    const bool plain = setup_.softcap <= 0.0f && qk_row == nullptr;
    if (causal_only()) {
      const int64_t keys = keys_for(i);
      scale_row(s, keys, scale);
      std::fill(s + keys, s + n, -C(INFINITY));
    } else if (plain && mask_row && mask_step == 1 && setup_.total <= setup_.mask_len) {
      scale_add_row(s, mask_row, setup_.total, scale);  // a BERT padding mask
    } else if (plain && !biased) {
      scale_row(s, setup_.total, scale);
    } else {
      for (int64_t j = 0; j < setup_.total; ++j) {
        C sj = attention_softcap(s[j] * scale, setup_.softcap);
        if (qk_row && setup_.qk_output_mode <= 1) qk_row[j] = from_compute<T>(sj);
        if (mask_row)
          sj += j < setup_.mask_len ? static_cast<C>(mask_row[j * mask_step]) : -C(INFINITY);
        else if (biased)
          sj += attention_bias<C>(setup_, mask, nonpad, b, h, i, j);
        if (qk_row && setup_.qk_output_mode == 2) qk_row[j] = from_compute<T>(sj);
        s[j] = sj;
      }
    }
    const C max = row_max(s, n);
    const bool none = max == -C(INFINITY);  // every key masked: the row attends to nothing
    if (none) {
      std::fill(s, s + n, C(0));
    } else if constexpr (std::is_same_v<C, float>) {
      subtract_row(s, s, n, max);
      exp_f32(s, s, n);  // vectorized, within 2 ulp of std::exp
    } else {
      for (int64_t j = 0; j < n; ++j) s[j] = std::exp(s[j] - max);
    }
    const C sum = row_sum(s, n);
    const C inv = none ? C(0) : C(1) / sum;
    scale_row(s, n, inv);
    if (qk_row && setup_.qk_output_mode == 3)
      for (int64_t j = 0; j < n; ++j) qk_row[j] = from_compute<T>(s[j]);
  }

  // Part `part` of `parts` of the query rows of (batch, query head) pair `pair`, over K^T
  // and V copied into `w`.
  void head_block(int64_t pair, int64_t part, int64_t parts, const T* q, const T* k, const T* v,
                  const T* past_k, const T* past_v, const void* mask, const int64_t* nonpad, T* y,
                  T* qk, C* w) const {
    const int64_t h = pair % setup_.q_heads, b = pair / setup_.q_heads, kvh = h / setup_.group();
    const int64_t total = setup_.total, dk = setup_.head_size, dv = setup_.v_head_size;
    const int64_t i0 = setup_.q_len * part / parts, i1 = setup_.q_len * (part + 1) / parts;
    C* kt = w;                   // K^T
    C* vc = kt + kt_elements();  // V
    const int64_t rows = strips_ ? kGroupStrips * kStripRows : 1;
    C* s = vc + v_elements();   // [rows, T]
    C* acc = s + rows * total;  // [rows, Dv]
    C* qc = acc + rows * dv;    // [rows, D]
    if (panels_) {
      copy_into_panels(b, kvh, k, v, past_k, past_v, kt, vc, qc);
    } else {
      for (int64_t j = 0; j < total; ++j) {
        widen_row(kv_row(past_k, k, setup_.k, dk, b, kvh, j), qc, dk);  // qc: a row's room
        for (int64_t d = 0; d < dk; ++d) kt[d * total + j] = qc[d];
        widen_row(kv_row(past_v, v, setup_.v, dv, b, kvh, j), vc + j * dv, dv);
      }
    }
    if constexpr (std::is_same_v<C, float>) {
      if (strips_) return head_strips(b, h, i0, i1, q, mask, nonpad, y, qk, kt, vc, s, acc, qc);
    }
    for (int64_t i = i0; i < i1; ++i) {
      widen_row(q + setup_.q.at(b, h, i), qc, dk);
      attention_scores(qc, kt, dk, total, s);
      const int64_t r = (b * setup_.q_heads + h) * setup_.q_len + i;
      softmax_row(b, h, i, mask, nonpad, qk ? qk + r * total : nullptr, s, total);
      attention_weighted_sum(s, vc, total, dv, acc);
      narrow_row(acc, y + setup_.y.at(b, h, i), dv);
    }
  }

  // K^T and V of (b, kv head kvh) into panels of kPanel columns (panels_; see kt_elements).
  // `row`: room for one row of D or Dv.
  void copy_into_panels(int64_t b, int64_t kvh, const T* k, const T* v, const T* past_k,
                        const T* past_v, C* kt, C* vc, C* row) const {
    const int64_t total = setup_.total, dk = setup_.head_size, dv = setup_.v_head_size;
    if (total % kPanel != 0)  // the last panel's keys past T
      std::fill(kt + dk * (padded(total) - kPanel), kt + kt_elements(), C(0));
    for (int64_t j = 0; j < total; ++j) {
      widen_row(kv_row(past_k, k, setup_.k, dk, b, kvh, j), row, dk);
      C* panel = kt + j / kPanel * dk * kPanel + j % kPanel;
      for (int64_t d = 0; d < dk; ++d) panel[d * kPanel] = row[d];
    }
    if (dv % kPanel != 0) std::fill(vc + (padded(dv) - kPanel) * total, vc + v_elements(), C(0));
    for (int64_t j = 0; j < total; ++j) {
      widen_row(kv_row(past_v, v, setup_.v, dv, b, kvh, j), row, dv);
      for (int64_t d = 0; d < dv; d += kPanel)
        std::copy(row + d, row + std::min(d + kPanel, dv), vc + d * total + j * kPanel);
    }
  }

  // head_block's rows [i0, i1) in strips of up to kStripRows query rows: the strip's scores
  // S = Q K^T and outputs O = P V as register-blocked products (gemm_strip_avx2.h, or
  // gemm_strip_avx512.h over panels), each row's softmax between them. Strips go in groups
  // of up to kGroupStrips, and each product walks the keys in blocks of kKeyBlock, every
  // strip of the group taking a block before the next: a block of K^T and of V (64 KiB
  // each at D = 64) stays in L2 for the whole group. One strip at a time read all of K^T
  // and V per strip, from L3 once they outgrow L2. Whisper-tiny's encoder attention (6 heads
  // of 64 over 1500 frames, AMD EPYC, one thread): 62 ms a node with strips alone and K^T
  // [D, T], 51-52.5 with groups, blocks and panels; ONNX Runtime's Attention 49-49.5.
  // s: [group rows, T], acc: [group rows, Dv], qc: [group rows, D].
  void head_strips(int64_t b, int64_t h, int64_t i0, int64_t i1, const T* q, const void* mask,
                   const int64_t* nonpad, T* y, T* qk, const float* kt, const float* vc, float* s,
                   float* acc, float* qc) const {
    const int64_t total = setup_.total, dk = setup_.head_size, dv = setup_.v_head_size;
    const int64_t strips = strip_count(i1 - i0);
    // Columns per AVX-512 step: 48, or for the outputs, Dv's panels in even groups (Dv = 64
    // as 2 + 2 panels: 12 FMA chains each, where 3 + 1 left the last step 6, too few to
    // hide the FMA latency).
    constexpr int64_t kPanelsWidth = kPanel * kAvx512StripPanels;
    const int64_t v_panels = padded(dv) / kPanel;
    const int64_t v_steps = (v_panels + kAvx512StripPanels - 1) / kAvx512StripPanels;
    const int64_t v_width = kPanel * ((v_panels + v_steps - 1) / v_steps);
    auto panels_of = [](int64_t width) { return static_cast<int>((width + kPanel - 1) / kPanel); };
    auto first_row = [&](int64_t st) { return i0 + strip_begin(i1 - i0, strips, st); };
    for (int64_t g0 = 0; g0 < strips; g0 += kGroupStrips) {
      const int64_t g1 = std::min(strips, g0 + kGroupStrips);
      const int64_t base = first_row(g0);
      for (int64_t i = base; i < first_row(g1); ++i)
        widen_row(q + setup_.q.at(b, h, i), qc + (i - base) * dk, dk);
      // The keys the group's last row sees; each strip's own in keys_of.
      const int64_t group_keys = keys_for(first_row(g1) - 1);
      auto keys_of = [&](int64_t st) { return keys_for(first_row(st + 1) - 1); };
      for (int64_t j0 = 0; j0 < group_keys; j0 += kKeyBlock) {
        for (int64_t st = g0; st < g1; ++st) {
          const int64_t r0 = first_row(st), rows = first_row(st + 1) - r0;
          const int64_t j1 = std::min(j0 + kKeyBlock, keys_of(st));
          const float* qs = qc + (r0 - base) * dk;
          float* ss = s + (r0 - base) * total;
          if (avx512_) {
            for (int64_t j = j0; j < j1; j += kPanelsWidth) {
              const int64_t width = std::min(kPanelsWidth, j1 - j);
              gemm_strip_avx512(rows, qs, dk, kt + j * dk, dk * kPanel, panels_of(width), dk,
                                ss + j, total, nullptr, /*first=*/true, width);
            }
          } else {
            for (int64_t j = j0; j < j1; j += kStripColumns)
              gemm_strip_avx2(rows, qs, dk, kt + j * dk, kPanel, dk, ss + j, total, nullptr,
                              /*first=*/true, std::min(kStripColumns, j1 - j),
                              /*b_rows_padded=*/true);
          }
        }
      }
      for (int64_t st = g0; st < g1; ++st) {
        const int64_t r0 = first_row(st), rows = first_row(st + 1) - r0;
        for (int64_t r = 0; r < rows; ++r) {
          const int64_t row = (b * setup_.q_heads + h) * setup_.q_len + r0 + r;
          softmax_row(b, h, r0 + r, mask, nonpad, qk ? qk + row * total : nullptr,
                      s + (r0 - base + r) * total, keys_of(st));
        }
      }
      // O = P V, block by block: the first block starts each strip's sums (also with no
      // keys: O = 0), later ones add to them.
      for (int64_t j0 = 0; j0 == 0 || j0 < group_keys; j0 += kKeyBlock) {
        for (int64_t st = g0; st < g1; ++st) {
          const int64_t r0 = first_row(st), rows = first_row(st + 1) - r0;
          const int64_t kc = std::min(j0 + kKeyBlock, keys_of(st)) - j0;
          if (kc <= 0 && j0 > 0) continue;
          const float* ps = s + (r0 - base) * total + j0;
          float* as = acc + (r0 - base) * dv;
          const bool first = j0 == 0;
          const int64_t keys = std::max<int64_t>(kc, 0);
          if (avx512_) {
            for (int64_t d = 0; d < dv; d += v_width) {
              const int64_t width = std::min(v_width, dv - d);
              gemm_strip_avx512(rows, ps, total, vc + d * total + j0 * kPanel, total * kPanel,
                                panels_of(width), keys, as + d, dv, nullptr, first, width);
            }
          } else {
            for (int64_t d = 0; d < dv; d += kStripColumns)
              gemm_strip_avx2(rows, ps, total, vc + d * total + j0 * kPanel, kPanel, keys, as + d,
                              dv, nullptr, first, std::min(kStripColumns, dv - d),
                              /*b_rows_padded=*/true);
          }
        }
      }
      for (int64_t i = base; i < first_row(g1); ++i)
        narrow_row(acc + (i - base) * dv, y + setup_.y.at(b, h, i), dv);
    }
  }

  // The rows of (b, kv head h)'s keys or values: the past ones, then the new ones, each a
  // run of rows `ld` apart.
  struct KvRun {
    const float* rows;
    int64_t ld, count;
  };
  std::array<KvRun, 2> kv_runs(const T* past, const T* now, const HeadStrides& st, int64_t size,
                               int64_t b, int64_t h) const {
    const float* p = reinterpret_cast<const float*>(past);
    const float* n = reinterpret_cast<const float*>(now);
    return {KvRun{p ? p + (b * setup_.kv_heads + h) * setup_.past_len * size : nullptr, size,
                  setup_.past_len},
            KvRun{n + st.at(b, h, 0), st.s, setup_.kv_len}};
  }

  // Every query row of (batch, query head) pair `pair`, q_len <= kStripRows (few_queries),
  // with K and V read in place: the scores as S^T = K Q^T, keys a strip's rows against Q^T
  // in one 16-column panel (gemm_strip_avx2.h), turned into rows, each row's softmax, then
  // O = P V with V's rows as B. Copying K^T and V for a few queries cost more than the
  // products: Whisper-tiny's cross-attention (4 queries, 6 heads of 64 over 1500 frames)
  // took 2.6-3.0 ms a node (AMD EPYC, one thread).
  void head_in_place(int64_t pair, const T* q, const T* k, const T* v, const T* past_k,
                     const T* past_v, const void* mask, const int64_t* nonpad, T* y, T* qk,
                     float* w) const {
    const int64_t h = pair % setup_.q_heads, b = pair / setup_.q_heads, kvh = h / setup_.group();
    const int64_t total = setup_.total, dk = setup_.head_size, dv = setup_.v_head_size;
    const int64_t rows = setup_.q_len;
    float* qt = w;                          // Q^T [D, 16], zero-padded
    float* st = qt + dk * kStripColumns;    // S^T [T, 16]
    float* s = st + total * kStripColumns;  // S [rows, T]
    float* acc = s + kStripRows * total;    // O [rows, Dv]
    std::fill(qt, qt + dk * kStripColumns, 0.0f);
    for (int64_t r = 0; r < rows; ++r) {
      const float* qr = reinterpret_cast<const float*>(q) + setup_.q.at(b, h, r);
      for (int64_t d = 0; d < dk; ++d) qt[d * kStripColumns + r] = qr[d];
    }
    int64_t j0 = 0;
    for (const KvRun& run : kv_runs(past_k, k, setup_.k, dk, b, kvh)) {
      for (int64_t j = 0; j < run.count; j += kStripRows) {
        const int64_t keys = std::min(kStripRows, run.count - j);
        gemm_strip_avx2(keys, run.rows + j * run.ld, run.ld, qt, kStripColumns, dk,
                        st + (j0 + j) * kStripColumns, kStripColumns, nullptr, /*first=*/true, rows,
                        /*b_rows_padded=*/true);
      }
      j0 += run.count;
    }
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t j = 0; j < total; ++j) s[r * total + j] = st[j * kStripColumns + r];
      const int64_t row = (b * setup_.q_heads + h) * setup_.q_len + r;
      softmax_row(b, h, r, mask, nonpad, qk ? qk + row * total : nullptr, s + r * total, total);
    }
    std::fill(acc, acc + rows * dv, 0.0f);  // no keys at all: O = 0
    j0 = 0;
    for (const KvRun& run : kv_runs(past_v, v, setup_.v, dv, b, kvh)) {
      if (run.count == 0) continue;
      for (int64_t d = 0; d < dv; d += kStripColumns)
        gemm_strip_avx2(rows, s + j0, total, run.rows + d, run.ld, run.count, acc + d, dv, nullptr,
                        /*first=*/false, std::min(kStripColumns, dv - d));
      j0 += run.count;
    }
    for (int64_t r = 0; r < rows; ++r) narrow_row(acc + r * dv, y + setup_.y.at(b, h, r), dv);
  }

  // present = past (if any) then the new keys/values, [B, Hkv, T, size].
  void write_present(const T* past, const T* now, const HeadStrides& st, int64_t size,
                     T* out) const {
    for (int64_t b = 0; b < setup_.batch; ++b)
      for (int64_t h = 0; h < setup_.kv_heads; ++h) {
        T* dst = out + (b * setup_.kv_heads + h) * setup_.total * size;
        if (setup_.past_len > 0)
          std::memcpy(dst, past + (b * setup_.kv_heads + h) * setup_.past_len * size,
                      static_cast<size_t>(setup_.past_len * size) * sizeof(T));
        for (int64_t j = 0; j < setup_.kv_len; ++j)
          std::memcpy(dst + (setup_.past_len + j) * size, now + st.at(b, h, j),
                      static_cast<size_t>(size) * sizeof(T));
      }
  }

  // Key or value row j of kv head h: from the past, else from the new tensor.
  const T* kv_row(const T* past, const T* now, const HeadStrides& st, int64_t size, int64_t b,
                  int64_t h, int64_t j) const {
    if (j < setup_.past_len) return past + ((b * setup_.kv_heads + h) * setup_.past_len + j) * size;
    return now + st.at(b, h, j - setup_.past_len);
  }

  // Query row r read against K and V in place (no copies): one dot product per key.
  void row_direct(int64_t r, const T* q, const T* k, const T* v, const T* past_k, const T* past_v,
                  const void* mask, const int64_t* nonpad, T* y, T* qk, C* s) const {
    const int64_t i = r % setup_.q_len;
    const int64_t h = (r / setup_.q_len) % setup_.q_heads;
    const int64_t b = r / (setup_.q_len * setup_.q_heads);
    const int64_t kvh = h / setup_.group();
    const T* qr = q + setup_.q.at(b, h, i);
    for (int64_t j = 0; j < setup_.total; ++j) {
      const T* kr = kv_row(past_k, k, setup_.k, setup_.head_size, b, kvh, j);
      C dot = C(0);
      for (int64_t d = 0; d < setup_.head_size; ++d) dot += to_compute(qr[d]) * to_compute(kr[d]);
      s[j] = dot;
    }
    softmax_row(b, h, i, mask, nonpad, qk ? qk + r * setup_.total : nullptr, s, setup_.total);
    C* acc = s + setup_.total;
    std::fill(acc, acc + setup_.v_head_size, C(0));
    for (int64_t j = 0; j < setup_.total; ++j) {
      const T* vr = kv_row(past_v, v, setup_.v, setup_.v_head_size, b, kvh, j);
      const C w = s[j];
      for (int64_t d = 0; d < setup_.v_head_size; ++d) acc[d] += w * to_compute(vr[d]);
    }
    T* yr = y + setup_.y.at(b, h, i);
    for (int64_t d = 0; d < setup_.v_head_size; ++d) yr[d] = from_compute<T>(acc[d]);
  }

  int64_t threads_ = 1;
  bool strips_ = false;  // blocked heads run head_strips (f32 compute on an AVX2 + FMA CPU)
  bool panels_ = false;  // ... over K^T and V in panels (header)
  bool avx512_ = false;  // ... on the AVX-512 kernel
};

}  // namespace

void register_attention_kernels(KernelRegistry& r) {
  add_typed_kernels<AttentionKernel>(r, graph::OpType::kAttention, Backend::kCpu,
                                     reduction::FloatTypes{});
}

}  // namespace amp::kernels::cpu
