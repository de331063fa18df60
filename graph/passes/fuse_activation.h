// FuseActivation: Conv / ConvTranspose / Gemm / MatMul followed by an activation becomes
// one node whose kernel applies the activation as an epilogue (a oneDNN post-op, a
// cuBLASLt epilogue), saving a full read and write of the tensor.
//
//   X --Conv--> y --Relu--> z      becomes      X --Conv[fused_activation=Relu]--> z
//
// SiLU / Swish as PyTorch exports it (YOLOv5/v8's every conv, EfficientNet), where y has
// two consumers:
//
//   X --Conv--> y --Sigmoid--> s; Mul(y, s) --> z    becomes    X --Conv[Swish]--> z
//
// The fused node carries attributes:
//   fused_activation : "Relu" | "LeakyRelu" | "Clip" | "Sigmoid" | "Tanh" | "HardSigmoid" |
//                      "HardSwish" | "Gelu" | "GeluTanh" (Gelu with approximate = "tanh") |
//                      "Swish" (x * Sigmoid(x))
//   fused_alpha, fused_beta : LeakyRelu alpha; Clip min / max; HardSigmoid alpha / beta.
// Conditions: y has exactly one consumer (the activation; for Swish, the Sigmoid and the Mul,
// and s only the Mul), and no fused value is a graph output; the node has no fused activation
// yet; Clip's bounds are constants (or absent).
#pragma once

#include "graph/passes/pass.h"

namespace amp::graph {

class FuseActivation : public Pass {
 public:
  std::string_view name() const override { return "fuse-activation"; }
  Result<bool> run(Graph& g) override;
};

}  // namespace amp::graph
