// Sliding-window geometry of Conv, ConvTranspose, MaxPool and AveragePool, once for every
// consumer: shape inference resolves it into the node's record (op_attrs.h, Window) and
// the kernels of both backends read that record. Follows the ONNX spec, and the ONNX
// reference implementation where the spec is silent:
//   effective kernel  e = (k - 1) d + 1
//   forward
//     NOTSET            out = floor((in + pb + pe - e) / s) + 1; with ceil_mode ceil, then
//                       minus one when the last window would start past in + pb (as
//                       PyTorch and ONNX Runtime do)
//     VALID             pads 0, out = floor((in - e) / s) + 1
//     SAME_UPPER/LOWER  out = ceil(in / s), total = max(0, (out - 1) s + e - in), the odd
//                       pad at the end (UPPER) or the beginning (LOWER)
//   transposed (ConvTranspose), natural = s (in - 1) + e
//     NOTSET            out = natural + output_padding - pb - pe
//     VALID             pads 0, out = natural + output_padding
//     SAME_* or output_shape  out = in s (or output_shape), total = natural +
//                       output_padding - out split in floor halves, the larger half at
//                       the end for SAME_UPPER and at the beginning otherwise; either
//                       pad may then be negative.
// Sizes come from untrusted files: every step is overflow-checked and a window that does
// not fit is invalid_model naming the axis.
//
//   AMP_ASSIGN_OR_RETURN(Window w, read_window(node, spatial, /*use_dilations=*/true));
//   AMP_ASSIGN_OR_RETURN(int64_t out, resolve_forward_axis(w, i, in));
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "graph/ir/graph.h"
#include "runtime/common/status.h"

namespace amp::graph {

// Whether a resolved ConvTranspose's windows tile its output without overlap or gaps:
// kernel = stride, no dilation or pads, one group (the 2x2 stride-2 upsampling of DB text
// detectors, U-Nets and segmentation decoders). Its output is then a 1x1 convolution's,
// rearranged depth-to-space. out = in * stride also rules out output_padding.
bool conv_transpose_tiles_output(const ConvAttrs& conv);

// Reads strides / dilations / pads / auto_pad for `spatial` axes (kernel stays empty).
// `use_dilations` is false for ops without the attribute (all 1s).
Result<Window> read_window(const Node& node, size_t spatial, bool use_dilations);

// kernel_shape for `spatial` axes, each > 0.
Result<std::vector<int64_t>> read_kernel_shape(const Node& node, size_t spatial);

// Resolves axis i of a forward window for input size `in`: writes the axis's pads and
// returns the output size (>= 1).
Result<int64_t> resolve_forward_axis(Window& w, size_t i, int64_t in);

// Resolves axis i of a ConvTranspose window: writes the axis's pads and returns the
// output size (>= 0). `output_shape` is that axis's entry of the attribute, if given.
Result<int64_t> resolve_transposed_axis(Window& w, size_t i, int64_t in, int64_t output_padding,
                                        std::optional<int64_t> output_shape);

}  // namespace amp::graph
