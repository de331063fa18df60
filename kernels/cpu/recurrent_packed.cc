#include "kernels/cpu/recurrent_packed.h"

#include <algorithm>

#include "kernels/cpu/gemm_strip_avx2.h"
#include "kernels/cpu/vector_exp.h"

namespace amp::kernels::cpu {
namespace {

using graph::RnnActivation;

bool is(const RnnActivation& a, int kind) {
  return a.kind == kind;
}

// The configuration whose gates take the vectorized activations (header).
bool default_gates(const RecurrentPlan& p, int d, const float* peep) {
  const RnnActivation* act = p.act[d];
  if (p.clip > 0.0f || peep != nullptr || p.input_forget) return false;
  switch (p.kind) {
    case graph::RecurrentAttrs::kLstm:
      return is(act[0], RnnActivation::kSigmoid) && is(act[1], RnnActivation::kTanh) &&
             is(act[2], RnnActivation::kTanh);
    case graph::RecurrentAttrs::kGru:
      return is(act[0], RnnActivation::kSigmoid) && is(act[1], RnnActivation::kTanh);
    default:
      return is(act[0], RnnActivation::kTanh);
  }
}

// Gates whose recurrent product takes h_{t-1}: all but GRU's h gate.
int gates_of_h(const RecurrentPlan& p) {
  return p.kind == graph::RecurrentAttrs::kGru ? 2 : p.gates;
}

}  // namespace

bool PackedRecurrence::suits_this_cpu() {
  return cpu_has_avx2_fma();
}

void PackedRecurrence::prepare(const RecurrentPlan& p, const float* w,
                               const std::shared_ptr<const void>& w_owner, const float* r,
                               const std::shared_ptr<const void>& r_owner) {
  const int64_t gh = p.gates * p.hidden, H = p.hidden;
  input_.resize(p.directions);
  gates_.resize(p.directions);
  gru_h_.resize(p.kind == graph::RecurrentAttrs::kGru ? p.directions : 0);
  for (int d = 0; d < p.directions; ++d) {
    // W_d is [G*H, I]: B = W_d^T has element (i, j) at j * I + i; likewise R_d^T with H.
    input_[d].prepare(p.input, gh, w + d * gh * p.input, 1, p.input, graph::FusedActivation{},
                      w_owner);
    const float* rd = r + d * gh * H;
    gates_[d].prepare(H, gates_of_h(p) * H, rd, 1, H, r_owner);
    if (!gru_h_.empty()) gru_h_[d].prepare(H, H, rd + kGateH * H * H, 1, H, r_owner);
  }
}

int64_t PackedRecurrence::item_floats(const RecurrentPlan& p) {
  // The chunk's input projection, the step's gates, and two rows of H (the next h, and
  // tanh(c) or the GRU h gate's recurrent term).
  return (kChunk + 1) * p.gates * p.hidden + 2 * p.hidden;
}

void PackedRecurrence::run(const RecurrentPlan& p, int d, int64_t b, int64_t len, const float* x,
                           const float* bias, const float* peep, float* h, float* c, float* ws,
                           const std::function<void(int64_t, const float*)>& step_done) const {
  const int64_t H = p.hidden, gh = p.gates * H;
  const bool reverse = p.reverse_only || d == 1;
  const bool lstm = p.kind == graph::RecurrentAttrs::kLstm;
  const bool gru = p.kind == graph::RecurrentAttrs::kGru;
  const bool fast_gates = default_gates(p, d, peep);
  const RnnActivation* act = p.act[d];
  float* xw = ws;                 // [kChunk][G*H]
  float* pre = xw + kChunk * gh;  // [G*H]
  float* next = pre + gh;         // [H]
  float* aux = next + H;          // [H]
  // Consecutive steps of entry b are x_step floats apart in X.
  const int64_t x_step = p.layout == 0 ? p.batch * p.input : p.input;
  auto bias_at = [&](int64_t k) { return bias ? bias[d * 2 * gh + k] : 0.0f; };
  for (int64_t s0 = 0; s0 < len; s0 += kChunk) {
    const int64_t steps = std::min(kChunk, len - s0);
    const int64_t t_lo = reverse ? len - s0 - steps : s0;  // the chunk's first step in time
    input_[d].run_serial(x + rnn_x_offset(p, t_lo, b), x_step, steps, xw, gh);
    for (int64_t s = s0; s < s0 + steps; ++s) {
      const int64_t t = reverse ? len - 1 - s : s;
      const float* xw_t = xw + (t - t_lo) * gh;
      // Both biases on every gate but GRU's h gate, whose recurrent bias goes with R h.
      for (int64_t k = 0; k < gh; ++k)
        pre[k] = xw_t[k] + bias_at(k) + (gru && k >= 2 * H ? 0.0f : bias_at(gh + k));
      gates_[d].run(h, pre, /*accumulate=*/true);
      if (lstm && fast_gates) {
        // i, o, f are gates 0-2 (contiguous), c's candidate gate 3.
        sigmoid_f32(pre, pre, 3 * H);
        tanh_f32(pre + 3 * H, pre + 3 * H, H);
        const float *in = pre, *out = pre + H, *forget = pre + 2 * H, *cand = pre + 3 * H;
        for (int64_t j = 0; j < H; ++j) c[j] = forget[j] * c[j] + in[j] * cand[j];
        tanh_f32(c, aux, H);
        for (int64_t j = 0; j < H; ++j) h[j] = out[j] * aux[j];
      } else if (lstm) {
        for (int64_t j = 0; j < H; ++j) {
          const float pi = peep ? peep[d * 3 * H + j] : 0.0f;
          const float po = peep ? peep[d * 3 * H + H + j] : 0.0f;
          const float pf = peep ? peep[d * 3 * H + 2 * H + j] : 0.0f;
          next[j] = lstm_unit(p, act, pre, j, pi, po, pf, &c[j]);
        }
        std::copy(next, next + H, h);
      } else if (gru) {
        float* z = pre + kGateZ * H;
        float* rg = pre + kGateR * H;
        if (fast_gates) {
          sigmoid_f32(pre, pre, 2 * H);
        } else {
          for (int64_t j = 0; j < 2 * H; ++j)
            pre[j] = rnn_activate(act[0], rnn_clip(pre[j], p.clip));
        }
        // aux = the h gate's recurrent term: r * (R_h h + Rb_h), or R_h (r * h) + Rb_h.
        if (p.linear_before_reset) {
          gru_h_[d].run(h, aux, /*accumulate=*/false);
          for (int64_t j = 0; j < H; ++j) aux[j] = rg[j] * (aux[j] + bias_at(gh + 2 * H + j));
        } else {
          for (int64_t j = 0; j < H; ++j) next[j] = rg[j] * h[j];
          gru_h_[d].run(next, aux, /*accumulate=*/false);
          for (int64_t j = 0; j < H; ++j) aux[j] += bias_at(gh + 2 * H + j);
        }
        if (fast_gates) {
          float* cand = pre + kGateH * H;
          for (int64_t j = 0; j < H; ++j) cand[j] += aux[j];
          tanh_f32(cand, cand, H);
          for (int64_t j = 0; j < H; ++j) h[j] = (1.0f - z[j]) * cand[j] + z[j] * h[j];
        } else {
          for (int64_t j = 0; j < H; ++j) next[j] = gru_unit(p, act, pre, j, z[j], aux[j], h[j]);
          std::copy(next, next + H, h);
        }
      } else if (fast_gates) {
        tanh_f32(pre, h, H);
      } else {
        for (int64_t j = 0; j < H; ++j) h[j] = rnn_activate(act[0], rnn_clip(pre[j], p.clip));
      }
      step_done(t, h);
    }
  }
}

void PackedRecurrence::held_constants(std::vector<HeldConstant>& out) const {
  for (const PackedGemm& g : input_) out.push_back(g.held_constant());
  for (const PackedGemv& g : gates_) out.push_back(g.held_constant());
  for (const PackedGemv& g : gru_h_) out.push_back(g.held_constant());
}

}  // namespace amp::kernels::cpu
