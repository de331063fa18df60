// Convolutions whose windows mostly read padding, computed as a sum over the window's taps
// of one product each, restricted to the outputs the tap reaches. The case that matters is
// the atrous pyramid of DeepLabV3-style segmenters: a 3x3 at a dilation close to the map's
// size (torchvision's DeepLabV3-MobileNetV3: dilation 12 over 16x16; with a ResNet backbone
// at 512x512, 12 and 18 over 32x32).
//
// Why: oneDNN 2.6 runs a convolution with such pads on its im2col GEMM, every tap over
// every output position, the padding's zeros included. DeepLabV3-MobileNetV3's 960 -> 256
// at dilation 12 over 16x16 does 4x the multiply-adds that read the input (live_share
// 0.25): 14 ms, against ONNX Runtime's 6.2 with a direct convolution that skips them (AMD
// EPYC, one thread). Taps that read only padding everywhere leave the window before this
// (cut_to_live_taps); this kernel takes the taps that read the input at some outputs only.
//
// Algorithm: tap (ky, kx) reads input (oy sy - pad_top + ky dy, ox sx - pad_left + kx dx),
// which lies inside the input for the outputs of one rectangle (live_outputs of each axis,
// kernels/common/conv_live_taps.h). With x and y channels-last, the tap's share of those
// outputs is one product
//     y[rect, :] += X_t [|rect|, C] W_t [C, M],   W_t[c, m] = W[m, c, ky, kx],
// X_t the rectangle's input pixels as rows (each pixel's C channels are one contiguous row
// of channels-last x). prepare() packs each live tap's W_t as a PackedGemm B (packed_gemm.h;
// the weights' size in all). run(), per image:
//   1. gathers every tap's X_t (copies of runs of pixels), threads splitting the rows;
//   2. threads split y's M columns into panels of 16. Each sets its columns of y to the
//      bias, then multiplies tap after tap: into y directly where the rectangle spans whole
//      output rows (its outputs are consecutive rows of y), else into a scratch added to the
//      rectangle's rows of y; then the fused activation over its columns.
// Multiply-adds: live_share of the direct convolution's. The extra traffic (the gather, a
// scratch pass per narrow tap) is O(|rect| (C + M)) a tap against O(|rect| C M) of products.
// Sums run over the taps in window order, each tap's over C in order (PackedGemm's K
// slices): results agree with oneDNN's to f32 rounding, not bit for bit.
//
// Where: the Conv kernel (dnnl_conv.cc) takes it only for a convolution oneDNN would run on
// its im2col GEMM. oneDNN's direct convolutions skip the padding's taps themselves and run
// as fast as this (256 -> 256, 3x3 at dilation 2 over 64x64, 96% live: jit:avx2 55-65 ms,
// this 59-62). Against the GEMM, one thread on an AMD EPYC (Zen 3, AVX2), the convolution
// alone between two 1x1 convolutions, ms, oneDNN -> this, by live_share:
//   960 -> 256 at dilation 12 over 16x16 (25%): 13.4-13.6 -> 3.8-4.8
//   256 -> 256 at dilation 8 over 16x16 (44%): 4.0-6.0 -> 2.0-2.2
//   960 -> 256 at dilation 6 over 16x16 (56%): 14.4-20.7 -> 7.3-7.9
//   2048 -> 256 at dilation 18 / 12 / 6 over 32x32 (39 / 56 / 77%): 127-133 / 125-136 /
//     121-139 -> 55-62 / 71 / 92-107
//   512 -> 256 at dilation 12 over 64x64 (77%): 123-156 -> 97-104
//   512 -> 512 at dilation 4 over 32x32 (84%): 61-64 -> 48-49
//   2048 -> 256 at dilation 24 over 64x64 (56%): 519-580 -> 309-310
// It won at every share measured (up to 84%); kMaxLiveShare = 0.9 leaves the GEMM the
// convolutions that read little padding, where nothing was measured.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "graph/ops/op_attrs.h"
#include "kernels/cpu/packed_gemm.h"

namespace amp::kernels::cpu {

class TapSumConv {
 public:
  // Whether this algorithm takes the f32 convolution `conv` (dims static): 2-D, one group,
  // on a CPU with AVX2 and FMA, with at most kMaxLiveShare of its multiply-adds reading the
  // input (the rest read padding; header). The environment variable AMP_CPU_TAP_SUM=0 turns
  // it off (oneDNN's convolution instead), for comparisons.
  static bool suits(const graph::ConvAttrs& conv);
  static constexpr double kMaxLiveShare = 0.9;

  // w: [M, C, kh, kw] of conv's window; `w_owner` what keeps w alive when it is a model
  // constant (the packed taps are then shared), else null; bias: [M] or null.
  void prepare(const graph::ConvAttrs& conv, const float* w,
               const std::shared_ptr<const void>& w_owner, const float* bias);
  size_t workspace_bytes() const;
  // x: [N, H, W, C] and y: [N, OH, OW, M], channels-last; workspace: workspace_bytes(),
  // 64-byte aligned.
  void run(const float* x, float* y, void* workspace, int threads) const;
  // The packed taps, for the memory report.
  void held_constants(std::vector<HeldConstant>& out) const;
  // "own tap sum, 9 taps over 25% of the direct multiply-adds".
  std::string implementation() const;

 private:
  // A live tap: where it reads, the outputs it reaches, and its rows in the gathered X.
  struct Tap {
    int64_t ky = 0, kx = 0;
    int64_t oy0 = 0, oy1 = 0, ox0 = 0, ox1 = 0;  // the rectangle of outputs
    int64_t row0 = 0;                            // its first row of the gathered X_t's
    PackedGemm w;                                // W_t
    int64_t rows() const { return (oy1 - oy0) * (ox1 - ox0); }
  };
  // One row of outputs of one tap's rectangle: a unit of the gather.
  struct GatherRow {
    int32_t tap;
    int32_t oy;
  };
  void gather(const float* x, float* rows, int threads) const;
  void multiply(const float* rows, float* y, float* scratch, int64_t j0, int64_t j1) const;

  int64_t c_ = 0, m_ = 0, h_ = 0, w_ = 0, oh_ = 0, ow_ = 0, n_ = 0;
  int64_t sy_ = 1, sx_ = 1, dy_ = 1, dx_ = 1, pad_top_ = 0, pad_left_ = 0;
  double share_ = 1;
  std::vector<Tap> taps_;
  std::vector<GatherRow> gather_rows_;
  std::vector<float> bias_;  // [M]; zeros without a bias
  graph::FusedActivation act_;
  size_t rows_floats_ = 0, scratch_floats_ = 0;  // workspace parts, 64-byte multiples
};

}  // namespace amp::kernels::cpu
