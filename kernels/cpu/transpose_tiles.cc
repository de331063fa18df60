#include "kernels/cpu/transpose_tiles.h"

#include <immintrin.h>

#include <algorithm>

#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/gemm_strip_avx2.h"

namespace amp::kernels::cpu {
namespace {

constexpr int64_t kBlock = 8;      // an 8x8 block: one AVX2 register of 4-byte elements a row
constexpr int64_t kTileRows = 16;  // destination rows per task

// dst[j * dst_stride + i] = src[i * src_stride + j] for i, j < 8, 4-byte elements.
AMP_AVX2_FMA void transpose_block8(const uint32_t* src, int64_t src_stride, uint32_t* dst,
                                   int64_t dst_stride) {
  __m256 r[8], t[8], s[8];
  for (int i = 0; i < 8; ++i)
    r[i] = _mm256_loadu_ps(reinterpret_cast<const float*>(src + i * src_stride));
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    s[i] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
    s[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
    s[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
    s[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int i = 0; i < 4; ++i) {
    _mm256_storeu_ps(reinterpret_cast<float*>(dst + i * dst_stride),
                     _mm256_permute2f128_ps(s[i], s[i + 4], 0x20));
    _mm256_storeu_ps(reinterpret_cast<float*>(dst + (i + 4) * dst_stride),
                     _mm256_permute2f128_ps(s[i], s[i + 4], 0x31));
  }
}

// The same for 2-byte elements (fp16, bf16, int16), in SSE2 registers (every x86-64):
// interleaving 16-, 32- then 64-bit lanes of row pairs.
void transpose_block8_u16(const uint16_t* src, int64_t src_stride, uint16_t* dst,
                          int64_t dst_stride) {
  __m128i r[8], a[8], b[8];
  for (int i = 0; i < 8; ++i)
    r[i] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i * src_stride));
  for (int i = 0; i < 8; i += 2) {
    a[i] = _mm_unpacklo_epi16(r[i], r[i + 1]);
    a[i + 1] = _mm_unpackhi_epi16(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    b[i] = _mm_unpacklo_epi32(a[i], a[i + 2]);
    b[i + 1] = _mm_unpackhi_epi32(a[i], a[i + 2]);
    b[i + 2] = _mm_unpacklo_epi32(a[i + 1], a[i + 3]);
    b[i + 3] = _mm_unpackhi_epi32(a[i + 1], a[i + 3]);
  }
  for (int j = 0; j < 4; ++j) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 2 * j * dst_stride),
                     _mm_unpacklo_epi64(b[j], b[j + 4]));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + (2 * j + 1) * dst_stride),
                     _mm_unpackhi_epi64(b[j], b[j + 4]));
  }
}

// Destination rows [r0, r1) of one slab: dst[r * n + c] = src[r + c * stride].
template <typename E>
void transpose_rows(const E* src, int64_t stride, int64_t n, E* dst, int64_t r0, int64_t r1,
                    bool avx2) {
  for (int64_t rb = r0; rb < r1; rb += kBlock) {
    const int64_t re = std::min(rb + kBlock, r1);
    for (int64_t cb = 0; cb < n; cb += kBlock) {
      const int64_t ce = std::min(cb + kBlock, n);
      const bool whole = re - rb == kBlock && ce - cb == kBlock;
      if constexpr (sizeof(E) == 4) {
        if (avx2 && whole) {
          transpose_block8(src + rb + cb * stride, stride, dst + rb * n + cb, n);
          continue;
        }
      }
      if constexpr (sizeof(E) == 2) {
        if (whole) {
          transpose_block8_u16(src + rb + cb * stride, stride, dst + rb * n + cb, n);
          continue;
        }
      }
      for (int64_t r = rb; r < re; ++r)
        for (int64_t c = cb; c < ce; ++c) dst[r * n + c] = src[r + c * stride];
    }
  }
}

template <typename E>
void transpose_view(const StridedView& v, const uint8_t* src, uint8_t* dst, int threads) {
  const int inner_axis = v.rank - 1, row_axis = v.rank - 2;
  const int64_t n = v.dims[inner_axis], rows = v.dims[row_axis], stride = v.strides[inner_axis];
  const int64_t slabs = v.numel / (n * rows), tasks = (rows + kTileRows - 1) / kTileRows;
  const bool avx2 = sizeof(E) == 4 && cpu_has_avx2_fma();
  parallel_for(
      slabs * tasks, threads,
      [&](int64_t begin, int64_t end) {
        for (int64_t task = begin; task < end; ++task) {
          int64_t slab = task / tasks, off = v.base;
          for (int a = row_axis - 1; a >= 0; --a) {
            off += slab % v.dims[a] * v.strides[a];
            slab /= v.dims[a];
          }
          const int64_t r0 = task % tasks * kTileRows;
          transpose_rows(reinterpret_cast<const E*>(src) + off, stride, n,
                         reinterpret_cast<E*>(dst) + task / tasks * rows * n, r0,
                         std::min(r0 + kTileRows, rows), avx2);
        }
      },
      std::max<int64_t>(1, 32768 / (kTileRows * n)));
}

}  // namespace

bool transpose_tiles(const StridedView& v, const uint8_t* src, uint8_t* dst, size_t elem,
                     int threads) {
  if (v.rank < 2 || v.strides[v.rank - 2] != 1 || v.strides[v.rank - 1] == 0 ||
      v.strides[v.rank - 1] == 1)
    return false;
  switch (elem) {
    case 1:
      transpose_view<uint8_t>(v, src, dst, threads);
      return true;
    case 2:
      transpose_view<uint16_t>(v, src, dst, threads);
      return true;
    case 4:
      transpose_view<uint32_t>(v, src, dst, threads);
      return true;
    case 8:
      transpose_view<uint64_t>(v, src, dst, threads);
      return true;
  }
  return false;
}

}  // namespace amp::kernels::cpu
