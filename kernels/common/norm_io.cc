#include "kernels/common/norm_io.h"

#include <string>

#include "kernels/common/kernel_checks.h"

namespace amp::kernels {

Result<ChannelNormShape> check_channel_norm_io(const KernelConfig& cfg, DType t,
                                               size_t num_params) {
  AMP_RETURN_IF_ERROR(check_io(cfg, t));
  AMP_ASSIGN_OR_RETURN(const graph::NormAttrs* a, same_shape_attrs<graph::NormAttrs>(cfg));
  if (cfg.inputs[0].rank() < 2) return invalid_model(op_label(cfg) + " needs an input [N, C, ...]");
  ChannelNormShape s;
  s.epsilon = a->epsilon;
  s.planes = a->geometry.outer * a->geometry.len;
  s.channels = a->geometry.len;
  s.spatial = a->geometry.inner;
  for (size_t i = 1; i <= num_params; ++i) {
    if (cfg.inputs.size() <= i || !cfg.inputs[i].present)
      return invalid_model("input " + std::to_string(i) + " is required");
    const TensorDesc& d = cfg.inputs[i];
    if (!is_float(d.dtype) || d.numel() != s.channels)
      return invalid_model("input " + std::to_string(i) + " must be a float tensor of C = " +
                           std::to_string(s.channels) + " elements");
    s.param_dtype[i - 1] = d.dtype;
  }
  return s;
}

Result<LayerNormShape> check_layer_norm_io(const KernelConfig& cfg, DType t) {
  AMP_RETURN_IF_ERROR(check_io(cfg, t));
  AMP_ASSIGN_OR_RETURN(const graph::NormAttrs* a, same_shape_attrs<graph::NormAttrs>(cfg));
  const std::vector<int64_t>& dims = cfg.inputs[0].dims;
  if (dims.empty()) return invalid_model(op_label(cfg) + " needs an input of rank >= 1");
  if (a->stash_type != 1)
    return unsupported("stash_type " + std::to_string(a->stash_type) + " (only 1 = float)");
  if (cfg.inputs.size() < 2 || !cfg.inputs[1].present)
    return invalid_model("Scale (input 1) is required");
  LayerNormShape s;
  s.rms = cfg.node->op == graph::OpType::kRMSNormalization;
  s.epsilon = a->epsilon;
  s.outer = a->geometry.outer;
  s.n = a->geometry.len;
  s.norm_dims.assign(dims.begin() + a->axis, dims.end());
  for (size_t i = 1; i < 3; ++i) {
    s.stat_dtype[i - 1] = DType::kUndefined;
    if (cfg.outputs.size() <= i || !cfg.outputs[i].present) continue;
    const TensorDesc& o = cfg.outputs[i];
    if (!is_float(o.dtype))
      return invalid_model("output " + std::to_string(i) + " must be a float tensor");
    if (o.numel() != s.outer)
      return invalid_model("output " + std::to_string(i) + " has " + std::to_string(o.numel()) +
                           " elements, expected " + std::to_string(s.outer));
    s.stat_dtype[i - 1] = o.dtype;
  }
  return s;
}

}  // namespace amp::kernels
