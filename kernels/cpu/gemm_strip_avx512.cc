#include "kernels/cpu/gemm_strip_avx512.h"

#include <immintrin.h>

#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/gemm_strip_avx2.h"

namespace amp::kernels::cpu {
namespace {

// The MR x (16 NV) tile at c.
template <int MR, int NV>
AMP_AVX512F void tile(const float* __restrict__ x, int64_t ldx, const float* __restrict__ b,
                      int64_t panel_stride, int64_t kc, float* __restrict__ c, int64_t ldc,
                      const float* bias, bool first, int64_t width) {
  __mmask16 mask[NV];
  _Pragma("GCC unroll 3") for (int v = 0; v < NV; ++v) mask[v] = avx512_lanes(width - 16 * v);
  __m512 acc[MR][NV];
  _Pragma("GCC unroll 3") for (int v = 0; v < NV; ++v) {
    const __m512 start =
        first && bias ? _mm512_maskz_loadu_ps(mask[v], bias + 16 * v) : _mm512_setzero_ps();
    _Pragma("GCC unroll 6") for (int r = 0; r < MR; ++r) acc[r][v] =
        first ? start : _mm512_maskz_loadu_ps(mask[v], c + r * ldc + 16 * v);
  }
  for (int64_t k = 0; k < kc; ++k) {
    __m512 w[NV];
    _Pragma("GCC unroll 3") for (int v = 0; v < NV; ++v) {
      w[v] = _mm512_loadu_ps(b + v * panel_stride + k * 16);
      _mm_prefetch(reinterpret_cast<const char*>(b + v * panel_stride + (k + 16) * 16),
                   _MM_HINT_T0);
    }
    _Pragma("GCC unroll 6") for (int r = 0; r < MR; ++r) {
      const __m512 xv = _mm512_set1_ps(x[r * ldx + k]);
      _Pragma("GCC unroll 3") for (int v = 0; v < NV; ++v) acc[r][v] =
          _mm512_fmadd_ps(xv, w[v], acc[r][v]);
    }
  }
  _Pragma("GCC unroll 6") for (int r = 0; r < MR; ++r) {
    _Pragma("GCC unroll 3") for (int v = 0; v < NV; ++v)
        _mm512_mask_storeu_ps(c + r * ldc + 16 * v, mask[v], acc[r][v]);
  }
}

template <int NV>
AMP_AVX512F void tile_rows(int64_t rows, const float* x, int64_t ldx, const float* b,
                           int64_t panel_stride, int64_t kc, float* c, int64_t ldc,
                           const float* bias, bool first, int64_t width) {
  switch (rows) {
    case 1:
      return tile<1, NV>(x, ldx, b, panel_stride, kc, c, ldc, bias, first, width);
    case 2:
      return tile<2, NV>(x, ldx, b, panel_stride, kc, c, ldc, bias, first, width);
    case 3:
      return tile<3, NV>(x, ldx, b, panel_stride, kc, c, ldc, bias, first, width);
    case 4:
      return tile<4, NV>(x, ldx, b, panel_stride, kc, c, ldc, bias, first, width);
    case 5:
      return tile<5, NV>(x, ldx, b, panel_stride, kc, c, ldc, bias, first, width);
    default:
      return tile<6, NV>(x, ldx, b, panel_stride, kc, c, ldc, bias, first, width);
  }
}

}  // namespace

bool cpu_has_avx512f() {
#if defined(__GNUC__) && defined(__x86_64__) && !defined(AMP_CPU_ISA_CAP_AVX2)
  return __builtin_cpu_supports("avx512f");
#else
  return false;
#endif
}

AMP_AVX512F void gemm_strip_avx512(int64_t rows, const float* x, int64_t ldx, const float* b,
                                   int64_t panel_stride, int panels, int64_t kc, float* c,
                                   int64_t ldc, const float* bias, bool first, int64_t width) {
  static_assert(kAvx512StripPanels == 3 && kStripRows == 6, "tile_rows and tile's unrolling");
  if (panels >= 3)
    tile_rows<3>(rows, x, ldx, b, panel_stride, kc, c, ldc, bias, first, width);
  else if (panels == 2)
    tile_rows<2>(rows, x, ldx, b, panel_stride, kc, c, ldc, bias, first, width);
  else
    tile_rows<1>(rows, x, ldx, b, panel_stride, kc, c, ldc, bias, first, width);
}

}  // namespace amp::kernels::cpu
