// One 4x4 output tile of a 3x3, stride-1 convolution summed directly, 8 output channels a
// register (AVX2 + FMA) or 16 (AVX-512): WinogradConv's path for tiles whose input patch
// holds an Inf or a NaN (winograd_conv.h), where the transforms would spread it over the
// whole tile.
//
// Why vectorized: a model whose activations overflowed carries Inf in most tiles, and the
// scalar loop this replaces ran such a convolution ~100x slower than its Winograd products
// (a fuzzed super-resolution input full of Inf: Conv_4 832 ms against 8.7 ms), a hang to a
// server. Here each (input channel, tap) is one register of weights over the channels and
// 16 FMAs, one per tile position, as a direct convolution's register-tiled kernel does:
// super-resolution with 2% of its input Inf (every tile after the first convolution) runs
// in 99 ms instead of 2,298 at one thread (AMD EPYC Zen 4; 132 ms as AVX2-only), against
// 32 ms on finite input and 58 ms for oneDNN's direct convolutions.
//
// Conventions of both widths: `image` is the batch entry's first element in `layout`
// (8-channel blocks or channels-last, C channels, h x w positions); (y0, x0) the top-left of
// the tile's 6x6 input patch (negative in the padding: zeros outside h x w); `wt` the
// group's weights transposed to [C][9][lanes] (zeros past M); `bias` the group's `lanes`
// biases. Writes position p (row-major over the 4x4 tile, positions past the output
// included) as `lanes` floats at out + p * point_stride. Each output is bias + the sum over
// input channels, then taps, of x * w, the order of a direct convolution.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "kernels/cpu/channel_layout.h"
#include "kernels/cpu/cpu_common.h"

namespace amp::kernels::cpu::winograd {

// The 6x6 input patch of channel ci at (y0, x0), zeros outside the input.
inline void load_patch(const float* image, ChannelLayout layout, int64_t c, int64_t ci, int64_t h,
                       int64_t w, int64_t y0, int64_t x0, float patch[6][6]) {
  const int64_t ps = position_stride(layout, c);
  const float* plane = image + channel_offset(layout, ci, h * w);
  if (y0 >= 0 && x0 >= 0 && y0 + 6 <= h && x0 + 6 <= w) {  // inside: no bounds to check
    const float* corner = plane + (y0 * w + x0) * ps;
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) patch[i][j] = corner[(i * w + j) * ps];
    return;
  }
  for (int64_t i = 0; i < 6; ++i)
    for (int64_t j = 0; j < 6; ++j) {
      const int64_t y = y0 + i, x = x0 + j;
      patch[i][j] = y >= 0 && y < h && x >= 0 && x < w ? plane[(y * w + x) * ps] : 0.0f;
    }
}

AMP_AVX2_FMA inline void direct_tile8(const float* image, ChannelLayout layout, int64_t c,
                                      int64_t h, int64_t w, int64_t y0, int64_t x0, const float* wt,
                                      const float* bias, float* out, int64_t point_stride) {
  // Two rows of the tile at a time: 8 accumulators leave AVX2's 16 registers room for the
  // weights and the broadcast (16 spilled: 160 ms instead of 132 in the model above).
  for (int r0 = 0; r0 < 4; r0 += 2) {
    __m256 acc[8];
    for (int p = 0; p < 8; ++p) acc[p] = _mm256_loadu_ps(bias);
    float patch[6][6];
    for (int64_t ci = 0; ci < c; ++ci) {
      load_patch(image, layout, c, ci, h, w, y0, x0, patch);
      for (int tap = 0; tap < 9; ++tap) {
        const __m256 wv = _mm256_loadu_ps(wt + (ci * 9 + tap) * 8);
        const int ky = tap / 3, kx = tap % 3;
        for (int i = 0; i < 2; ++i)
          for (int j = 0; j < 4; ++j)
            acc[i * 4 + j] =
                _mm256_fmadd_ps(_mm256_set1_ps(patch[r0 + i + ky][j + kx]), wv, acc[i * 4 + j]);
      }
    }
    for (int p = 0; p < 8; ++p) _mm256_storeu_ps(out + (r0 * 4 + p) * point_stride, acc[p]);
  }
}

AMP_AVX512F inline void direct_tile16(const float* image, ChannelLayout layout, int64_t c,
                                      int64_t h, int64_t w, int64_t y0, int64_t x0, const float* wt,
                                      const float* bias, float* out, int64_t point_stride) {
  __m512 acc[16];
  for (int p = 0; p < 16; ++p) acc[p] = _mm512_loadu_ps(bias);
  float patch[6][6];
  for (int64_t ci = 0; ci < c; ++ci) {
    load_patch(image, layout, c, ci, h, w, y0, x0, patch);
    for (int tap = 0; tap < 9; ++tap) {
      const __m512 wv = _mm512_loadu_ps(wt + (ci * 9 + tap) * 16);
      const int ky = tap / 3, kx = tap % 3;
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
          acc[i * 4 + j] =
              _mm512_fmadd_ps(_mm512_set1_ps(patch[i + ky][j + kx]), wv, acc[i * 4 + j]);
    }
  }
  for (int p = 0; p < 16; ++p) _mm512_storeu_ps(out + p * point_stride, acc[p]);
}

}  // namespace amp::kernels::cpu::winograd
