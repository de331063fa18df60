#include "kernels/cpu/gemm_strip_avx2.h"

#include <immintrin.h>

#include "kernels/cpu/cpu_common.h"

namespace amp::kernels::cpu {
namespace {

// Lanes [0, width) of a register of 8, for the masked loads and stores of a narrow strip.
AMP_AVX2_FMA inline __m256i lane_mask(int64_t width) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(width)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

template <bool kMasked>
AMP_AVX2_FMA inline __m256 load8(const float* p, __m256i mask) {
  if constexpr (kMasked) return _mm256_maskload_ps(p, mask);
  return _mm256_loadu_ps(p);
}

// The MR x (8 NV) tile at c; NV = 1 for a width of at most 8. kMaskB: b's loads are masked
// too (kMasked alone masks bias and c). kPrefetch: b's row 16 ahead is prefetched, for strips
// of up to 4 rows, which use each row of b for 4 FMAs or fewer, so b's stream from L2 sets
// their pace: the recurrent layers' per-step product of a batch of 4 (recurrent_packed.h;
// a bidirectional LSTM-256 at batch 4, 200 steps, one thread: 12.6 -> 12.3 ms as AVX2-only,
// Intel Xeon model 167). Strips of 5 and 6 rows measured no faster with it.
template <int MR, int NV, bool kMasked, bool kMaskB, bool kPrefetch = (MR <= 4)>
AMP_AVX2_FMA void tile(const float* __restrict__ x, int64_t ldx, const float* __restrict__ b,
                       int64_t ldb, int64_t kc, float* __restrict__ c, int64_t ldc,
                       const float* bias, bool first, int64_t width) {
  const __m256i mask[2] = {lane_mask(width), lane_mask(width - 8)};
  __m256 acc[MR][NV];
  __m256 start[NV];
  _Pragma("GCC unroll 2") for (int v = 0; v < NV; ++v) start[v] =
      first && bias ? load8<kMasked>(bias + 8 * v, mask[v]) : _mm256_setzero_ps();
  _Pragma("GCC unroll 8") for (int r = 0; r < MR; ++r) {
    _Pragma("GCC unroll 2") for (int v = 0; v < NV; ++v) acc[r][v] =
        first ? start[v] : load8<kMasked>(c + r * ldc + 8 * v, mask[v]);
  }
  _Pragma("GCC unroll 2") for (int64_t k = 0; k < kc; ++k) {
    __m256 w[NV];
    if constexpr (kPrefetch)
      _mm_prefetch(reinterpret_cast<const char*>(b + (k + 16) * ldb), _MM_HINT_T0);
    _Pragma("GCC unroll 2") for (int v = 0; v < NV; ++v) w[v] =
        load8<kMaskB>(b + k * ldb + 8 * v, mask[v]);
    _Pragma("GCC unroll 8") for (int r = 0; r < MR; ++r) {
      const __m256 xv = _mm256_broadcast_ss(x + r * ldx + k);
      _Pragma("GCC unroll 2") for (int v = 0; v < NV; ++v) acc[r][v] =
          _mm256_fmadd_ps(xv, w[v], acc[r][v]);
    }
  }
  _Pragma("GCC unroll 8") for (int r = 0; r < MR; ++r) {
    _Pragma("GCC unroll 2") for (int v = 0; v < NV; ++v) {
      if constexpr (kMasked)
        _mm256_maskstore_ps(c + r * ldc + 8 * v, mask[v], acc[r][v]);
      else
        _mm256_storeu_ps(c + r * ldc + 8 * v, acc[r][v]);
    }
  }
}

template <int NV, bool kMasked, bool kMaskB = kMasked>
AMP_AVX2_FMA void tile_rows(int64_t rows, const float* x, int64_t ldx, const float* b, int64_t ldb,
                            int64_t kc, float* c, int64_t ldc, const float* bias, bool first,
                            int64_t width) {
  switch (rows) {
    case 1:
      return tile<1, NV, kMasked, kMaskB>(x, ldx, b, ldb, kc, c, ldc, bias, first, width);
    case 2:
      return tile<2, NV, kMasked, kMaskB>(x, ldx, b, ldb, kc, c, ldc, bias, first, width);
    case 3:
      return tile<3, NV, kMasked, kMaskB>(x, ldx, b, ldb, kc, c, ldc, bias, first, width);
    case 4:
      return tile<4, NV, kMasked, kMaskB>(x, ldx, b, ldb, kc, c, ldc, bias, first, width);
    case 5:
      return tile<5, NV, kMasked, kMaskB>(x, ldx, b, ldb, kc, c, ldc, bias, first, width);
    default:
      return tile<6, NV, kMasked, kMaskB>(x, ldx, b, ldb, kc, c, ldc, bias, first, width);
  }
}

}  // namespace

bool cpu_has_avx2_fma() {
#if defined(__GNUC__) && defined(__x86_64__)
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

AMP_AVX2_FMA void gemm_strip_avx2(int64_t rows, const float* x, int64_t ldx, const float* b,
                                  int64_t ldb, int64_t kc, float* c, int64_t ldc, const float* bias,
                                  bool first, int64_t width, bool b_rows_padded) {
  if (width == kStripColumns)
    tile_rows<2, false>(rows, x, ldx, b, ldb, kc, c, ldc, bias, first, width);
  else if (width == 8)
    tile_rows<1, false>(rows, x, ldx, b, ldb, kc, c, ldc, bias, first, width);
  else if (width < 8 && b_rows_padded)
    tile_rows<1, true, false>(rows, x, ldx, b, ldb, kc, c, ldc, bias, first, width);
  else if (width < 8)
    tile_rows<1, true>(rows, x, ldx, b, ldb, kc, c, ldc, bias, first, width);
  else if (b_rows_padded)
    tile_rows<2, true, false>(rows, x, ldx, b, ldb, kc, c, ldc, bias, first, width);
  else
    tile_rows<2, true>(rows, x, ldx, b, ldb, kc, c, ldc, bias, first, width);
}

}  // namespace amp::kernels::cpu
