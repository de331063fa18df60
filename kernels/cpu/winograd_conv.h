// 3x3, stride-1 convolutions by Winograd's minimal filtering F(4x4, 3x3) on CPUs with AVX2
// and FMA, AVX-512 ones included: the f32 convolutions between two convolutions
// (runtime/layout_plan.h), whose input is in the layout oneDNN's convolutions take on this
// CPU: 8-channel blocks (nChw8c) on AVX2, channels-last (nhwc) on AVX-512.
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
//          input: the padding) as 36 AVX2 registers, B^T d B by adds and FMAs, 36 stores
//          (winograd_transforms.h; on AVX-512, 16 channels of channels-last input a
//          register);
//       2. 36 products by PackedGemm's 6x16 register-tile kernel (the block's V_xi rows
//          stay in L1 while each 16-column panel of U_xi streams once);
//       3. output transform: A^T m A per tile and 8-channel block (16 on AVX-512 unless
//          the output is in 8-channel blocks), plus the bias, then the
//          fused activation (vector_activation.h) over the tile, stored in the output's
//          layout: 8-channel blocks again, or plain NCHW (a conv before a Reshape).
// Accuracy: the transforms mix a tile's 36 inputs with constants up to 8 and 1/24, so the
// error scales with the tile's magnitude, not the output's: measured against a double-
// precision direct convolution, within 2e-6 of the largest sum|terms| among the tile's
// outputs (a direct f32 sum: ~1e-7 of its own); amprun's fp32 verdict allows 1e-4 of the
// output's scale. YOLOv8n's output agrees with ONNX Runtime's to a max relative error of
// 3.3e-6 (oneDNN's direct convolution: 3.8e-6).
// Inf and NaN: the transforms mix a patch's 36 inputs, so one Inf would turn all 16 outputs
// of its tile into NaN (Inf - Inf), outputs whose windows never see it included. The input
// transform flags a patch with an Inf or NaN (from four of its 36 points, which weigh every
// input), and those tiles are summed directly instead (winograd_direct_tile.h: a register of
// output channels a tap, the weights transposed per block and channel group into the
// workspace), so each output is what a direct convolution gives. Finite inputs beyond ~1e36
// in magnitude can overflow the transforms unflagged (their products would overflow a
// direct sum too, near 1e38).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "graph/ops/op_attrs.h"
#include "kernels/cpu/channel_layout.h"
#include "kernels/cpu/packed_gemm.h"

namespace amp::kernels::cpu {

class WinogradConv {
 public:
  // Whether this algorithm takes the f32 convolution `conv` (dims static): 2-D, one group,
  // 3x3, stride 1, dilation 1, the input in the conv layout (8-channel blocks or
  // channels-last) with C a multiple of 8, any M, on a CPU with AVX2 and FMA, with enough
  // tiles, well enough filled (below), and on AVX-512 where it beats brgconv (further
  // below). The environment variable AMP_CPU_WINOGRAD=0 turns it off (oneDNN's direct
  // convolution instead), for comparisons.
  //
  // Measured against oneDNN's jit:avx2 direct convolution, as AVX2-only on an Intel Xeon
  // (model 167), one thread, median ms, direct -> Winograd:
  //   - every C (8-256) and M (1-256) at maps of 7x7 and more wins, 1.3x to 3x: C 8 -> M 8
  //     at 224x224 0.92 -> 0.51; C 16 -> M 8 1.80 -> 0.81; super-resolution's C 32 -> M 9
  //     5.34 -> 2.02; C 64 -> M 1 7.25 -> 2.69; C 256 -> M 256 at 7x7 0.48 -> 0.35.
  //   - a map of one tile (4x4 and less) loses once U outweighs the arithmetic: one GEMM
  //     row per product streams 36 C M floats (C 256 -> M 256 at 4x4: 0.18 -> 0.33);
  //   - tiles mostly padding lose: 4 tiles for a 5x5 or 6x6 map compute 64 outputs for 25
  //     or 36 (C 256 -> M 256: 0.25 -> 0.36 and 0.34 -> 0.36), for 7x7 and 8x8 they win.
  // Hence at least kMinTiles tiles in the batch (GEMM rows: under 4 the 6-row strips wait
  // on FMA latency) and at least kMinOutputsPerTile of each tile's 16 outputs used, on
  // average (Winograd's multiplies are then at most 0.4 of the direct ones): 7x7 maps
  // (49 outputs in 4 tiles), 10x10 (100 in 9) and 13x13 (169 in 16) pass, 5x5, 6x6 and
  // 9x9 (81 in 9) do not.
  //
  // On AVX-512 the products run 16 lanes wide (gemm_strip_avx512.h), and so do the
  // transforms of channels-last input (winograd_transforms.h), against oneDNN's brgconv,
  // itself twice as fast as jit:avx2. Measured on the same Xeon with AVX-512, the conv
  // between two 1x1 convs (channels-last), median ms at 1 / 2 threads, brgconv -> Winograd:
  //   - C >= 16 over enough tiles wins (with 16-lane transforms; 8-lane ones lost at C 16):
  //     64 -> 64 at 224x224 17.8 -> 9.6 (8 lanes), at 40x40 0.58 -> 0.26; 32 -> 32 at 80x80 0.59 ->
  //     0.33; 24 -> 24 at 80x80 0.48 -> 0.29 / 0.25 -> 0.16; 16 -> 16 at 160x160 0.67 ->
  //     0.54 / 0.35 -> 0.30; 16 -> 8 at 224x224 1.34 -> 1.05 / 0.70 -> 0.59; 128 -> 128 at
  //     20x20 0.57 -> 0.34; super-resolution's 32 -> 9 2.63 -> 1.78; 64 -> 1 at 40x40 0.17
  //     -> 0.11.
  //   - 8 input channels do not win: their transforms run 8 lanes wide, O(C + M) a tile,
  //     and weigh as much as the products' saving (8 -> 8 at 224x224 0.67 -> 0.79 / 0.45 ->
  //     0.46, 8 -> 32 at 80x80 0.17 -> 0.16 / 0.088 -> 0.093, 8 -> 64 0.34 -> 0.33 / 0.18
  //     -> 0.20). Hence C >= kAvx512MinChannels.
  //   - U (36 C M floats, 4x the weights) streams from L3 or memory once per block of
  //     tiles, and few tiles cannot pay for it: 256 -> 256 at 7x7 0.30 -> 0.37, 10x10
  //     0.56 -> 0.75, 14x14 1.06 -> 1.14, 128 -> 128 at 10x10 0.13 -> 0.15 lose; 20x20 wins
  //     for both (256: 2.18 -> 1.90 / 1.12 -> 0.90), 28x28 (256: 4.22 -> 3.42). Hence at
  //     least kManyTiles tiles, or at most kUBytesPerTile bytes of U per tile
  //     (64 -> 64 at 20x20, 23 KiB a tile: 0.14 -> 0.07).
  // The same rule holds against AVX2's jit:avx2 inside a model, where every layer's U
  // streams from L3 or memory (a ResNet-18 at 224x224 as AVX2-only, ms at 1 / 2 threads,
  // Winograd -> direct): 512 -> 512 at 7x7 (4 tiles, 9.4 MiB of U a tile) 3.59 -> 2.63 /
  // 3.29 -> 1.26 and 256 -> 256 at 14x14 (16 tiles) 2.94 -> 2.06 / 1.21 -> 1.00 lose,
  // 128 -> 128 at 28x28 (49 tiles: 1.98 -> 1.11 / 0.95 -> 0.65) and 64 -> 64 at 56x56
  // (1.95 -> 0.88 / 0.95 -> 0.49) win. (A single layer timed alone, its U staying in L3,
  // had let 256 -> 256 win at 7x7.)
  static bool suits(const graph::ConvAttrs& conv, ChannelLayout input);
  static constexpr int64_t kMinTiles = 4;
  static constexpr int64_t kMinOutputsPerTile = 10;
  static constexpr int64_t kAvx512MinChannels = 16;
  static constexpr int64_t kManyTiles = 25;
  static constexpr int64_t kUBytesPerTile = 128 * 1024;

  // w: [M, C, 3, 3]; `w_owner` what keeps w alive when it is a model constant (its
  // transform is then shared), else null; bias: [M] or null. `input`: x's layout (8-channel
  // blocks or channels-last); `output`: y's (either of those, M a multiple of 8 in blocks,
  // or plain NCHW). `max_threads` sizes the workspace.
  void prepare(const graph::ConvAttrs& conv, const float* w,
               const std::shared_ptr<const void>& w_owner, const float* bias, ChannelLayout input,
               ChannelLayout output, int max_threads);
  size_t workspace_bytes() const;
  // x and y in the layouts prepared; workspace: workspace_bytes(), 64-byte aligned.
  void run(const float* x, float* y, void* workspace, int threads) const;
  // The filter transform U, for the memory report.
  HeldConstant held_constant() const;
  // What prepare() chose, for profiles: the transforms' and products' ISA and the layouts.
  std::string implementation() const;

 private:
  // Tile g of the N x tiles_y x tiles_x tiles: its image and its top-left output.
  struct TileAt {
    int64_t n, oy, ox;
  };
  TileAt tile_at(int64_t g) const;
  size_t slot_floats() const;
  void run_block(const float* x, float* y, int64_t first_tile, int64_t tiles, float* v,
                 float* m) const;
  int64_t group_width(int64_t m0) const;
  void direct_tiles(const float* x, int64_t first_tile, int64_t tiles, const bool finite[],
                    float* m, float* wt) const;

  int64_t n_ = 0, c_ = 0, m_ = 0, h_ = 0, w_ = 0, oh_ = 0, ow_ = 0, pad_t_ = 0, pad_l_ = 0;
  int64_t tiles_y_ = 0, tiles_x_ = 0, block_tiles_ = 0, ldm_ = 0;
  int max_threads_ = 1;
  ChannelLayout in_layout_ = ChannelLayout::kBlocked8;
  ChannelLayout out_layout_ = ChannelLayout::kBlocked8;
  bool wide_in_ = false, wide_out_ = false;  // transforms 16 channels a register (AVX-512)
  graph::FusedActivation act_;
  std::vector<float> bias_;                           // [ldm_], zero-padded
  std::shared_ptr<const std::vector<PackedGemm>> u_;  // 36: U_xi [C, M]
  // The weights [M, C, 3, 3], for direct_tiles: the model's constant, kept alive by its
  // owner, or a copy when there is no owner.
  const float* weights_ = nullptr;
  std::shared_ptr<const void> weights_owner_;
  std::vector<float> weights_copy_;
};

}  // namespace amp::kernels::cpu
