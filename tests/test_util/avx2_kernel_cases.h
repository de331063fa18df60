// What the tests of our own AVX2 kernels share (kernels/cpu/packed_gemm.h, winograd_conv.h):
// whether this CPU runs them, and every kind of activation they fuse
// (graph/ops/fused_activation.h), with parameters past the defaults.
#pragma once

#include <vector>

#include "graph/ops/fused_activation.h"

namespace amp::test {

// AVX2 and FMA (AVX-512 CPUs included: the kernels run there, the ops only pick them
// where AVX-512 is absent).
inline bool cpu_runs_avx2_fma() {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

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
