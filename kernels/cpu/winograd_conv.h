// 3x3, stride-1 convolutions by Winograd's minimal filtering F(4x4, 3x3) on AVX2 CPUs:
// the f32 convolutions between two convolutions (runtime/layout_plan.h), whose input is in
// 8-channel blocks (nChw8c, the layout oneDNN's AVX2 convolutions take).
//
// Why: a 3x3 convolution computed directly costs 9 multiply-adds per input channel, output
// channel and output position; oneDNN 2.6's jit:avx2 convolution (and ONNX Runtime's MLAS)
// already run those at the FMA units' peak. F(4x4, 3x3) computes each 4x4 block of outputs
// from a 6x6 block of inputs with 36 multiply-adds per channel pair instead of 144: 4x fewer,
// paid for by transforms that cost O(C + M) per block instead of O(C M). oneDNN 2.6 has
// Winograd only for AVX-512; NNPACK, ncnn and TVM run this algorithm on AVX2.
//
// Algorithm (Lavin & Gray, "Fast Algorithms for Convolutional Neural Networks", 2016), with
// the interpolation points 0, +-1, +-2:
//   Y = A^T [ (G g G^T) (.) (B^T d B) ] A   per 4x4 output tile, per channel pair,
// summed over input channels. (.) is elementwise over the 6x6 positions xi, so the sum over
// channels is, for each xi, a matrix product:
//   M_xi [tiles, M] = V_xi [tiles, C] U_xi [C, M]
// with V_xi = (B^T d B)[xi] of each tile and channel, U_xi = (G g G^T)[xi] of each filter.
//   - prepare(): U = G g G^T in double for every (m, c), rounded once to f32, and packed as
//     36 PackedGemm B operands (packed_gemm.h's panels): 4x the weights' memory, held by the
//     kernel (YOLOv8n: ~29 MB for its 7 MB of 3x3 weights, maxrss 245 -> 278 MB). Leaving
//     maps under 16x16 to oneDNN would save 12 MB of that for 1.7% of YOLOv8n's time at 1
//     and 2 threads (measured); not done.
//   - run(): the N x ceil(OH/4) x ceil(OW/4) tiles are split into blocks of 6 to 36 tiles
//     (V and M of a block, 36 x tiles x (C + M) floats, within 256 KiB: L2), as many blocks
//     as a multiple of the threads, dealt round-robin. Per block:
//       1. input transform: per tile and 8-channel block, the 6x6 patch (zeros outside the
//          input: the padding) as 36 AVX2 registers, B^T d B by adds and FMAs, 36 stores;
//       2. 36 products by PackedGemm's 6x16 register-tile kernel (the block's V_xi rows
//          stay in L1 while each 16-column panel of U_xi streams once);
//       3. output transform: A^T m A per tile and 8-channel block, plus the bias, then the
//          fused activation (vector_activation.h) over the tile, stored in the output's
//          layout: 8-channel blocks again, or plain NCHW (a conv before a Reshape).
// Accuracy: the transforms mix a tile's 36 inputs with constants up to 8 and 1/24, so the
// error scales with the tile's magnitude, not the output's: measured against a double-
// precision direct convolution, within 2e-6 of the largest sum|terms| among the tile's
// outputs (a direct f32 sum: ~1e-7 of its own); amprun's fp32 verdict allows 1e-4 of the
// output's scale. YOLOv8n's output agrees with ONNX Runtime's to a max relative error of
// 3.3e-6 (oneDNN's direct convolution: 3.8e-6).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "graph/ops/op_attrs.h"
#include "kernels/cpu/packed_gemm.h"

namespace amp::kernels::cpu {

class WinogradConv {
 public:
  // Whether this algorithm takes the f32 convolution `conv` (dims static): 2-D, one group,
  // 3x3, stride 1, dilation 1, input and output channels >= kMinChannels, the input in
  // 8-channel blocks, on a CPU where PackedGemm runs (AVX2 + FMA, no AVX-512; with AVX-512
  // the convolutions keep channels-last and oneDNN's brgconv). The environment variable
  // AMP_CPU_WINOGRAD=0 turns it off (oneDNN's direct convolution instead), for comparisons.
  static bool suits(const graph::ConvAttrs& conv, bool input_blocked8);

  // Channels in and out at least: YOLOv8n's 16 -> 16 convolutions at 80x80 run 1.9x faster
  // than oneDNN's (0.375 -> 0.196 ms, one thread); fewer, where the products are shorter
  // than the transforms' work, were not measured.
  static constexpr int64_t kMinChannels = 16;

  // w: [M, C, 3, 3]; `w_owner` what keeps w alive when it is a model constant (its
  // transform is then shared), else null; bias: [M] or null. `output_blocked8`: the output
  // in 8-channel blocks (M a multiple of 8), else plain NCHW. `max_threads` sizes the
  // workspace.
  void prepare(const graph::ConvAttrs& conv, const float* w,
               const std::shared_ptr<const void>& w_owner, const float* bias, bool output_blocked8,
               int max_threads);
  size_t workspace_bytes() const;
  // x in 8-channel blocks; y as prepared; workspace: workspace_bytes(), 64-byte aligned.
  void run(const float* x, float* y, void* workspace, int threads) const;
  // The filter transform U, for the memory report.
  HeldConstant held_constant() const;

 private:
  // Tile g of the N x tiles_y x tiles_x tiles: its image and its top-left output.
  struct TileAt {
    int64_t n, oy, ox;
  };
  TileAt tile_at(int64_t g) const;
  size_t slot_floats() const;
  void run_block(const float* x, float* y, int64_t first_tile, int64_t tiles, float* v,
                 float* m) const;

  int64_t n_ = 0, c_ = 0, m_ = 0, h_ = 0, w_ = 0, oh_ = 0, ow_ = 0, pad_t_ = 0, pad_l_ = 0;
  int64_t tiles_y_ = 0, tiles_x_ = 0, block_tiles_ = 0, ldm_ = 0;
  int max_threads_ = 1;
  bool output_blocked8_ = false;
  graph::FusedActivation act_;
  std::vector<float> bias_;                           // [ldm_], zero-padded
  std::shared_ptr<const std::vector<PackedGemm>> u_;  // 36: U_xi [C, M]
};

}  // namespace amp::kernels::cpu
