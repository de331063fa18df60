// Attention's prepare() for every backend, and the per-element rules both backends' loops
// share (AMP_HOST_DEVICE), so the CPU and CUDA kernels compute the same thing.
//
// Algorithm (ONNX's reference, graph/ops/infer_attention.cc for the shapes): for batch b,
// query head h (kv head h / (Hq / Hkv)), query i and key j of the T = past + new keys,
//   s    = scale * dot(Q[b,h,i,:], K[b,kv,j,:])           K: past_key then K
//   s    = softcap * tanh(s / softcap)                      when softcap > 0
//   s   += bias(b, h, i, j)                                 attention_bias() below
//   p    = softmax_j(s)                                     max-subtracted
//   Y[b,h,i,:] = sum_j p_j V[b,kv,j,:]
// all in fp32 (f64 for f64) whatever the storage type. A row whose every key is masked
// attends to nothing: its probabilities and output are 0 (ONNX's reference since opset 23's
// "fully masked row" cases; a plain softmax would give NaN).
//
//   AMP_ASSIGN_OR_RETURN(plan_, check_attention_io(cfg));
//   ... attention_bias<float>(plan_, mask, nonpad, b, h, i, j) ...
#pragma once

#include <cmath>
#include <cstdint>

#include "amp/dtype.h"
#include "kernels/common/element_access.h"
#include "kernels/common/elementwise_functors.h"
#include "kernels/common/head_layout.h"
#include "kernels/kernel_registry.h"
#include "runtime/common/host_device.h"
#include "runtime/common/status.h"

namespace amp::kernels {

struct AttentionPlan {
  int64_t batch = 0, q_heads = 0, kv_heads = 0;
  int64_t q_len = 0, kv_len = 0, past_len = 0, total = 0;
  int64_t head_size = 0, v_head_size = 0;
  HeadStrides q, k, v, y;  // K and V: the new keys / values only
  double scale = 1.0;
  float softcap = 0.0f;
  bool causal = false;
  bool has_past = false;
  int qk_output_mode = 0;
  // attn_mask: dims right-aligned to [B, Hq, Sq, T], stride 0 where broadcast; keys at and
  // beyond mask_len are masked.
  bool has_mask = false, mask_bool = false;
  DType mask_dtype = DType::kUndefined;
  int64_t mask_strides[4] = {};
  int64_t mask_len = 0;
  bool has_nonpad = false;
  bool want_present = false, want_qk = false;

  int64_t group() const { return q_heads / kv_heads; }
};

Result<AttentionPlan> check_attention_io(const KernelConfig& cfg);

// The additive bias of score (b, h, i, j): the mask's value (bool: 0 or -inf), then -inf
// where causality or the batch's key count excludes the key. Causal masking is aligned
// bottom-right: key j is visible to query i iff j <= i + offset, offset = past length with a
// past, else nonpad_kv_seqlen[b] - Sq with it, else 0.
template <typename C>
AMP_HOST_DEVICE C attention_bias(const AttentionPlan& p, const void* mask, const int64_t* nonpad,
                                 int64_t b, int64_t h, int64_t i, int64_t j) {
  const C neg_inf = -C(INFINITY);
  C bias = C(0);
  if (p.has_mask) {
    if (j >= p.mask_len) return neg_inf;
    const int64_t off = b * p.mask_strides[0] + h * p.mask_strides[1] + i * p.mask_strides[2] +
                        j * p.mask_strides[3];
    if (p.mask_bool) {
      if (static_cast<const uint8_t*>(mask)[off] == 0) return neg_inf;
    } else {
      bias = static_cast<C>(load_as_double(mask, p.mask_dtype, off));
    }
  }
  if (p.causal) {
    const int64_t offset = p.has_past ? p.past_len : (nonpad ? nonpad[b] - p.q_len : 0);
    if (j > i + offset) return neg_inf;
  }
  if (nonpad && j >= nonpad[b]) return neg_inf;
  return bias;
}

// softcap * tanh(s / softcap), or s without a softcap.
template <typename C>
AMP_HOST_DEVICE C attention_softcap(C s, float softcap) {
  if (softcap <= 0.0f) return s;
  const C c = static_cast<C>(softcap);
  return c * ew::math::tanh(s / c);
}

}  // namespace amp::kernels
