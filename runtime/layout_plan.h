// Layout planning for the CPU backend: which activations are stored channels-last.
//
// oneDNN's fastest convolutions on AVX-512 read and write channels-last (NHWC) tensors, so a
// convolution whose input and output are the plain NCHW of the ONNX contract reorders both on
// every run; measured on ultraface-version-slim-320, the reorders took as long as the
// convolutions. A tensor that only convolutions touch need not be NCHW in between:
//
//   Conv --x--> Conv, Conv      x is written and read channels-last, no reorder on either side
//
// Rule: a non-constant f32 value of rank 3 to 5 is channels-last when its producer is a Conv
// and every use is input 0 (the data) of a Conv, and it is not a graph output (an output, a
// value crossing a plan cut, or one read by any other kernel stays plain). NHWC is dense, so
// sizes, the memory plan and in-place rules do not change; the conv kernel
// (kernels/cpu/dnnl_conv.cc) takes the layout through TensorDesc::channels_last and reorders
// only when its primitive prefers yet another layout (then no worse than before).
#pragma once

#include <vector>

#include "graph/ir/graph.h"

namespace amp::runtime {

// For each value of `g`: whether it is stored channels-last (the rule above).
std::vector<char> plan_channels_last(const graph::Graph& g);

}  // namespace amp::runtime
