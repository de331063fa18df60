#include "kernels/cpu/vector_activation.h"

#include "kernels/common/elementwise_functors.h"
#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/vector_exp.h"

namespace amp::kernels::cpu {
namespace {

// One loop per functor, so the kind's branch is outside it and the loop vectorizes.
template <typename F>
AMP_ISA_CLONES void map_in_place(float* y, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) y[i] = f(y[i]);
}

}  // namespace

void activate_f32(const graph::FusedActivation& act, float* y, int64_t n) {
  using graph::ActivationKind;
  switch (act.kind) {
    case ActivationKind::kNone:
      return;
    case ActivationKind::kRelu:
      return map_in_place(y, n, ew::Relu{});
    case ActivationKind::kLeakyRelu:
      return map_in_place(y, n, ew::LeakyRelu{act.alpha});
    case ActivationKind::kClip:
      return map_in_place(y, n, ew::Clip<float>{act.alpha, act.beta});
    case ActivationKind::kHardSigmoid:
      return map_in_place(y, n, ew::HardSigmoid{act.alpha, act.beta});
    case ActivationKind::kHardSwish:
      return map_in_place(y, n, ew::HardSwish{});
    case ActivationKind::kSigmoid:
      return sigmoid_f32(y, y, n);
    case ActivationKind::kSwish:
      return swish_f32(y, y, n);
    case ActivationKind::kGeluErf:
      return gelu_erf_f32(y, y, n);
    case ActivationKind::kGeluTanh:
      return gelu_tanh_f32(y, y, n);
    case ActivationKind::kTanh:
      return tanh_f32(y, y, n);
  }
}

}  // namespace amp::kernels::cpu
