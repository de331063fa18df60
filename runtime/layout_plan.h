// Layout planning for the CPU backend: which activations stay in the convolutions' layout.
//
// oneDNN's fast convolutions read and write their own layouts (channels-last for AVX-512's
// brgconv, 8-channel blocks nChw8c for AVX2's jit kernels), so a convolution whose input and
// output are the plain NCHW of the ONNX contract reorders both on every run; measured on
// ultraface-version-slim-320, the reorders took as long as the convolutions. A tensor that
// only convolutions touch need not be NCHW in between:
//
//   Conv --x--> Conv, Conv      x is written and read in the conv layout, no reorder at all
//   Conv --a--> Add(a, b) --s--> Conv       likewise a, b and s (a residual block)
//
// An elementwise node whose inputs all have its output's shape (or one element) computes
// element i from elements i, whatever the layout, so it may sit between convolutions too.
// So may a squeeze-and-excitation block (MobileNetV3, PaddleOCR): x -> GlobalAveragePool ->
// ... -> scale [N, C, 1, 1]; Mul(x, scale) -> Conv. A global pooling reads x in the conv
// layout with its strides (kernels/cpu/reduce_global_pool.cc), and a binary elementwise
// node whose other input is per channel ([1 or N, C, 1...], right-aligned) computes on the
// physical dims: channels-last [N, spatial..., C] with the scale as [., 1..., C], 8-channel
// blocks [N, C/8, spatial..., 8] with it as [., C/8, 1..., 8]; a [N, C, 1...] tensor has the
// same bytes in every layout, so the scale itself stays plain.
// A MaxPool that oneDNN runs counts as a Conv here (it reads and writes the layout: on
// AVX2 its jit pooling takes nothing else, kernels/cpu/dnnl_pool.cc), and so does an f32
// ConvTranspose whose windows tile its output (a 1x1 conv and a copy of channel runs,
// kernels/cpu/conv_transpose_tiled.h: a DB text detector's head, Conv -> ConvTranspose ->
// ConvTranspose, then reorders nothing).
// An FPN's top-down path and fusion (DB text detectors, YOLO necks) keeps the layout too: a
// Resize of the spatial axes reads and writes it (the kernel samples the physical dims, the
// channel axes being identities), and a Concat or Split along the channels of tensors that
// all take the same kind of layout copies blocks of the physical dims (C_i / 8 blocks of
// [S, 8], or C_i channels per position: YOLOv8's C2f splits, CSP blocks, FPN fusions). A
// Gather of the channels with constant indices (ShuffleNet's channel shuffle and the Split
// after it, graph/passes/fuse_channel_shuffle.h) reads and writes it as well.
// A Split's outputs all keep the layout or none does: a value made by a Split keeps it only
// while the Split's data input does, and the data input only while every output does.
// Rule (a fixed point, largest set): a non-constant value of rank 3 to 5 whose dtype the
// convolutions compute in natively (f32; bf16 on a CPU with AVX512-BF16 or AMX, where
// oneDNN's bf16 convolutions read and write bf16 directly) keeps the conv
// layout when it is made by a Conv, or by such an elementwise node whose full-size inputs
// all keep it; when every use is the data input of a Conv, a global pooling's input, or a
// full-size input of such a node whose output keeps it; and when it is no graph output (an output,
// a value crossing a plan cut, or one read by any other kernel, e.g. a broadcast Mul or a pooling,
// stays plain). Algorithm: start from every candidate, drop values that break a condition until
// none does (each round drops at least one; O(rounds x edges)). The layout is dense
// (kernels/cpu/dnnl_common.h, conv_activation_desc), so sizes, the memory plan and in-place rules
// do not change, and the elementwise kernels run unchanged on same-shape inputs. The conv kernel
// (kernels/cpu/dnnl_conv.cc) takes the layout through TensorDesc::conv_layout and reorders
// only when its primitive prefers yet another layout (then no worse than before).
#pragma once

#include <functional>
#include <vector>

#include "graph/ir/graph.h"

namespace amp::runtime {

// Whether a tensor of these logical dims takes 8-channel blocks as its conv layout
// (Backend::conv_layout_blocked8), not channels-last.
using BlockedLayout = std::function<bool(const std::vector<int64_t>&)>;

// For each value of `g`: whether it is stored in the conv layout (the rule above).
// `native(dtype)`: whether the convolutions compute in that dtype without staging it
// through f32 (Backend::conv_layout_dtype). `blocked8` (empty: never, channels-last
// only) tells a Concat's or Split's tensors' kinds apart.
std::vector<char> plan_conv_layouts(const graph::Graph& g, const std::function<bool(DType)>& native,
                                    const BlockedLayout& blocked8 = {});

// Of a binary elementwise node: which input (0 or 1) is per channel against a full-size
// other input and a rank 3..5 output in a `native` dtype, or -1. Such a node, when its output
// keeps the conv layout, gets its tensors described by physical_conv_dims.
int channel_operand(const graph::Graph& g, const graph::Node& n,
                    const std::function<bool(DType)>& native);

// The dims a tensor of logical `dims` (right-aligned to `rank`, the output's) has in the
// conv layout, read as a plain tensor: [N, spatial..., C], or [N, C/8, spatial..., 8] when
// `blocked8`. For a per-channel operand, its broadcast dims in that order.
std::vector<int64_t> physical_conv_dims(const std::vector<int64_t>& dims, size_t rank,
                                        bool blocked8);

}  // namespace amp::runtime
