// The transforms of Winograd's F(4x4, 3x3) (winograd_conv.h) for one tile and one group of
// channels: B^T d B of a 6x6 input patch and A^T m A back to a 4x4 output tile, 8 channels
// a register (AVX2 + FMA) and 16 (AVX-512, where the convolution's input is channels-last).
//
// Why two widths: on AVX-512 CPUs the transforms at 8 lanes took 28% of super-resolution's
// run (its 3x3 convolutions have 32-64 channels over 224x224 maps: many tiles, few channels,
// so the transforms weigh as much as the products); 16 lanes halve their instructions.
//
// The 16-lane functions are the 8-lane ones with __m512 for __m256, line for line: the
// compiler needs each width in a function of its own target (AMP_AVX2_FMA, AMP_AVX512F),
// and a template over the vector type cannot carry a different target per instantiation.
//
// Conventions of both widths:
//   - transform_patch: `plane` is the group's first channel at position (0, 0), positions
//     `pos_stride` floats apart (8 in 8-channel blocks, C channels-last), (y0, x0) the
//     patch's top-left (negative in the padding: zeros outside h x w); writes the 36 points
//     `point_stride` floats apart from v. Returns false when the patch holds an Inf or a
//     NaN: the four corner points V[0][0], V[0][5], V[5][0] and V[5][5] weigh every input of
//     the patch (rows 0 and 5 of B^T cover its rows 0, 2, 4 and 1, 3, 5), so their sum is
//     then Inf or NaN; a finite patch keeps it finite unless its values reach ~1e36 (the
//     transforms scale by up to 100). Four adds per patch.
//   - untransform_tile: m points at M_0's row of the tile, the 36 points `point_stride`
//     floats apart; writes A^T m A + bias as out[16][lanes]: the tile's 4x4 positions,
//     row-major, `lanes` (8 or 16) channels each.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "kernels/cpu/cpu_common.h"

namespace amp::kernels::cpu::winograd {

// ---- 8 channels a register (AVX2 + FMA) ----

// B^T d in one dimension (interpolation points 0, +-1, +-2).
AMP_AVX2_FMA inline void input_transform_1d(const __m256 d[6], __m256 o[6]) {
  const __m256 two = _mm256_set1_ps(2), four = _mm256_set1_ps(4), five = _mm256_set1_ps(5);
  o[0] = _mm256_fmadd_ps(four, d[0], _mm256_fnmadd_ps(five, d[2], d[4]));
  o[1] = _mm256_fnmadd_ps(four, _mm256_add_ps(d[1], d[2]), _mm256_add_ps(d[3], d[4]));
  o[2] = _mm256_fmadd_ps(four, _mm256_sub_ps(d[1], d[2]), _mm256_sub_ps(d[4], d[3]));
  o[3] = _mm256_fmadd_ps(two, _mm256_sub_ps(d[3], d[1]), _mm256_sub_ps(d[4], d[2]));
  o[4] = _mm256_fmadd_ps(two, _mm256_sub_ps(d[1], d[3]), _mm256_sub_ps(d[4], d[2]));
  o[5] = _mm256_fmadd_ps(four, d[1], _mm256_fnmadd_ps(five, d[3], d[5]));
}

// A^T m in one dimension: the 6 points back to 4 outputs.
AMP_AVX2_FMA inline void output_transform_1d(const __m256 m[6], __m256 o[4]) {
  const __m256 s12 = _mm256_add_ps(m[1], m[2]), d12 = _mm256_sub_ps(m[1], m[2]);
  const __m256 s34 = _mm256_add_ps(m[3], m[4]), d34 = _mm256_sub_ps(m[3], m[4]);
  o[0] = _mm256_add_ps(_mm256_add_ps(m[0], s12), s34);
  o[1] = _mm256_fmadd_ps(_mm256_set1_ps(2), d34, d12);
  o[2] = _mm256_fmadd_ps(_mm256_set1_ps(4), s34, s12);
  o[3] = _mm256_add_ps(_mm256_fmadd_ps(_mm256_set1_ps(8), d34, d12), m[5]);
}

template <bool kEdge>
AMP_AVX2_FMA bool transform_patch8(const float* plane, int64_t pos_stride, int64_t h, int64_t w,
                                   int64_t y0, int64_t x0, float* v, int64_t point_stride) {
  __m256 t[6][6];  // t[i][j]: B^T applied down column j
  for (int j = 0; j < 6; ++j) {
    __m256 d[6];
    for (int i = 0; i < 6; ++i) {
      const int64_t y = y0 + i, x = x0 + j;
      if (kEdge && (y < 0 || y >= h || x < 0 || x >= w))
        d[i] = _mm256_setzero_ps();
      else
        d[i] = _mm256_loadu_ps(plane + (y * w + x) * pos_stride);
    }
    __m256 o[6];
    input_transform_1d(d, o);
    for (int i = 0; i < 6; ++i) t[i][j] = o[i];
  }
  __m256 corners = _mm256_setzero_ps();
  for (int i = 0; i < 6; ++i) {
    __m256 o[6];
    input_transform_1d(t[i], o);
    for (int j = 0; j < 6; ++j) _mm256_storeu_ps(v + (i * 6 + j) * point_stride, o[j]);
    if (i == 0 || i == 5) corners = _mm256_add_ps(corners, _mm256_add_ps(o[0], o[5]));
  }
  // corners - corners is 0 when finite, NaN otherwise.
  const __m256 bad =
      _mm256_cmp_ps(_mm256_sub_ps(corners, corners), _mm256_setzero_ps(), _CMP_NEQ_UQ);
  return _mm256_movemask_ps(bad) == 0;
}

AMP_AVX2_FMA inline void untransform_tile8(const float* m, int64_t point_stride, const float* bias,
                                           float out[16 * 8]) {
  __m256 t[4][6];  // t[i][j]: A^T applied down column j
  for (int j = 0; j < 6; ++j) {
    __m256 col[6];
    for (int i = 0; i < 6; ++i) col[i] = _mm256_loadu_ps(m + (i * 6 + j) * point_stride);
    __m256 o[4];
    output_transform_1d(col, o);
    for (int i = 0; i < 4; ++i) t[i][j] = o[i];
  }
  const __m256 b = bias != nullptr ? _mm256_loadu_ps(bias) : _mm256_setzero_ps();
  for (int i = 0; i < 4; ++i) {
    __m256 o[4];
    output_transform_1d(t[i], o);
    for (int j = 0; j < 4; ++j) _mm256_storeu_ps(out + (i * 4 + j) * 8, _mm256_add_ps(o[j], b));
  }
}

// ---- 16 channels a register (AVX-512): the same, line for line ----

AMP_AVX512F inline void input_transform_1d(const __m512 d[6], __m512 o[6]) {
  const __m512 two = _mm512_set1_ps(2), four = _mm512_set1_ps(4), five = _mm512_set1_ps(5);
  o[0] = _mm512_fmadd_ps(four, d[0], _mm512_fnmadd_ps(five, d[2], d[4]));
  o[1] = _mm512_fnmadd_ps(four, _mm512_add_ps(d[1], d[2]), _mm512_add_ps(d[3], d[4]));
  o[2] = _mm512_fmadd_ps(four, _mm512_sub_ps(d[1], d[2]), _mm512_sub_ps(d[4], d[3]));
  o[3] = _mm512_fmadd_ps(two, _mm512_sub_ps(d[3], d[1]), _mm512_sub_ps(d[4], d[2]));
  o[4] = _mm512_fmadd_ps(two, _mm512_sub_ps(d[1], d[3]), _mm512_sub_ps(d[4], d[2]));
  o[5] = _mm512_fmadd_ps(four, d[1], _mm512_fnmadd_ps(five, d[3], d[5]));
}

AMP_AVX512F inline void output_transform_1d(const __m512 m[6], __m512 o[4]) {
  const __m512 s12 = _mm512_add_ps(m[1], m[2]), d12 = _mm512_sub_ps(m[1], m[2]);
  const __m512 s34 = _mm512_add_ps(m[3], m[4]), d34 = _mm512_sub_ps(m[3], m[4]);
  o[0] = _mm512_add_ps(_mm512_add_ps(m[0], s12), s34);
  o[1] = _mm512_fmadd_ps(_mm512_set1_ps(2), d34, d12);
  o[2] = _mm512_fmadd_ps(_mm512_set1_ps(4), s34, s12);
  o[3] = _mm512_add_ps(_mm512_fmadd_ps(_mm512_set1_ps(8), d34, d12), m[5]);
}

template <bool kEdge>
AMP_AVX512F bool transform_patch16(const float* plane, int64_t pos_stride, int64_t h, int64_t w,
                                   int64_t y0, int64_t x0, float* v, int64_t point_stride) {
  __m512 t[6][6];
  for (int j = 0; j < 6; ++j) {
    __m512 d[6];
    for (int i = 0; i < 6; ++i) {
      const int64_t y = y0 + i, x = x0 + j;
      if (kEdge && (y < 0 || y >= h || x < 0 || x >= w))
        d[i] = _mm512_setzero_ps();
      else
        d[i] = _mm512_loadu_ps(plane + (y * w + x) * pos_stride);
    }
    __m512 o[6];
    input_transform_1d(d, o);
    for (int i = 0; i < 6; ++i) t[i][j] = o[i];
  }
  __m512 corners = _mm512_setzero_ps();
  for (int i = 0; i < 6; ++i) {
    __m512 o[6];
    input_transform_1d(t[i], o);
    for (int j = 0; j < 6; ++j) _mm512_storeu_ps(v + (i * 6 + j) * point_stride, o[j]);
    if (i == 0 || i == 5) corners = _mm512_add_ps(corners, _mm512_add_ps(o[0], o[5]));
  }
  return _mm512_cmp_ps_mask(_mm512_sub_ps(corners, corners), _mm512_setzero_ps(), _CMP_NEQ_UQ) == 0;
}

AMP_AVX512F inline void untransform_tile16(const float* m, int64_t point_stride, const float* bias,
                                           float out[16 * 16]) {
  __m512 t[4][6];
  for (int j = 0; j < 6; ++j) {
    __m512 col[6];
    for (int i = 0; i < 6; ++i) col[i] = _mm512_loadu_ps(m + (i * 6 + j) * point_stride);
    __m512 o[4];
    output_transform_1d(col, o);
    for (int i = 0; i < 4; ++i) t[i][j] = o[i];
  }
  const __m512 b = bias != nullptr ? _mm512_loadu_ps(bias) : _mm512_setzero_ps();
  for (int i = 0; i < 4; ++i) {
    __m512 o[4];
    output_transform_1d(t[i], o);
    for (int j = 0; j < 4; ++j) _mm512_storeu_ps(out + (i * 4 + j) * 16, _mm512_add_ps(o[j], b));
  }
}

}  // namespace amp::kernels::cpu::winograd
