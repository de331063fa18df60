// Shape & dtype inference for Attention (opset 23, 24) and RotaryEmbedding (opset 23): ONNX's
// reference semantics (onnx/reference/ops/op_attention.py, op_rotary_embedding.py), checked
// once here for every backend.
//
// Q [B, Hq, Sq, D] and K [B, Hkv, Skv, D], V [B, Hkv, Skv, Dv] (4-D), or [B, S, heads * size]
// with q_num_heads and kv_num_heads (3-D). Hq must be a multiple of Hkv (grouped-query
// attention: query head h reads kv head h / (Hq / Hkv)). past_key / past_value
// [B, Hkv, Sp, D / Dv] come before K / V: present_* are [B, Hkv, Sp + Skv, ...] and the keys
// total T = Sp + Skv. attn_mask (bool, or a float added to the scores) broadcasts to
// [B, Hq, Sq, T] and may be shorter than T in its last dim (the rest is masked).
// nonpad_kv_seqlen [B] (i64) masks keys at and beyond each batch's count. Y has Q's layout
// with Dv for D; qk_matmul_output is [B, Hq, Sq, T].
#include <cmath>
#include <cstdint>
#include <string>

#include "graph/ops/infer_rules.h"
#include "graph/ops/infer_util.h"

namespace amp::graph {
namespace {

using Inputs = std::vector<const Value*>;
using Outputs = std::vector<OutputInfo>;

// Dim `i` of `v`, or unknown.
Dim dim_of(const Value& v, size_t i) {
  return v.shape && i < v.shape->rank() ? v.shape->dims[i] : Dim();
}

Dim sum(const Dim& a, const Dim& b) {
  return a.is_static() && b.is_static() ? Dim(a.value + b.value) : Dim();
}

// heads * size = hidden for a 3-D input: the head size, or an error.
Result<int64_t> head_size_of(const Dim& hidden, int64_t heads, const char* what) {
  if (!hidden.is_static()) return int64_t{0};
  if (heads <= 0 || hidden.value % heads != 0)
    return invalid_model(std::string(what) + " hidden size " + std::to_string(hidden.value) +
                         " is not a multiple of its head count " + std::to_string(heads));
  return hidden.value / heads;
}

}  // namespace

Status infer_attention(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  for (size_t i = 0; i < 3; ++i) AMP_RETURN_IF_ERROR(require_input(in, i));
  const Value& q = *in[0];
  const Value& k = *in[1];
  const Value& v = *in[2];
  AMP_RETURN_IF_ERROR(check_dtype(q, 0, DTypeSet::kFloat));
  AMP_RETURN_IF_ERROR(check_same_dtype(k, 1, q, 0));
  AMP_RETURN_IF_ERROR(check_dtype(v, 2, DTypeSet::kFloat));
  const Value* mask = optional_input(in, 3);
  const Value* past_key = optional_input(in, 4);
  const Value* past_value = optional_input(in, 5);
  const Value* nonpad = optional_input(in, 6);
  if (mask != nullptr && mask->dtype != DType::kBool)
    AMP_RETURN_IF_ERROR(check_dtype(*mask, 3, DTypeSet::kFloat));
  if ((past_key == nullptr) != (past_value == nullptr))
    return invalid_model("past_key and past_value come together");
  if (past_key != nullptr) {
    AMP_RETURN_IF_ERROR(check_same_dtype(*past_key, 4, k, 1));
    AMP_RETURN_IF_ERROR(check_same_dtype(*past_value, 5, v, 2));
  }
  if (nonpad != nullptr) AMP_RETURN_IF_ERROR(check_dtype(*nonpad, 6, DTypeSet::kI64));

  AttentionAttrs rec;
  AMP_ASSIGN_OR_RETURN(int64_t causal, node.attrs.get_int("is_causal", 0));
  AMP_ASSIGN_OR_RETURN(int64_t mode, node.attrs.get_int("qk_matmul_output_mode", 0));
  AMP_ASSIGN_OR_RETURN(rec.softcap, node.attrs.get_float("softcap", 0.0f));
  AMP_ASSIGN_OR_RETURN(int64_t q_heads_attr, node.attrs.get_int("q_num_heads", 0));
  AMP_ASSIGN_OR_RETURN(int64_t kv_heads_attr, node.attrs.get_int("kv_num_heads", 0));
  if (mode < 0 || mode > 3)
    return invalid_model("attribute 'qk_matmul_output_mode' is " + std::to_string(mode) +
                         ", expected 0 to 3");
  if (rec.softcap < 0.0f) return invalid_model("attribute 'softcap' must not be negative");
  rec.causal = causal != 0;
  rec.qk_output_mode = static_cast<int>(mode);

  if (!q.shape || !k.shape || !v.shape) {
    for (size_t o = 0; o < 4; ++o) set_output(out, o, o == 0 || o == 3 ? q.dtype : k.dtype, {});
    set_output(out, 2, v.dtype, std::nullopt);
    attrs = rec;
    return Status::ok();
  }
  const size_t rank = q.shape->rank();
  if (rank != 3 && rank != 4) return invalid_model("Q must be 3-D or 4-D");
  if (k.shape->rank() != rank || v.shape->rank() != rank)
    return invalid_model("Q, K and V must have the same rank");
  const Dim batch = dim_of(q, 0);
  // A K or V batch other than Q's would read past their end (every kernel indexes K and V
  // by Q's batch).
  for (const Value* kv : {&k, &v})
    if (batch.is_static() && dim_of(*kv, 0).is_static() && dim_of(*kv, 0) != batch)
      return invalid_model("Q has batch " + std::to_string(batch.value) + " but " +
                           (kv == &k ? "K" : "V") + " has " + std::to_string(dim_of(*kv, 0).value));
  Dim q_len, kv_len;
  if (rank == 4) {
    rec.q_heads = dim_of(q, 1).value;
    rec.kv_heads = dim_of(k, 1).value;
    if (!dim_of(q, 1).is_static() || !dim_of(k, 1).is_static() || !dim_of(q, 3).is_static() ||
        !dim_of(v, 3).is_static())
      return unsupported("Attention needs static head counts and head sizes");
    if (dim_of(v, 1) != dim_of(k, 1)) return invalid_model("K and V have different head counts");
    rec.head_size = dim_of(q, 3).value;
    rec.v_head_size = dim_of(v, 3).value;
    if (dim_of(k, 3).is_static() && dim_of(k, 3).value != rec.head_size)
      return invalid_model("Q and K have different head sizes");
    q_len = dim_of(q, 2);
    kv_len = dim_of(k, 2);
  } else {
    if (q_heads_attr <= 0 || kv_heads_attr <= 0)
      return invalid_model("3-D inputs need attributes q_num_heads and kv_num_heads");
    rec.q_heads = q_heads_attr;
    rec.kv_heads = kv_heads_attr;
    if (!dim_of(q, 2).is_static() || !dim_of(v, 2).is_static())
      return unsupported("Attention needs static hidden sizes");
    AMP_ASSIGN_OR_RETURN(rec.head_size, head_size_of(dim_of(q, 2), rec.q_heads, "Q"));
    AMP_ASSIGN_OR_RETURN(rec.v_head_size, head_size_of(dim_of(v, 2), rec.kv_heads, "V"));
    AMP_ASSIGN_OR_RETURN(int64_t k_size, head_size_of(dim_of(k, 2), rec.kv_heads, "K"));
    if (k_size != 0 && k_size != rec.head_size)
      return invalid_model("Q and K have different head sizes");
    q_len = dim_of(q, 1);
    kv_len = dim_of(k, 1);
  }
  if (rec.kv_heads <= 0 || rec.q_heads % rec.kv_heads != 0)
    return invalid_model("the query head count " + std::to_string(rec.q_heads) +
                         " is not a multiple of the key/value head count " +
                         std::to_string(rec.kv_heads));
  AMP_ASSIGN_OR_RETURN(float scale, node.attrs.get_float("scale", 0.0f));
  rec.scale = node.attrs.has("scale") ? static_cast<double>(scale)
                                      : 1.0 / std::sqrt(static_cast<double>(rec.head_size));

  Dim past_len = Dim(0);
  if (past_key != nullptr) {
    if (!past_key->shape || past_key->shape->rank() != 4 || !past_value->shape ||
        past_value->shape->rank() != 4)
      return invalid_model("past_key and past_value must be 4-D");
    past_len = dim_of(*past_key, 2);
  }
  const Dim total = sum(past_len, kv_len);
  if (mask != nullptr && mask->shape && (mask->shape->rank() < 2 || mask->shape->rank() > 4))
    return invalid_model("attn_mask must have rank 2 to 4");

  Shape y = *q.shape;
  if (rank == 4)
    y.dims[3] = Dim(rec.v_head_size);
  else
    y.dims[2] = Dim(rec.q_heads * rec.v_head_size);
  set_output(out, 0, q.dtype, std::move(y));
  set_output(out, 1, k.dtype, Shape({batch, Dim(rec.kv_heads), total, Dim(rec.head_size)}));
  set_output(out, 2, v.dtype, Shape({batch, Dim(rec.kv_heads), total, Dim(rec.v_head_size)}));
  set_output(out, 3, q.dtype, Shape({batch, Dim(rec.q_heads), q_len, total}));
  attrs = rec;
  return Status::ok();
}

// RotaryEmbedding(input, cos_cache, sin_cache, position_ids?): input [B, H, S, D] or
// [B, S, num_heads * D]; the first rotary_embedding_dim (default D, even) elements of each
// head rotate in pairs (halves, or neighbours when interleaved) by the cache row of their
// position: cos/sin [max_position, R / 2] indexed by position_ids [B, S], or [B, S, R / 2]
// without them. The output has the input's shape and dtype.
Status infer_rotary_embedding(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  for (size_t i = 0; i < 3; ++i) AMP_RETURN_IF_ERROR(require_input(in, i));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kFloat));
  AMP_RETURN_IF_ERROR(check_same_dtype(*in[1], 1, x, 0));
  AMP_RETURN_IF_ERROR(check_same_dtype(*in[2], 2, x, 0));
  const Value* pos = optional_input(in, 3);
  if (pos != nullptr) AMP_RETURN_IF_ERROR(check_dtype(*pos, 3, DTypeSet::kI64));
  AMP_ASSIGN_OR_RETURN(int64_t interleaved, node.attrs.get_int("interleaved", 0));
  AMP_ASSIGN_OR_RETURN(int64_t heads_attr, node.attrs.get_int("num_heads", 0));
  AMP_ASSIGN_OR_RETURN(int64_t rotary, node.attrs.get_int("rotary_embedding_dim", 0));
  set_output(out, 0, x.dtype, x.shape);
  if (!x.shape) return Status::ok();
  const size_t rank = x.shape->rank();
  if (rank != 3 && rank != 4) return invalid_model("input must be 3-D or 4-D");
  const Dim last = dim_of(x, rank - 1);
  if (!last.is_static()) return unsupported("RotaryEmbedding needs a static head size");
  RotaryAttrs rec;
  rec.interleaved = interleaved != 0;
  if (rank == 4) {
    if (!dim_of(x, 1).is_static()) return unsupported("RotaryEmbedding needs a static head count");
    rec.heads = dim_of(x, 1).value;
    rec.head_size = last.value;
  } else {
    if (heads_attr <= 0) return invalid_model("a 3-D input needs attribute num_heads");
    rec.heads = heads_attr;
    AMP_ASSIGN_OR_RETURN(rec.head_size, head_size_of(last, heads_attr, "input"));
  }
  rec.rotary_dim = rotary == 0 ? rec.head_size : rotary;
  if (rec.rotary_dim < 0 || rec.rotary_dim > rec.head_size || rec.rotary_dim % 2 != 0)
    return invalid_model("rotary_embedding_dim " + std::to_string(rec.rotary_dim) +
                         " must be even and at most the head size " +
                         std::to_string(rec.head_size));
  for (size_t i = 1; i < 3; ++i) {
    const Value& c = *in[i];
    if (!c.shape) continue;
    const size_t want = pos != nullptr ? 2 : 3;
    if (c.shape->rank() != want ||
        (c.shape->dims.back().is_static() && c.shape->dims.back().value != rec.rotary_dim / 2))
      return invalid_model("input " + std::to_string(i) + " must be " +
                           (pos != nullptr ? "[max_position, " : "[B, S, ") +
                           std::to_string(rec.rotary_dim / 2) + "]");
  }
  attrs = rec;
  return Status::ok();
}

}  // namespace amp::graph
