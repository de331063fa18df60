// MaxPool over an f32 input in 8-channel blocks (nChw8c: the convolutions' layout on AVX2,
// kernels/cpu/dnnl_common.h, conv_activation_desc), by our own loop instead of oneDNN's.
//
// Each spatial position of a block holds 8 consecutive channels, so a window's max is the
// elementwise max of whole 8-float vectors: one AVX2 register each. The loop makes one pass
// over an output row per window tap (long inner loops, no per-output window overhead).
//
// Why not oneDNN: its 2.6 jit:avx2 pooling is 2-5x slower on this layout, same results,
// measured one thread with AVX-512 hidden from CPUID (tools/bench/as_avx2_cpu.cc) on an
// Intel Xeon (Emerald Rapids): mnist-8's 8x28x28 2x2 MaxPool 7.3 -> 1.5 us, a ResNet stem's
// 64x112x112 3x3 stride 2 1041 -> 361 us, 256x14x14 2x2 43 -> 15 us. Channels-last
// (AVX-512) stays with oneDNN's jit:avx512_core pooling, which is as fast or faster there.
//
// The output is written in the same blocks, or plain NCHW (`y_plain`: a MaxPool before a
// Reshape or Flatten), so no reorder follows. Windows follow ONNX (kernels/common/
// pool_geometry.h): padding and ceil_mode's extension are ignored. A window wholly in the
// padding (pads >= kernel, which ONNX's checker refuses) gives the lowest float, as the
// oneDNN pooling this replaces does. A NaN in a window is its max (PyTorch's rule).
#pragma once

#include <cstdint>

#include "kernels/common/pool_geometry.h"

namespace amp::kernels::cpu {

// `blocks`: N * C / 8 (C a multiple of 8, as conv_layout_blocked8 requires).
void max_pool_blocked8(const PoolGeometry& g, int64_t blocks, const float* x, float* y,
                       bool y_plain, int threads);

}  // namespace amp::kernels::cpu
