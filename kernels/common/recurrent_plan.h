// LSTM, GRU and RNN as both backends run them: prepare()'s checks against the node's record,
// the plan (geometry, which optional inputs and outputs are present), the tensor offsets of
// both layouts and the gate activations, AMP_HOST_DEVICE so the CPU loop and the CUDA kernel
// compute the same thing.
//
// Numerics (the AMP contract for these ALWAYS ops): X, W, R, B, P and the initial states may be
// f16/bf16; every product accumulates in fp32 (f64 for f64), and the gates, the cell state
// and the hidden state stay in fp32 across all time steps inside the kernel. Only Y, Y_h and
// Y_c are rounded to the storage type, once per element. So a long sequence does not
// compound fp16 rounding through the recurrence.
//
// Per direction d (bidirectional: 0 forward, 1 reverse) and batch entry b, steps run over
// t = 0..len-1 (reverse: len-1..0), len = sequence_lens[b] or seq. Y at steps >= len is 0 and
// Y_h / Y_c hold the state after the last valid step (ONNX and ONNX Runtime).
#pragma once

#include <cmath>
#include <cstdint>

#include "amp/dtype.h"
#include "graph/ops/op_attrs.h"
#include "kernels/common/elementwise_functors.h"
#include "kernels/kernel.h"
#include "runtime/common/host_device.h"
#include "runtime/common/status.h"

namespace amp::kernels {

struct RecurrentPlan {
  int kind = graph::RecurrentAttrs::kLstm;
  int directions = 1;
  bool reverse_only = false;  // direction "reverse"
  int layout = 0;
  int gates = 4;
  int64_t seq = 0, batch = 0, input = 0, hidden = 0;
  float clip = 0.0f;
  bool input_forget = false, linear_before_reset = false;
  graph::RnnActivation act[2][3];  // [direction][f, g, h]
  bool has_bias = false, has_lens = false, has_h0 = false, has_c0 = false, has_p = false;
  DType lens_dtype = DType::kI32;
  bool has_y = false, has_yh = false, has_yc = false;
};
Result<RecurrentPlan> check_recurrent_io(const KernelConfig& cfg, DType t);

// Element offsets (in elements of each tensor).
AMP_HOST_DEVICE int64_t rnn_x_offset(const RecurrentPlan& p, int64_t t, int64_t b) {
  return (p.layout == 0 ? t * p.batch + b : b * p.seq + t) * p.input;
}
AMP_HOST_DEVICE int64_t rnn_y_offset(const RecurrentPlan& p, int64_t t, int d, int64_t b) {
  return (p.layout == 0 ? (t * p.directions + d) * p.batch + b
                        : (b * p.seq + t) * p.directions + d) *
         p.hidden;
}
AMP_HOST_DEVICE int64_t rnn_state_offset(const RecurrentPlan& p, int d, int64_t b) {
  return (p.layout == 0 ? d * p.batch + b : b * p.directions + d) * p.hidden;
}
// Row (gate g, unit j) of direction d in W ([dirs, gates*hidden, input]) and R (..., hidden).
AMP_HOST_DEVICE int64_t rnn_w_row(const RecurrentPlan& p, int d, int g, int64_t j) {
  return ((d * p.gates + g) * p.hidden + j) * p.input;
}
AMP_HOST_DEVICE int64_t rnn_r_row(const RecurrentPlan& p, int d, int g, int64_t j) {
  return ((d * p.gates + g) * p.hidden + j) * p.hidden;
}
// B is [dirs, 2 * gates * hidden]: the W biases, then the R biases.
AMP_HOST_DEVICE int64_t rnn_wb(const RecurrentPlan& p, int d, int g, int64_t j) {
  return d * 2 * p.gates * p.hidden + g * p.hidden + j;
}
AMP_HOST_DEVICE int64_t rnn_rb(const RecurrentPlan& p, int d, int g, int64_t j) {
  return rnn_wb(p, d, g, j) + p.gates * p.hidden;
}

// Gate order in W/R/B: LSTM i, o, f, c (P: i, o, f); GRU z, r, h; RNN i.
enum LstmGate : int { kGateI = 0, kGateO = 1, kGateF = 2, kGateC = 3 };
enum GruGate : int { kGateZ = 0, kGateR = 1, kGateH = 2 };

template <typename C>
AMP_HOST_DEVICE C rnn_activate(const graph::RnnActivation& a, C x) {
  namespace m = ew::math;
  const C alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
  switch (a.kind) {
    case graph::RnnActivation::kRelu:
      return x > C(0) ? x : C(0);
    case graph::RnnActivation::kTanh:
      return m::tanh(x);
    case graph::RnnActivation::kSigmoid:
      return C(1) / (C(1) + m::exp(-x));
    case graph::RnnActivation::kAffine:
      return alpha * x + beta;
    case graph::RnnActivation::kLeakyRelu:
      return x < C(0) ? alpha * x : x;
    case graph::RnnActivation::kThresholdedRelu:
      return x > alpha ? x : C(0);
    case graph::RnnActivation::kScaledTanh:
      return alpha * m::tanh(beta * x);
    case graph::RnnActivation::kHardSigmoid: {
      const C v = alpha * x + beta;
      return v < C(0) ? C(0) : (v > C(1) ? C(1) : v);
    }
    case graph::RnnActivation::kElu:
      return x < C(0) ? alpha * (m::exp(x) - C(1)) : x;
    case graph::RnnActivation::kSoftsign:
      return x / (C(1) + (x < C(0) ? -x : x));
    case graph::RnnActivation::kSoftplus:
      return m::log1p(m::exp(x));
    default:
      return x;
  }
}

// Clips a gate's pre-activation to [-clip, clip] (clip 0: none).
template <typename C>
AMP_HOST_DEVICE C rnn_clip(C v, float clip) {
  if (clip <= 0.0f) return v;
  const C c = static_cast<C>(clip);
  return v < -c ? -c : (v > c ? c : v);
}

// One LSTM unit's step: its gates' pre-activations pre[g * hidden + j] (without the
// peepholes), the peephole weights pi, po, pf, and its cell *c, which it updates. Returns the
// new hidden value.
template <typename C>
AMP_HOST_DEVICE C lstm_unit(const RecurrentPlan& p, const graph::RnnActivation* act, const C* pre,
                            int64_t j, C pi, C po, C pf, C* c) {
  const int64_t H = p.hidden;
  const C in = rnn_activate(act[0], rnn_clip(pre[kGateI * H + j] + pi * *c, p.clip));
  const C fg = p.input_forget
                   ? C(1) - in
                   : rnn_activate(act[0], rnn_clip(pre[kGateF * H + j] + pf * *c, p.clip));
  const C cand = rnn_activate(act[1], rnn_clip(pre[kGateC * H + j], p.clip));
  const C cell = fg * *c + in * cand;
  const C out = rnn_activate(act[0], rnn_clip(pre[kGateO * H + j] + po * cell, p.clip));
  *c = cell;
  return out * rnn_activate(act[2], cell);
}

// One GRU unit's new hidden value from its activated update gate z, the h gate's input part
// (pre[kGateH * hidden + j]) and recurrent part `rec`, and its previous hidden value.
template <typename C>
AMP_HOST_DEVICE C gru_unit(const RecurrentPlan& p, const graph::RnnActivation* act, const C* pre,
                           int64_t j, C z, C rec, C h_prev) {
  const C cand = rnn_activate(act[1], rnn_clip(pre[kGateH * p.hidden + j] + rec, p.clip));
  return (C(1) - z) * cand + z * h_prev;
}

// The number of valid steps of batch entry b (sequence_lens clamped into [0, seq]).
AMP_HOST_DEVICE int64_t rnn_length(const RecurrentPlan& p, const void* lens, int64_t b) {
  if (!p.has_lens) return p.seq;
  const int64_t v = p.lens_dtype == DType::kI64 ? static_cast<const int64_t*>(lens)[b]
                                                : static_cast<const int32_t*>(lens)[b];
  return v < 0 ? 0 : (v > p.seq ? p.seq : v);
}

}  // namespace amp::kernels
