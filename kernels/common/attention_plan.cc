#include "kernels/common/attention_plan.h"

#include <string>

#include "graph/ops/op_attrs.h"
#include "kernels/common/kernel_checks.h"

namespace amp::kernels {
namespace {

bool present(const KernelConfig& cfg, size_t i) {
  return cfg.inputs.size() > i && cfg.inputs[i].present;
}

// Q, K and V's run-time dims against the record the kernels index them by (inference
// checked what was static; a symbolic batch or head size is only known here). Every path
// reads K and V at Q's batch and the record's head counts and sizes.
Status check_head_dims(const KernelConfig& cfg, const graph::AttentionAttrs& a) {
  const TensorDesc& q = cfg.inputs[0];
  const TensorDesc& k = cfg.inputs[1];
  const TensorDesc& v = cfg.inputs[2];
  const size_t rank = q.rank();
  if ((rank != 3 && rank != 4) || k.rank() != rank || v.rank() != rank)
    return invalid_model(op_label(cfg) + ": Q, K and V must all be 3-D or all 4-D");
  auto fits = [&](const TensorDesc& t, int64_t heads, int64_t size) {
    return rank == 4 ? t.dims[1] == heads && t.dims[3] == size : t.dims[2] == heads * size;
  };
  if (k.dims[0] != q.dims[0] || v.dims[0] != q.dims[0])
    return invalid_model(op_label(cfg) + ": Q has batch " + std::to_string(q.dims[0]) +
                         " but K and V have " + std::to_string(k.dims[0]) + " and " +
                         std::to_string(v.dims[0]));
  if (!fits(q, a.q_heads, a.head_size) || !fits(k, a.kv_heads, a.head_size) ||
      !fits(v, a.kv_heads, a.v_head_size))
    return invalid_model(op_label(cfg) +
                         ": Q, K or V do not have the heads and head sizes "
                         "inferred at load (" +
                         std::to_string(a.q_heads) + " / " + std::to_string(a.kv_heads) +
                         " heads of " + std::to_string(a.head_size) + ")");
  return Status::ok();
}

}  // namespace

Result<AttentionPlan> check_attention_io(const KernelConfig& cfg) {
  AMP_ASSIGN_OR_RETURN(const graph::AttentionAttrs* a, resolved_attrs<graph::AttentionAttrs>(cfg));
  if (cfg.inputs.size() < 3 || cfg.outputs.empty() || !cfg.outputs[0].present)
    return invalid_model(op_label(cfg) + ": needs Q, K, V and an output");
  const TensorDesc& q = cfg.inputs[0];
  const TensorDesc& k = cfg.inputs[1];
  const TensorDesc& v = cfg.inputs[2];
  if (k.dtype != q.dtype || v.dtype != q.dtype)
    return unsupported(op_label(cfg) + ": Q, K and V of different dtypes");
  AMP_RETURN_IF_ERROR(check_head_dims(cfg, *a));
  AttentionPlan p;
  p.batch = q.dims[0];
  p.q_heads = a->q_heads;
  p.kv_heads = a->kv_heads;
  p.head_size = a->head_size;
  p.v_head_size = a->v_head_size;
  p.q_len = head_seq_len(q);
  p.kv_len = head_seq_len(k);
  if (head_seq_len(v) != p.kv_len) return invalid_model(op_label(cfg) + ": K and V lengths differ");
  p.q = head_strides(q, p.q_heads, p.head_size);
  p.k = head_strides(k, p.kv_heads, p.head_size);
  p.v = head_strides(v, p.kv_heads, p.v_head_size);
  p.y = head_strides(cfg.outputs[0], p.q_heads, p.v_head_size);
  p.scale = a->scale;
  p.softcap = a->softcap;
  p.causal = a->causal;
  p.qk_output_mode = a->qk_output_mode;
  p.has_past = present(cfg, 4);
  if (p.has_past) {
    const TensorDesc& pk = cfg.inputs[4];
    const TensorDesc& pv = cfg.inputs[5];
    if (pk.dtype != q.dtype || pv.dtype != q.dtype || pk.rank() != 4 || pv.rank() != 4 ||
        pk.dims[0] != p.batch || pk.dims[1] != p.kv_heads || pk.dims[3] != p.head_size ||
        pv.dims[0] != p.batch || pv.dims[1] != p.kv_heads || pv.dims[2] != pk.dims[2] ||
        pv.dims[3] != p.v_head_size)
      return invalid_model(op_label(cfg) + ": past_key / past_value do not fit K / V");
    p.past_len = pk.dims[2];
  }
  p.total = p.past_len + p.kv_len;
  if (present(cfg, 3)) {
    const TensorDesc& m = cfg.inputs[3];
    p.has_mask = true;
    p.mask_bool = m.dtype == DType::kBool;
    p.mask_dtype = m.dtype;
    const int r = static_cast<int>(m.rank());
    const int64_t want[4] = {p.batch, p.q_heads, p.q_len, p.total};
    int64_t stride = 1;
    for (int d = 3; d >= 0; --d) {
      const int md = d - (4 - r);
      const int64_t size = md >= 0 ? m.dims[static_cast<size_t>(md)] : 1;
      const bool last = d == 3;
      if (!last && size != 1 && size != want[d])
        return invalid_model(op_label(cfg) + ": attn_mask does not broadcast to [B, Hq, Sq, T]");
      if (last && size > p.total)
        return invalid_model(op_label(cfg) + ": attn_mask is longer than the keys");
      p.mask_strides[d] = size == 1 && !last ? 0 : stride;
      if (last) p.mask_len = size;
      stride *= size;
    }
  }
  if (present(cfg, 6)) {
    const TensorDesc& n = cfg.inputs[6];
    if (n.dtype != DType::kI64 || n.numel() != p.batch)
      return invalid_model(op_label(cfg) + ": nonpad_kv_seqlen must be i64 [B]");
    p.has_nonpad = true;
  }
  p.want_present = cfg.outputs.size() > 2 && cfg.outputs[1].present && cfg.outputs[2].present;
  if (cfg.outputs.size() > 1 &&
      cfg.outputs[1].present != (cfg.outputs.size() > 2 && cfg.outputs[2].present))
    return unsupported(op_label(cfg) + ": present_key without present_value (or the reverse)");
  p.want_qk = cfg.outputs.size() > 3 && cfg.outputs[3].present;
  for (size_t o = 0; o < cfg.outputs.size(); ++o)
    if (cfg.outputs[o].present && cfg.outputs[o].dtype != q.dtype)
      return unsupported(op_label(cfg) + ": output " + std::to_string(o) +
                         " in another dtype than Q");
  return p;
}

}  // namespace amp::kernels
