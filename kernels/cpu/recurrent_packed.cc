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
  const bool rows = p.batch >= 2;
  gates_rows_.resize(rows ? p.directions : 0);
  gru_h_rows_.resize(rows ? gru_h_.size() : 0);
  for (int d = 0; d < p.directions; ++d) {
    // W_d is [G*H, I]: B = W_d^T has element (i, j) at j * I + i; likewise R_d^T with H.
    input_[d].prepare(p.input, gh, w + d * gh * p.input, 1, p.input, graph::FusedActivation{},
                      w_owner);
    const float* rd = r + d * gh * H;
    gates_[d].prepare(H, gates_of_h(p) * H, rd, 1, H, r_owner);
    if (!gru_h_.empty()) gru_h_[d].prepare(H, H, rd + kGateH * H * H, 1, H, r_owner);
    if (!rows) continue;
    gates_rows_[d].prepare(H, gates_of_h(p) * H, rd, 1, H, graph::FusedActivation{}, r_owner);
    if (!gru_h_rows_.empty())
      gru_h_rows_[d].prepare(H, H, rd + kGateH * H * H, 1, H, graph::FusedActivation{}, r_owner);
  }
}

int64_t PackedRecurrence::group_floats(const RecurrentPlan& p, int64_t rows) {
  // Per row: the chunk's input projection, the step's gates, a product's rows, and two
  // rows of H (GRU's r * h, and tanh(c) or the GRU h gate's recurrent term).
  return rows * ((kChunk + 2) * p.gates * p.hidden + 2 * p.hidden);
}

void PackedRecurrence::recurrent_product(const PackedGemv& v, const PackedGemm& m, const float* in,
                                         int64_t rows, float* out, int64_t ld, bool accumulate,
                                         float* tmp) {
  if (rows == 1) return v.run(in, out, accumulate);
  const int64_t n = v.n();
  m.run_serial(in, v.k(), rows, tmp, n);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < n; ++j)
      out[r * ld + j] = accumulate ? out[r * ld + j] + tmp[r * n + j] : tmp[r * n + j];
}

void PackedRecurrence::run(
    const RecurrentPlan& p, int d, int64_t b0, int64_t rows, int64_t len, const float* x,
    const float* bias, const float* peep, float* h, float* c, float* ws,
    const std::function<void(int64_t, int64_t, const float*)>& step_done) const {
  const int64_t H = p.hidden, gh = p.gates * H;
  const bool reverse = p.reverse_only || d == 1;
  const bool lstm = p.kind == graph::RecurrentAttrs::kLstm;
  const bool gru = p.kind == graph::RecurrentAttrs::kGru;
  const bool fast_gates = default_gates(p, d, peep);
  const RnnActivation* act = p.act[d];
  static const PackedGemm kNoGemm;
  const PackedGemm& gates_rows = rows > 1 ? gates_rows_[d] : kNoGemm;
  const PackedGemm& gru_h_rows = rows > 1 && gru ? gru_h_rows_[d] : kNoGemm;
  float* xw = ws;                        // [kChunk][rows][G*H]
  float* pre = xw + kChunk * rows * gh;  // [rows][G*H]
  float* tmp = pre + rows * gh;          // [rows][G*H], a product's rows
  float* rh = tmp + rows * gh;           // [rows][H], GRU's r * h
  float* aux = rh + rows * H;            // [rows][H]
  // Consecutive steps of one batch entry are x_step floats apart in X.
  const int64_t x_step = p.layout == 0 ? p.batch * p.input : p.input;
  auto bias_at = [&](int64_t k) { return bias ? bias[d * 2 * gh + k] : 0.0f; };
  for (int64_t s0 = 0; s0 < len; s0 += kChunk) {
    const int64_t steps = std::min(kChunk, len - s0);
    const int64_t t_lo = reverse ? len - s0 - steps : s0;  // the chunk's first step in time
    for (int64_t r = 0; r < rows; ++r)
      input_[d].run_serial(x + rnn_x_offset(p, t_lo, b0 + r), x_step, steps, xw + r * gh,
                           rows * gh);
    for (int64_t s = s0; s < s0 + steps; ++s) {
      const int64_t t = reverse ? len - 1 - s : s;
      const float* xw_t = xw + (t - t_lo) * rows * gh;
      // Both biases on every gate but GRU's h gate, whose recurrent bias goes with R h.
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t k = 0; k < gh; ++k)
          pre[r * gh + k] =
              xw_t[r * gh + k] + bias_at(k) + (gru && k >= 2 * H ? 0.0f : bias_at(gh + k));
      recurrent_product(gates_[d], gates_rows, h, rows, pre, gh, /*accumulate=*/true, tmp);
      for (int64_t r = 0; r < rows; ++r) {
        float *pr = pre + r * gh, *hr = h + r * H, *cr = c + r * H, *ar = aux + r * H;
        if (lstm && fast_gates) {
          // i, o, f are gates 0-2 (contiguous), c's candidate gate 3.
          sigmoid_f32(pr, pr, 3 * H);
          tanh_f32(pr + 3 * H, pr + 3 * H, H);
          const float *in = pr, *out = pr + H, *forget = pr + 2 * H, *cand = pr + 3 * H;
          for (int64_t j = 0; j < H; ++j) cr[j] = forget[j] * cr[j] + in[j] * cand[j];
          tanh_f32(cr, ar, H);
          for (int64_t j = 0; j < H; ++j) hr[j] = out[j] * ar[j];
        } else if (lstm) {
          // lstm_unit reads the gates and c, not h: h is written in place.
          for (int64_t j = 0; j < H; ++j) {
            const float pi = peep ? peep[d * 3 * H + j] : 0.0f;
            const float po = peep ? peep[d * 3 * H + H + j] : 0.0f;
            const float pf = peep ? peep[d * 3 * H + 2 * H + j] : 0.0f;
            hr[j] = lstm_unit(p, act, pr, j, pi, po, pf, &cr[j]);
          }
        } else if (gru && fast_gates) {
          sigmoid_f32(pr, pr, 2 * H);  // z and r
        } else if (gru) {
          for (int64_t j = 0; j < 2 * H; ++j) pr[j] = rnn_activate(act[0], rnn_clip(pr[j], p.clip));
        } else if (fast_gates) {
          tanh_f32(pr, hr, H);
        } else {
          for (int64_t j = 0; j < H; ++j) hr[j] = rnn_activate(act[0], rnn_clip(pr[j], p.clip));
        }
      }
      if (gru) {
        // aux = the h gate's recurrent term: r * (R_h h + Rb_h), or R_h (r * h) + Rb_h.
        const float* br_h = bias ? bias + d * 2 * gh + gh + kGateH * H : nullptr;
        if (p.linear_before_reset) {
          recurrent_product(gru_h_[d], gru_h_rows, h, rows, aux, H, false, tmp);
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t j = 0; j < H; ++j)
              aux[r * H + j] =
                  pre[r * gh + kGateR * H + j] * (aux[r * H + j] + (br_h ? br_h[j] : 0.0f));
        } else {
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t j = 0; j < H; ++j)
              rh[r * H + j] = pre[r * gh + kGateR * H + j] * h[r * H + j];
          recurrent_product(gru_h_[d], gru_h_rows, rh, rows, aux, H, false, tmp);
          if (br_h)
            for (int64_t r = 0; r < rows; ++r)
              for (int64_t j = 0; j < H; ++j) aux[r * H + j] += br_h[j];
        }
        for (int64_t r = 0; r < rows; ++r) {
          const float* z = pre + r * gh + kGateZ * H;
          float *hr = h + r * H, *ar = aux + r * H;
          if (fast_gates) {
            float* cand = pre + r * gh + kGateH * H;
            for (int64_t j = 0; j < H; ++j) cand[j] += ar[j];
            tanh_f32(cand, cand, H);
            for (int64_t j = 0; j < H; ++j) hr[j] = (1.0f - z[j]) * cand[j] + z[j] * hr[j];
          } else {  // gru_unit reads unit j's previous h only
            for (int64_t j = 0; j < H; ++j)
              hr[j] = gru_unit(p, act, pre + r * gh, j, z[j], ar[j], hr[j]);
          }
        }
      }
      for (int64_t r = 0; r < rows; ++r) step_done(t, r, h + r * H);
    }
  }
}

void PackedRecurrence::held_constants(std::vector<HeldConstant>& out) const {
  for (const PackedGemm& g : input_) out.push_back(g.held_constant());
  for (const PackedGemv& g : gates_) out.push_back(g.held_constant());
  for (const PackedGemv& g : gru_h_) out.push_back(g.held_constant());
  for (const PackedGemm& g : gates_rows_) out.push_back(g.held_constant());
  for (const PackedGemm& g : gru_h_rows_) out.push_back(g.held_constant());
}

}  // namespace amp::kernels::cpu
