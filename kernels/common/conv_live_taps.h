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

}  // namespace amp::kernels
