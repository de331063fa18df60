// Every kind of activation a kernel can fuse (graph/ops/fused_activation.h), with
// parameters past the defaults, for the CPU kernels' epilogue tests (packed GEMM, Winograd
// convolution).
#pragma once

#include <vector>

#include "graph/ops/fused_activation.h"

namespace amp::test {

inline std::vector<graph::FusedActivation> every_fused_activation() {
  using graph::ActivationKind;
  return {{ActivationKind::kNone},
          {ActivationKind::kRelu},
          {ActivationKind::kLeakyRelu, 0.1f},
          {ActivationKind::kClip, -0.5f, 0.75f},
          {ActivationKind::kSigmoid},
          {ActivationKind::kTanh},
          {ActivationKind::kHardSigmoid, 0.3f, 0.4f},
          {ActivationKind::kHardSwish},
          {ActivationKind::kSwish},
          {ActivationKind::kGeluErf},
          {ActivationKind::kGeluTanh}};
}

}  // namespace amp::test
