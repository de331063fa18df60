#include "kernels/common/fused_activation.h"

#include <cfloat>
#include <string>

namespace amp::kernels {

Result<ew::Activation> read_fused_activation(const graph::Node& node) {
  AMP_ASSIGN_OR_RETURN(const std::string name, node.attrs.get_string("fused_activation", ""));
  ew::Activation a;
  float def_alpha = 0.0f, def_beta = 0.0f;
  if (name.empty()) {
    return a;
  } else if (name == "Relu") {
    a.kind = ew::ActivationKind::kRelu;
  } else if (name == "LeakyRelu") {
    a.kind = ew::ActivationKind::kLeakyRelu;
    def_alpha = 0.01f;
  } else if (name == "Clip") {
    a.kind = ew::ActivationKind::kClip;
    def_alpha = -FLT_MAX;
    def_beta = FLT_MAX;
  } else if (name == "Sigmoid") {
    a.kind = ew::ActivationKind::kSigmoid;
  } else if (name == "Tanh") {
    a.kind = ew::ActivationKind::kTanh;
  } else if (name == "HardSigmoid") {
    a.kind = ew::ActivationKind::kHardSigmoid;
    def_alpha = 0.2f;
    def_beta = 0.5f;
  } else if (name == "HardSwish") {
    a.kind = ew::ActivationKind::kHardSwish;
  } else {
    return unsupported("fused_activation '" + name + "' is not supported");
  }
  AMP_ASSIGN_OR_RETURN(a.alpha, node.attrs.get_float("fused_alpha", def_alpha));
  AMP_ASSIGN_OR_RETURN(a.beta, node.attrs.get_float("fused_beta", def_beta));
  return a;
}

}  // namespace amp::kernels
