#include "kernels/cpu/packed_gemv.h"

#include <immintrin.h>

#include <algorithm>

#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/gemm_strip_avx512.h"
#include "kernels/cpu/gemv_panels.h"
#include "kernels/cpu/vector_activation.h"

namespace amp::kernels::cpu {
namespace {

constexpr int64_t kColumns = PackedGemv::kColumns;
static_assert(kColumns == gemv_panels::kColumns, "the panels are gemv_panels.h's");
constexpr int kVectors = kColumns / 8;

// The 64 outputs of one panel; `width` of them are stored.
AMP_AVX2_FMA void panel(const float* __restrict__ x, const float* __restrict__ bp, int64_t k,
                        float* __restrict__ y, int64_t width, bool accumulate) {
  __m256 acc[kVectors];
  if (accumulate && width == kColumns) {
    for (int v = 0; v < kVectors; ++v) acc[v] = _mm256_loadu_ps(y + 8 * v);
  } else {
    alignas(32) float start[kColumns] = {};
    if (accumulate) std::copy(y, y + width, start);
    for (int v = 0; v < kVectors; ++v) acc[v] = _mm256_load_ps(start + 8 * v);
  }
  for (int64_t kk = 0; kk < k; ++kk) {
    const __m256 xv = _mm256_broadcast_ss(x + kk);
    const float* row = bp + kk * kColumns;
    // B's row 16 ahead (4 lines): each row feeds 8 FMAs once, so the stream from L2 sets
    // the pace (a 2-layer LSTM-256 at batch 1, 200 steps: 5.9 -> 5.2 ms at one thread,
    // 3.6 -> 3.3 at two, as AVX2-only on an Intel Xeon model 167; no change with AVX-512,
    // whose panels below go without).
    _Pragma("GCC unroll 4") for (int l = 0; l < 4; ++l)
        _mm_prefetch(reinterpret_cast<const char*>(row + 16 * kColumns + 16 * l), _MM_HINT_T0);
    _Pragma("GCC unroll 8") for (int v = 0; v < kVectors; ++v) acc[v] =
        _mm256_fmadd_ps(xv, _mm256_load_ps(row + 8 * v), acc[v]);
  }
  gemv_panels::store_panel(acc, y, width);
}

// Panels [0, NP) at bp (each k * kColumns floats after the one before) on AVX-512, for R
// rows of x (ldx apart) into R rows of y (ldy apart): 4 NP registers of 16 outputs a row,
// `width` of them stored (the last panel's may be fewer than 64). Two panels keep 8
// independent FMA chains, as the AVX2 panel does with its 8 registers of 8; each load of B
// feeds R of them, so up to 3 rows (24 accumulators) take no more of B's stream than one.
template <int NP, int R>
AMP_AVX512F void panels_avx512(const float* __restrict__ x, int64_t ldx,
                               const float* __restrict__ bp, int64_t k, float* __restrict__ y,
                               int64_t ldy, int64_t width, bool accumulate) {
  constexpr int kRegs = NP * kColumns / 16;
  __mmask16 mask[kRegs];
  __m512 acc[R][kRegs];
  for (int v = 0; v < kRegs; ++v) mask[v] = avx512_lanes(width - 16 * v);
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < kRegs; ++v)
      acc[r][v] =
          accumulate ? _mm512_maskz_loadu_ps(mask[v], y + r * ldy + 16 * v) : _mm512_setzero_ps();
  for (int64_t kk = 0; kk < k; ++kk) {
    __m512 xv[R];
    for (int r = 0; r < R; ++r) xv[r] = _mm512_set1_ps(x[r * ldx + kk]);
    _Pragma("GCC unroll 8") for (int v = 0; v < kRegs; ++v) {
      const __m512 w = _mm512_loadu_ps(bp + (v / 4) * k * kColumns + kk * kColumns + 16 * (v % 4));
      for (int r = 0; r < R; ++r) acc[r][v] = _mm512_fmadd_ps(xv[r], w, acc[r][v]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < kRegs; ++v) _mm512_mask_storeu_ps(y + r * ldy + 16 * v, mask[v], acc[r][v]);
}

// panels_avx512 for 1 to 4 rows over up to two panels (`width` <= 2 kColumns): four rows
// take the panels one at a time (16 accumulators each).
void panels_avx512_rows(const float* x, int64_t ldx, int64_t rows, const float* bp, int64_t k,
                        float* y, int64_t ldy, int64_t width, bool accumulate) {
  if (rows == 4) {
    for (int64_t j = 0; j < width; j += kColumns)
      panels_avx512<1, 4>(x, ldx, bp + (j / kColumns) * k * kColumns, k, y + j, ldy,
                          std::min(kColumns, width - j), accumulate);
    return;
  }
  if (width <= kColumns) {
    if (rows == 1) return panels_avx512<1, 1>(x, ldx, bp, k, y, ldy, width, accumulate);
    if (rows == 2) return panels_avx512<1, 2>(x, ldx, bp, k, y, ldy, width, accumulate);
    return panels_avx512<1, 3>(x, ldx, bp, k, y, ldy, width, accumulate);
  }
  if (rows == 1) return panels_avx512<2, 1>(x, ldx, bp, k, y, ldy, width, accumulate);
  if (rows == 2) return panels_avx512<2, 2>(x, ldx, bp, k, y, ldy, width, accumulate);
  panels_avx512<2, 3>(x, ldx, bp, k, y, ldy, width, accumulate);
}

}  // namespace

bool PackedGemv::suits_this_cpu() {
#if defined(__GNUC__) && defined(__x86_64__)
  static const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return ok;
#else
  return false;
#endif
}

int64_t PackedGemv::max_rows() {
  return cpu_has_avx512f() ? 4 : 2;
}

void PackedGemv::prepare(int64_t k, int64_t n, const float* b, int64_t stride_k, int64_t stride_n,
                         const std::shared_ptr<const void>& owner) {
  k_ = k;
  n_ = n;
  b_ = gemv_panels::packed(k, n, b, stride_k, stride_n, owner);
}

void PackedGemv::run(const float* x, float* y, bool accumulate, int64_t j0, int64_t j1) const {
  static const bool avx512 = cpu_has_avx512f();
  const int64_t p1 = gemv_panels::count(j1);
  if (avx512) {
    // Two panels a step; the last panel of the range alone (it may end before N).
    for (int64_t p = j0 / kColumns; p < p1; p += 2) {
      const int64_t width = std::min({2 * kColumns, (p1 - p) * kColumns, n_ - p * kColumns});
      panels_avx512_rows(x, 0, 1, b_.get() + p * k_ * kColumns, k_, y + p * kColumns, 0, width,
                         accumulate);
    }
    return;
  }
  for (int64_t p = j0 / kColumns; p < p1; ++p)
    panel(x, b_.get() + p * k_ * kColumns, k_, y + p * kColumns,
          std::min(kColumns, n_ - p * kColumns), accumulate);
}

void PackedGemv::run_rows(const float* x, int64_t rows, const float* bias,
                          const graph::FusedActivation& act, float* y, int threads) const {
  // A share is two panels with AVX-512 (all rows at once), one with AVX2 (row after row: 8
  // registers of 8 a row leave no room for a second, and the panel is still in L2 for the
  // next row). Threads split the shares once each has ~64K weights (waking a thread costs
  // more).
  static const bool avx512 = cpu_has_avx512f();
  const int64_t share = (avx512 ? 2 : 1) * kColumns;
  const int64_t shares = (n_ + share - 1) / share;
  const int64_t grain = std::max<int64_t>(1, 65536 / std::max<int64_t>(1, k_ * share));
  parallel_for(
      shares, threads,
      [&](int64_t s0, int64_t s1) {
        for (int64_t s = s0; s < s1; ++s) {
          const int64_t j0 = s * share, j1 = std::min(n_, j0 + share);
          if (bias != nullptr)
            for (int64_t r = 0; r < rows; ++r) std::copy(bias + j0, bias + j1, y + r * n_ + j0);
          const float* bp = b_.get() + (j0 / kColumns) * k_ * kColumns;
          if (avx512) {
            panels_avx512_rows(x, k_, rows, bp, k_, y + j0, n_, j1 - j0, bias != nullptr);
          } else {
            for (int64_t r = 0; r < rows; ++r)
              panel(x + r * k_, bp, k_, y + r * n_ + j0, j1 - j0, bias != nullptr);
          }
          if (act.kind != graph::ActivationKind::kNone)
            for (int64_t r = 0; r < rows; ++r) activate_f32(act, y + r * n_ + j0, j1 - j0);
        }
      },
      grain);
}

HeldConstant PackedGemv::held_constant() const {
  return {b_.get(), b_ ? gemv_panels::bytes(k_, n_, sizeof(float)) : 0};
}

}  // namespace amp::kernels::cpu
