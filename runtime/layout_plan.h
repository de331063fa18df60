// Layout planning for the CPU backend: which activations stay in the convolutions' layout.
//
// oneDNN's fast convolutions read and write their own layouts (channels-last for AVX-512's
// brgconv, 8-channel blocks nChw8c for AVX2's jit kernels), so a convolution whose input and
// output are the plain NCHW of the ONNX contract reorders both on every run; measured on
// ultraface-version-slim-320, the reorders took as long as the convolutions. A tensor that
// only convolutions touch need not be NCHW in between:
//
//   Conv --x--> Conv, Conv      x is written and read in the conv layout, no reorder at all
//
// Rule: a non-constant f32 value of rank 3 to 5 keeps the conv layout when its producer is
// a Conv and every use is input 0 (the data) of a Conv, and it is not a graph output (an
// output, a value crossing a plan cut, or one read by any other kernel stays plain). The
// layout is dense (kernels/cpu/dnnl_common.h, conv_activation_desc), so sizes, the memory
// plan and in-place rules do not change; the conv kernel (kernels/cpu/dnnl_conv.cc) takes it
// through TensorDesc::conv_layout and reorders only when its primitive prefers yet another
// layout (then no worse than before).
#pragma once

#include <vector>

#include "graph/ir/graph.h"

namespace amp::runtime {

// For each value of `g`: whether it is stored in the conv layout (the rule above).
std::vector<char> plan_conv_layouts(const graph::Graph& g);

}  // namespace amp::runtime
