// Four more models of tools/bench/bench_vs_ort.py, written by `amp-make-demo-models DIR
// --bench-models`: popular architectures the other bench models do not cover, in the shapes
// PyTorch's exporter writes them, with seeded random weights at initialization scale (speed
// is measured, not accuracy). Each one held a slow path that the shared models did not show
// (kernels/cpu: attention.cc, dnnl_conv.cc, reduce_global_pool.cc, softmax_rows.h,
// packed_gemm.h; graph/passes/fuse_decomposed_ops.h):
//
//   demo_gpt2.onnx  "input_ids" [1,128] (int64) -> "logits" [1,128,8000]: a GPT-2-style
//     decoder, 4 layers of 512 wide with 8 heads, one c_attn projection split into q, k, v,
//     the causal mask as a constant bool of Where (scores where allowed, else the dtype's
//     lowest), tanh GELU with Pow(x, 3), LM head tied to the token embedding.
//   demo_conformer.onnx  "features" [1,250,256] -> [1,250,256]: 4 Conformer blocks (speech
//     encoders: half-step SiLU feed-forwards, 4-head self-attention, a convolution module of
//     pointwise Conv1d, GLU, depthwise Conv1d of 31 taps, BatchNorm, SiLU).
//   demo_vit.onnx  "image" [1,3,224,224] -> "logits" [1,1000]: ViT-Tiny/16 (a 16x16 patch
//     convolution, class token, 12 layers of 192 wide with 3 heads, erf GELU).
//   demo_efficientnet.onnx  "image" [1,3,224,224] -> "logits" [1,1000]: EfficientNet-B0
//     (MBConv blocks: expansion, depthwise 3x3 / 5x5, squeeze-and-excitation, SiLU).
#pragma once

#include "graph/ir/graph.h"

namespace amp::demo {

graph::Graph gpt2_decoder();
graph::Graph conformer();
graph::Graph vit_tiny();
graph::Graph efficientnet_b0();

}  // namespace amp::demo
