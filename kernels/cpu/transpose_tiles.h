// A copy whose two innermost axes are a transpose, by tiles: the next-to-innermost axis
// walks the source contiguously and the innermost does not (a [C, HW] -> [HW, C]
// Transpose, the channels-last round trips around SegFormer's depthwise convolutions and in
// Swin's and ViTs' heads, [B, S, H] -> [B, H, S]).
//
// Why: strided_copy writes each destination row from a column of the source, one element
// per source line; when the rows are long the column's lines (and pages: a 4096-float row
// apart is 16 KiB) leave the cache before the next row comes back for their neighbours.
// Measured on AMD EPYC Zen 4 (family 25 model 17), one thread, one Transpose node's median
// ms, row by row -> by 8x8 blocks in AVX2 registers: [1, 128, 4096] -> [1, 4096, 128] 1.78
// -> 0.21; the reverse 0.65 -> 0.12; [1, 4096, 32] -> [1, 32, 4096] 0.100 -> 0.029; NHWC
// [1, 64, 64, 32] -> NCHW 0.105 -> 0.029; [8, 197, 64] -> [8, 64, 197] 0.079 -> 0.019
// (element by element in 8x8 blocks, without the registers: 0.80, 0.30, 0.073, 0.074,
// 0.035). In fp16, 8x8 blocks in SSE2 registers against element by element in them:
// [1, 128, 4096] 0.30 -> 0.20, the reverse 0.26 -> 0.089, [8, 197, 64] 0.039 -> 0.011. A
// random-weight SegFormer-B0 at 256x256 (Hugging Face, exported by torch.export) went from
// 1.43x ONNX Runtime 1.32's time to 0.97x.
//
// Algorithm: each slab (one index of the axes further out) is a matrix of `rows` x `n`
// destination elements, cut into tasks of kTileRows destination rows (parallel over slabs
// and tasks). A task walks its rows' columns 8 at a time: 4-byte elements on a CPU with
// AVX2 move as 8x8 blocks (8 loads of 8 consecutive source elements, the transpose in
// registers by unpack, shuffle and lane permute, 8 stores of 8 destination elements), and
// 2-byte ones likewise in SSE2 registers; the blocks at the edges and the other element
// sizes go element by element, destination row by row, over the same 8-column blocks.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/cpu/movement_common.h"

namespace amp::kernels::cpu {

// dst (dense in the view's dims) = the view of src when the view is such a transpose (rank
// >= 2, the next-to-innermost stride 1, the innermost neither 0 nor 1) of 1-, 2-, 4- or
// 8-byte elements; false, copying nothing, otherwise.
bool transpose_tiles(const StridedView& view, const uint8_t* src, uint8_t* dst, size_t elem_size,
                     int threads);

}  // namespace amp::kernels::cpu
