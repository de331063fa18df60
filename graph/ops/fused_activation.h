// The activation the FuseActivation pass (graph/passes/fuse_activation.h) folds into a
// Conv / ConvTranspose / MatMul / Gemm node, as data: the node carries it as the string
// attribute fused_activation ("Relu", "LeakyRelu", "Clip", "Sigmoid", "Tanh",
// "HardSigmoid", "HardSwish", "Gelu", "GeluTanh", "Swish") with fused_alpha / fused_beta; shape
// inference reads it once (read_fused_activation) into the node's typed record (op_attrs.h), and
// the backends' epilogues apply it (kernels/common/elementwise_functors.h, apply_activation).
//
// Plain data, no dependencies: CUDA device code includes it.
#pragma once

#include <cstdint>

namespace amp::graph {

// alpha is LeakyRelu's slope, HardSigmoid's alpha, Clip's min; beta is HardSigmoid's
// beta, Clip's max.
enum class ActivationKind : uint8_t {
  kNone,
  kRelu,
  kLeakyRelu,
  kSigmoid,
  kTanh,
  kHardSigmoid,
  kHardSwish,
  kGeluErf,
  kGeluTanh,
  kClip,
  kSwish,  // x * Sigmoid(x), SiLU: PyTorch exports it as Sigmoid and Mul (YOLOv5/v8, EfficientNet)
};

struct FusedActivation {
  ActivationKind kind = ActivationKind::kNone;
  float alpha = 0.0f;
  float beta = 0.0f;
};

}  // namespace amp::graph
