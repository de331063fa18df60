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

std::pair<int64_t, int64_t> PackedRecurrence::units_of(const RecurrentPlan& p, int index,
                                                       int count) {
  const int64_t blocks = unit_blocks(p);
  return {std::min(p.hidden, blocks * index / count * kUnitBlock),
          std::min(p.hidden, blocks * (index + 1) / count * kUnitBlock)};
}

void PackedRecurrence::prepare(const RecurrentPlan& p, const float* w,
                               const std::shared_ptr<const void>& w_owner, const float* r,
                               const std::shared_ptr<const void>& r_owner) {
  const int64_t H = p.hidden;
  gates_ = p.gates;
  input_.resize(p.directions * p.gates);
  rec_.resize(p.directions * p.gates);
  rec_rows_.resize(p.batch >= 2 ? p.directions * p.gates : 0);
  for (int d = 0; d < p.directions; ++d)
    for (int g = 0; g < p.gates; ++g) {
      // W_dg is [H, I]: B = W_dg^T has element (i, j) at j * I + i; likewise R_dg^T with H.
      const int i = d * p.gates + g;
      input_[i].prepare(p.input, H, w + i * H * p.input, 1, p.input, graph::FusedActivation{},
                        w_owner);
      rec_[i].prepare(H, H, r + i * H * H, 1, H, r_owner);
      if (!rec_rows_.empty())
        rec_rows_[i].prepare(H, H, r + i * H * H, 1, H, graph::FusedActivation{}, r_owner);
    }
}

int64_t PackedRecurrence::group_floats(const RecurrentPlan& p, int64_t rows) {
  // Per row: the chunk's input projection and three rows of H (the next h, GRU's r * h, and
  // tanh(c) or the GRU h gate's recurrent term); and the biases (G*H, counted per row so
  // that a group of rows needs rows times what one needs).
  return rows * ((kChunk + 1) * p.gates * p.hidden + 3 * p.hidden);
}

void PackedRecurrence::recurrent_product(int d, int g, const float* in, int64_t rows, float* out,
                                         int64_t ld, bool accumulate, int64_t j0,
                                         int64_t j1) const {
  const int i = d * gates_ + g;
  if (rows == 1) return rec_[i].run(in, out, accumulate, j0, j1);
  rec_rows_[i].run_serial(in, rec_[i].k(), rows, out, ld, j0, j1, nullptr, accumulate);
}

void PackedRecurrence::run(
    const RecurrentPlan& p, int d, int64_t b0, int64_t rows, int64_t len, const float* x,
    const float* bias, const float* peep, float* h, float* c, float* ws, const Team& team,
    const std::function<void(int64_t, int64_t, const float*, int64_t, int64_t)>& step_done) const {
  const int64_t H = p.hidden, gh = p.gates * H;
  const bool reverse = p.reverse_only || d == 1;
  const bool lstm = p.kind == graph::RecurrentAttrs::kLstm;
  const bool gru = p.kind == graph::RecurrentAttrs::kGru;
  const bool fast_gates = default_gates(p, d, peep);
  const RnnActivation* act = p.act[d];
  const auto [u0, u1] = units_of(p, team.index, team.count);
  const int64_t width = u1 - u0;
  auto meet = [&] {
    if (team.count > 1) team.barrier->arrive_and_wait();
  };
  float* xw = ws;                           // [kChunk][rows][G*H]
  float* biases = xw + kChunk * rows * gh;  // [G*H]
  float* next = biases + rows * gh;         // [rows][H], the step's h
  float* rh = next + rows * H;              // [rows][H], GRU's r * h
  float* aux = rh + rows * H;               // [rows][H]
  // h_{t-1} is read whole by every member's product while each writes its units of h_t:
  // the two alternate between h and `next`.
  float* h_prev = h;
  float* h_new = next;
  // Consecutive steps of one batch entry are x_step floats apart in X.
  const int64_t x_step = p.layout == 0 ? p.batch * p.input : p.input;
  // Both biases on every gate but GRU's h gate, whose recurrent bias goes with R h: they
  // start the input projection, onto which each step's recurrent product accumulates.
  const float* bias_d = bias ? bias + d * 2 * gh : nullptr;
  if (bias_d)
    for (int g = 0; g < p.gates; ++g)
      for (int64_t k = g * H + u0; k < g * H + u1; ++k)
        biases[k] = bias_d[k] + (gru && g == kGateH ? 0.0f : bias_d[gh + k]);
  meet();  // every member's units of the initial h are in place
  for (int64_t s0 = 0; s0 < len; s0 += kChunk) {
    const int64_t steps = std::min(kChunk, len - s0);
    const int64_t t_lo = reverse ? len - s0 - steps : s0;  // the chunk's first step in time
    for (int64_t r = 0; r < rows; ++r)
      for (int g = 0; g < p.gates; ++g)
        input_[d * p.gates + g].run_serial(x + rnn_x_offset(p, t_lo, b0 + r), x_step, steps,
                                           xw + r * gh + g * H, rows * gh, u0, u1,
                                           bias_d ? biases + g * H : nullptr, false);
    for (int64_t s = s0; s < s0 + steps; ++s) {
      const int64_t t = reverse ? len - 1 - s : s;
      // The step's gates [rows][G*H]: its input projection, onto which the recurrent
      // product accumulates, activated in place.
      float* pre = xw + (t - t_lo) * rows * gh;
      for (int g = 0; g < gates_of_h(p); ++g)
        recurrent_product(d, g, h_prev, rows, pre + g * H, gh, /*accumulate=*/true, u0, u1);
      for (int64_t r = 0; r < rows; ++r) {
        float *pr = pre + r * gh, *hn = h_new + r * H, *cr = c + r * H, *ar = aux + r * H;
        if (lstm && fast_gates) {
          // i, o, f are gates 0-2, c's candidate gate 3.
          for (int g = 0; g < 3; ++g) sigmoid_f32(pr + g * H + u0, pr + g * H + u0, width);
          tanh_f32(pr + 3 * H + u0, pr + 3 * H + u0, width);
          const float *in = pr, *out = pr + H, *forget = pr + 2 * H, *cand = pr + 3 * H;
          for (int64_t j = u0; j < u1; ++j) cr[j] = forget[j] * cr[j] + in[j] * cand[j];
          tanh_f32(cr + u0, ar + u0, width);
          for (int64_t j = u0; j < u1; ++j) hn[j] = out[j] * ar[j];
        } else if (lstm) {
          for (int64_t j = u0; j < u1; ++j) {
            const float pi = peep ? peep[d * 3 * H + j] : 0.0f;
            const float po = peep ? peep[d * 3 * H + H + j] : 0.0f;
            const float pf = peep ? peep[d * 3 * H + 2 * H + j] : 0.0f;
            hn[j] = lstm_unit(p, act, pr, j, pi, po, pf, &cr[j]);
          }
        } else if (gru && fast_gates) {
          for (int g = 0; g < 2; ++g) sigmoid_f32(pr + g * H + u0, pr + g * H + u0, width);
        } else if (gru) {
          for (int g = 0; g < 2; ++g)
            for (int64_t j = g * H + u0; j < g * H + u1; ++j)
              pr[j] = rnn_activate(act[0], rnn_clip(pr[j], p.clip));
        } else if (fast_gates) {
          tanh_f32(pr + u0, hn + u0, width);
        } else {
          for (int64_t j = u0; j < u1; ++j) hn[j] = rnn_activate(act[0], rnn_clip(pr[j], p.clip));
        }
      }
      if (gru) {
        // aux = the h gate's recurrent term: r * (R_h h + Rb_h), or R_h (r * h) + Rb_h.
        const float* br_h = bias ? bias + d * 2 * gh + gh + kGateH * H : nullptr;
        if (p.linear_before_reset) {
          recurrent_product(d, kGateH, h_prev, rows, aux, H, false, u0, u1);
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t j = u0; j < u1; ++j)
              aux[r * H + j] =
                  pre[r * gh + kGateR * H + j] * (aux[r * H + j] + (br_h ? br_h[j] : 0.0f));
        } else {
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t j = u0; j < u1; ++j)
              rh[r * H + j] = pre[r * gh + kGateR * H + j] * h_prev[r * H + j];
          meet();  // R_h (r * h) reads every member's units of r * h
          recurrent_product(d, kGateH, rh, rows, aux, H, false, u0, u1);
          if (br_h)
            for (int64_t r = 0; r < rows; ++r)
              for (int64_t j = u0; j < u1; ++j) aux[r * H + j] += br_h[j];
        }
        for (int64_t r = 0; r < rows; ++r) {
          const float* z = pre + r * gh + kGateZ * H;
          const float* hp = h_prev + r * H;
          float *hn = h_new + r * H, *ar = aux + r * H;
          if (fast_gates) {
            float* cand = pre + r * gh + kGateH * H;
            for (int64_t j = u0; j < u1; ++j) cand[j] += ar[j];
            tanh_f32(cand + u0, cand + u0, width);
            for (int64_t j = u0; j < u1; ++j) hn[j] = (1.0f - z[j]) * cand[j] + z[j] * hp[j];
          } else {
            for (int64_t j = u0; j < u1; ++j)
              hn[j] = gru_unit(p, act, pre + r * gh, j, z[j], ar[j], hp[j]);
          }
        }
      }
      for (int64_t r = 0; r < rows; ++r) step_done(t, r, h_new + r * H, u0, u1);
      std::swap(h_prev, h_new);
      meet();  // the next step's product reads every member's units of h_t
    }
  }
  // The last step's h is in h_prev: hand it back in h.
  if (h_prev != h)
    for (int64_t r = 0; r < rows; ++r)
      std::copy(h_prev + r * H + u0, h_prev + r * H + u1, h + r * H + u0);
}

void PackedRecurrence::held_constants(std::vector<HeldConstant>& out) const {
  for (const PackedGemm& g : input_) out.push_back(g.held_constant());
  for (const PackedGemv& g : rec_) out.push_back(g.held_constant());
  for (const PackedGemm& g : rec_rows_) out.push_back(g.held_constant());
}

}  // namespace amp::kernels::cpu
