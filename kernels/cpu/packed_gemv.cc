#include "kernels/cpu/packed_gemv.h"

#include <immintrin.h>

#include <algorithm>

#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/gemm_strip_avx512.h"
#include "kernels/cpu/gemv_panels.h"

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

// Panels [0, NP) at bp (each k * kColumns floats after the one before) on AVX-512: 4 NP
// registers of 16 outputs, `width` of them stored (the last panel's may be fewer than 64).
// Two panels keep 8 independent FMA chains, as the AVX2 panel does with its 8 registers of 8.
template <int NP>
AMP_AVX512F void panels_avx512(const float* __restrict__ x, const float* __restrict__ bp, int64_t k,
                               float* __restrict__ y, int64_t width, bool accumulate) {
  constexpr int kRegs = NP * kColumns / 16;
  __mmask16 mask[kRegs];
  __m512 acc[kRegs];
  for (int v = 0; v < kRegs; ++v) {
    mask[v] = avx512_lanes(width - 16 * v);
    acc[v] = accumulate ? _mm512_maskz_loadu_ps(mask[v], y + 16 * v) : _mm512_setzero_ps();
  }
  for (int64_t kk = 0; kk < k; ++kk) {
    const __m512 xv = _mm512_set1_ps(x[kk]);
    _Pragma("GCC unroll 8") for (int v = 0; v < kRegs; ++v) acc[v] = _mm512_fmadd_ps(
        xv, _mm512_loadu_ps(bp + (v / 4) * k * kColumns + kk * kColumns + 16 * (v % 4)), acc[v]);
  }
  for (int v = 0; v < kRegs; ++v) _mm512_mask_storeu_ps(y + 16 * v, mask[v], acc[v]);
}

}  // namespace

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
    for (int64_t p = j0 / kColumns; p < p1; p += 2) {
      const int64_t width = std::min(2 * kColumns, n_ - p * kColumns);
      if (p + 1 < p1)
        panels_avx512<2>(x, b_.get() + p * k_ * kColumns, k_, y + p * kColumns, width, accumulate);
      else
        panels_avx512<1>(x, b_.get() + p * k_ * kColumns, k_, y + p * kColumns,
                         std::min(kColumns, width), accumulate);
    }
    return;
  }
  for (int64_t p = j0 / kColumns; p < p1; ++p)
    panel(x, b_.get() + p * k_ * kColumns, k_, y + p * kColumns,
          std::min(kColumns, n_ - p * kColumns), accumulate);
}

HeldConstant PackedGemv::held_constant() const {
  return {b_.get(), b_ ? gemv_panels::bytes(k_, n_, sizeof(float)) : 0};
}

}  // namespace amp::kernels::cpu
