// A ConvTranspose whose windows tile its output (graph::conv_transpose_tiles_output: kernel =
// stride, no pads or dilation, one group) is a 1x1 convolution followed by a depth-to-space:
//
//   y[n, m, z kd + a, y kh + i, x kw + j] = act(b[m] + sum_c x[n, c, z, y, x] W[c, m, a, i, j])
//                                         = pixels[n, t M + m, z, y, x],  t = (a kh + i) kw + j
//
// where `pixels` is the output of a 1x1 convolution to K M channels (K = kd kh kw) whose
// weights are W regrouped window-position-major: row t M + m is W[:, m, t] (tiled_weights).
// The CPU's ConvKernel (dnnl_conv.cc) runs the 1x1 convolution on oneDNN, whose
// deconvolution is slow here: a DB text detector's 24 -> 1 channel 2x2 deconvolution from
// 320x320 took 107 ms on jit:avx2 and 228 ms on jit:avx512_core, for 10 M multiply-adds.
//
// Window-position-major order is what makes the rearrangement a copy of whole channel runs
// in the convolutions' own layouts (runtime/layout_plan.h): with 8-channel blocks and M a
// multiple of 8, output block q at a position is pixel block t M / 8 + q at its source
// position; channels-last, the M channels of an output position are pixel channels
// [t M, t M + M) of its source position. So the 1x1 convolution reads and writes the layout
// of the tensors around it, and a chain Conv -> ConvTranspose -> ConvTranspose (a DB head)
// reorders nothing. Between other layouts (blocked pixels into a plain graph output) the
// copy goes element by element, which still costs less than a reorder and a copy.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/cpu/channel_layout.h"

namespace amp::kernels::cpu {

// W [C, M, K] (a ConvTranspose's weights, window flattened) as the 1x1 convolution's
// [K M, C]: row t M + m is W[:, m, t].
std::vector<float> tiled_weights(const float* w, int64_t c, int64_t m, int64_t k);
// b [M] repeated for each window position: [K M].
std::vector<float> tiled_bias(const float* b, int64_t m, int64_t k);

class DepthToSpace {
 public:
  // `in3` / `k3`: the input's spatial dims and the window, right-aligned into 3 (d, h, w).
  void prepare(int64_t n, int64_t m, const int64_t in3[3], const int64_t k3[3],
               ChannelLayout pixels, ChannelLayout out);
  // pixels [N, K M, d, h, w] -> out [N, M, d kd, h kh, w kw] in their prepared layouts.
  void run(const float* pixels, float* out, int threads) const;

  // Output rows are (n, run q, z, y); a run is `run` consecutive channels at one position:
  // 1, a block of 8, or all M channels-last. Run q of window position t starts at
  // in_base[t * units + q] + position * in_pos in the pixels, and at out_base[q] + position *
  // out_pos in the output.
  struct Geometry {
    int64_t n = 0, units = 0, run = 0;
    int64_t in3[3] = {1, 1, 1}, k3[3] = {1, 1, 1}, out3[3] = {1, 1, 1};
    int64_t in_pos = 0, out_pos = 0, in_batch = 0, out_batch = 0;
    std::vector<int64_t> in_base, out_base;
  };

 private:
  Geometry g_;
};

}  // namespace amp::kernels::cpu
