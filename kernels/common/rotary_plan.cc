#include "kernels/common/rotary_plan.h"

#include <string>

#include "graph/ops/op_attrs.h"
#include "kernels/common/kernel_checks.h"

namespace amp::kernels {

Result<RotaryPlan> check_rotary_io(const KernelConfig& cfg) {
  AMP_ASSIGN_OR_RETURN(const graph::RotaryAttrs* a, resolved_attrs<graph::RotaryAttrs>(cfg));
  if (cfg.inputs.size() < 3 || cfg.outputs.empty() || !cfg.outputs[0].present)
    return invalid_model(op_label(cfg) + ": needs input, cos_cache, sin_cache and an output");
  const TensorDesc& x = cfg.inputs[0];
  const TensorDesc& cos = cfg.inputs[1];
  const TensorDesc& sin = cfg.inputs[2];
  if (cos.dtype != x.dtype || sin.dtype != x.dtype || cfg.outputs[0].dtype != x.dtype ||
      cfg.outputs[0].dims != x.dims)
    return invalid_model(op_label(cfg) + ": the caches and the output must match the input");
  RotaryPlan p;
  p.batch = x.dims[0];
  p.seq = head_seq_len(x);
  p.heads = a->heads;
  p.head_size = a->head_size;
  p.rotary_dim = a->rotary_dim;
  p.interleaved = a->interleaved;
  p.x = head_strides(x, p.heads, p.head_size);
  p.has_positions = cfg.inputs.size() > 3 && cfg.inputs[3].present;
  const int64_t half = p.rotary_dim / 2;
  if (cos.dims != sin.dims || cos.dims.empty() || cos.dims.back() != half)
    return invalid_model(op_label(cfg) + ": cos_cache and sin_cache must be [..., " +
                         std::to_string(half) + "] alike");
  if (p.has_positions) {
    if (cfg.inputs[3].numel() != p.batch * p.seq || cos.rank() != 2)
      return invalid_model(op_label(cfg) + ": position_ids must be [B, S] with 2-D caches");
    p.cache_rows = cos.dims[0];
  } else if (cos.numel() != p.batch * p.seq * half) {
    return invalid_model(op_label(cfg) + ": without position_ids the caches must be [B, S, " +
                         std::to_string(half) + "]");
  }
  return p;
}

}  // namespace amp::kernels
