// The taps of a convolution window that ever read the input. A dilated convolution on a
// small feature map (DeepLabV3's atrous pyramid: 3x3 at dilation 12, 24 and 36 over 16x16)
// has taps that fall into the padding for every output position; they only ever multiply
// zeros. Cutting the window to the taps that read the input, with the pads shrunk by the
// same amount, computes the same outputs with fewer multiply-adds and a smaller padding,
// which oneDNN's direct convolutions accept (a pad larger than the window sends it to its
// im2col GEMM): DeepLabV3's 3x3 at dilation 24 and 36 become 1x1 convolutions.
//
// Tap t of axis i reads input position o * stride - pad_begin + t * dilation for output o in
// [0, out); it is live when that lies in [0, in) for some o. The window becomes the live taps
// [t0, t1] of each axis, pad_begin - t0 * dilation and pad_end - (k - 1 - t1) * dilation,
// which keeps out = (in + pads - effective kernel) / stride + 1. Not cut: a window whose live
// taps have a gap (possible only when stride > 1), or whose new pads would be negative.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "graph/ops/op_attrs.h"

namespace amp::kernels {

struct LiveWindow {
  graph::Window window;        // the cut window (kernel, pads; dilation 1 on a 1-tap axis)
  std::vector<int64_t> first;  // per axis, the first live tap of the original window
};

// The cut window of a resolved forward window, or nullopt when every tap is live (or the
// window cannot be cut as above).
std::optional<LiveWindow> cut_to_live_taps(const graph::Window& w);

// The output positions [begin, end) of axis i at which tap t reads the input, not the
// padding: o * stride - pad_begin + t * dilation in [0, in). A range because the position
// grows with o. Empty (begin >= end) for a tap that only reads padding.
struct OutputRange {
  int64_t begin = 0, end = 0;
  int64_t size() const { return end > begin ? end - begin : 0; }
};
OutputRange live_outputs(const graph::Window& w, size_t i, int64_t t);

// The share of a resolved forward window's multiply-adds that read the input: the sum over
// its taps of the outputs each reaches, over taps x outputs. 1 without padding; DeepLabV3's
// 3x3 at dilation 12 over 16x16 reads the input with 1.5 of 3 taps an axis on average: 0.25.
double live_share(const graph::Window& w);

}  // namespace amp::kernels
