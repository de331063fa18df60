// The activation the FuseActivation pass (graph/passes/fuse_activation.cc) folded into a
// Conv / ConvTranspose / MatMul / Gemm node, as every backend reads it.
//
//   AMP_ASSIGN_OR_RETURN(ew::Activation act, read_fused_activation(node));
//   if (act.kind != ew::ActivationKind::kNone) ...  // an epilogue, or a separate pass
#pragma once

#include "graph/ir/graph.h"
#include "kernels/common/elementwise_functors.h"
#include "runtime/common/status.h"

namespace amp::kernels {

// Reads fused_activation ("Relu", "LeakyRelu", "Clip", "Sigmoid", "Tanh", "HardSigmoid",
// "HardSwish") with fused_alpha / fused_beta (LeakyRelu: alpha; HardSigmoid: alpha, beta;
// Clip: min = alpha, max = beta). Absent parameters take the ONNX defaults. kNone when
// the node has no fused activation; unsupported for an unknown name.
Result<ew::Activation> read_fused_activation(const graph::Node& node);

}  // namespace amp::kernels
