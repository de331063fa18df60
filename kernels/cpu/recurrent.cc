// LSTM, GRU and RNN on the CPU (kernels/common/recurrent_plan.h has the plan, the layouts and
// the numerics): the (direction, batch entry) sequences run in parallel, each walking its
// steps in order with the gates, the cell and the hidden state in the compute type (fp32; f64
// for f64).
//   - fp32 compute with constant W and R on a CPU with AVX2 and FMA: packed products, the
//     input projection a chunk of steps at a time and the gates activated by vectorized
//     sigmoid / tanh (recurrent_packed.h; a 2-layer LSTM of 256 units over 200 steps
//     23.3 -> 6.0 ms, ONNX Runtime 7.3, as AVX2-only, one thread).
//   - otherwise direct loops: every gate unit's two dot products per step, weights read in
//     their storage type and widened as they are used.
#include <algorithm>
#include <cstring>
#include <deque>
#include <optional>
#include <type_traits>
#include <vector>

#include "kernels/common/checked_kernel.h"
#include "kernels/common/recurrent_plan.h"
#include "kernels/common/reduction_family.h"
#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/recurrent_packed.h"
#include "kernels/cpu/recurrent_schedule.h"
#include "kernels/cpu/reduce_util.h"

namespace amp::kernels::cpu {
namespace {

template <typename T>
class RecurrentKernel : public CheckedKernel<T, RecurrentPlan, check_recurrent_io> {
  using C = compute_t<T>;

 public:
  // Per (direction, batch entry): h, c, the next h, r * h (GRU) and the gates'
  // pre-activations, so the sequences run in parallel.
  size_t workspace_bytes() const override {
    const RecurrentPlan& p = this->shape_;
    return static_cast<size_t>(p.directions * p.batch * item_floats() + x_wide_floats() +
                               wide_params_floats()) *
           sizeof(C);
  }

  void held_constants(std::vector<HeldConstant>& out) const override {
    if (packed_) packed_->held_constants(out);
  }
  // W and R (inputs 1 and 2): the packed path reads only their packed panels.
  std::vector<size_t> replaced_constant_inputs() const override {
    if (packed_) return {1, 2};
    return {};
  }

  Status run(const KernelArgs& a) const override {
    const RecurrentPlan& p = this->shape_;
    if (p.has_y) {
      // Steps past a sequence's length stay zero; the zero bit pattern is 0 in every float type.
      const int64_t n = p.seq * p.directions * p.batch * p.hidden;
      std::memset(a.outputs[0], 0, static_cast<size_t>(n) * sizeof(T));
    }
    C* ws = static_cast<C*>(a.workspace);
    // f16/bf16 X is widened once per run, not once per gate row and step.
    C* x_wide = ws + p.directions * p.batch * item_floats();
    if (x_wide_floats() > 0) widen(a.input<T>(0), x_wide, x_wide_floats());
    if constexpr (std::is_same_v<C, float>) {
      if (packed_) {
        run_packed(a, ws, x_wide_floats() > 0 ? x_wide : nullptr, x_wide + x_wide_floats());
        return Status::ok();
      }
    }
    parallel_for(
        p.directions * p.batch, a.num_threads,
        [&](int64_t begin, int64_t end) {
          for (int64_t item = begin; item < end; ++item) {
            const int d = static_cast<int>(item / p.batch);
            const int64_t b = item % p.batch;
            C* item_ws = ws + item * item_floats();
            if (x_wide_floats() > 0)
              run_sequence(a, d, b, item_ws, static_cast<const C*>(x_wide));
            else
              run_sequence(a, d, b, item_ws, a.input<T>(0));
          }
        },
        /*grain=*/1);
    return Status::ok();
  }

 private:
  int64_t item_floats() const {
    const RecurrentPlan& p = this->shape_;
    // h, c and the packed path's own, sized for a group of every entry (what one entry
    // needs times the batch).
    if (packed_) return 2 * p.hidden + PackedRecurrence::group_floats(p, 1);
    return (4 + p.gates) * p.hidden;
  }
  // f16/bf16 B and P widened once per run for the packed path.
  int64_t wide_params_floats() const {
    const RecurrentPlan& p = this->shape_;
    if (!packed_ || std::is_same_v<T, C>) return 0;
    return p.directions * (2 * p.gates * p.hidden + 3 * p.hidden);
  }
  // n values from the storage type to the compute type: f16/bf16 by the vectorized
  // converters (bit-equal to to_compute), anything else a value at a time.
  static void widen(const T* src, C* dst, int64_t n) {
    if constexpr (kBulkCast<T, C>)
      bulk_cast(src, dst, static_cast<size_t>(n));
    else
      for (int64_t k = 0; k < n; ++k) dst[k] = to_compute(src[k]);
  }
  int64_t x_wide_floats() const {
    const RecurrentPlan& p = this->shape_;
    return std::is_same_v<T, C> ? 0 : p.seq * p.batch * p.input;
  }

  // f16/bf16 weights given as constants are widened once here: the steps then read fp32
  // weights instead of converting every element on every step (this CPU has no f16 math).
  Status prepare_params(const KernelConfig& cfg) override {
    if constexpr (!std::is_same_v<T, C>) {
      for (size_t i : {1, 2}) {
        const TensorDesc& t = cfg.inputs[i];
        if (t.constant_data == nullptr) continue;
        std::vector<C>& wide = i == 1 ? w_wide_ : r_wide_;
        wide.resize(static_cast<size_t>(t.numel()));
        widen(static_cast<const T*>(t.constant_data), wide.data(), t.numel());
      }
    }
    if constexpr (std::is_same_v<C, float>) {
      const TensorDesc &w = cfg.inputs[1], &r = cfg.inputs[2];
      if (w.constant_data && r.constant_data && PackedRecurrence::suits_this_cpu()) {
        packed_.emplace();
        if constexpr (std::is_same_v<T, float>) {
          packed_->prepare(this->shape_, static_cast<const float*>(w.constant_data),
                           w.constant_owner, static_cast<const float*>(r.constant_data),
                           r.constant_owner);
        } else {  // widened above, owned by this kernel
          packed_->prepare(this->shape_, w_wide_.data(), nullptr, r_wide_.data(), nullptr);
        }
      }
    }
    return Status::ok();
  }

  // The packed path (recurrent_packed.h) over every (direction, batch entry) sequence. x_wide:
  // X widened (f16/bf16) or null; params: room for B and P widened.
  void run_packed(const KernelArgs& a, C* ws, const C* x_wide, C* params) const {
    const RecurrentPlan& p = this->shape_;
    const float* x = x_wide ? x_wide : reinterpret_cast<const float*>(a.input<T>(0));
    const float* bias = nullptr;
    const float* peep = nullptr;
    if constexpr (std::is_same_v<T, float>) {
      if (p.has_bias) bias = a.input<float>(3);
      if (p.has_p) peep = a.input<float>(7);
    } else {
      const int64_t nb = p.directions * 2 * p.gates * p.hidden, np = p.directions * 3 * p.hidden;
      if (p.has_bias) {
        widen(a.input<T>(3), params, nb);
        bias = params;
      }
      if (p.has_p) {
        widen(a.input<T>(7), params + nb, np);
        peep = params + nb;
      }
    }
    // Which entries step together, with how many threads, how many groups at once
    // (recurrent_schedule.h).
    const RecurrentSchedule s = schedule_recurrence(
        {.directions = p.directions,
         .batch = p.batch,
         .lockstep = p.batch >= 2 && equal_lengths(a),
         .unit_blocks = PackedRecurrence::unit_blocks(p),
         .r_bytes = p.gates * p.hidden * p.hidden * static_cast<int64_t>(sizeof(float))},
        a.num_threads, cpu_l2_cache_bytes());
    auto run_group = [&](int64_t g, const PackedRecurrence::Team& team) {
      const int d = static_cast<int>(s.direction(g));
      // Not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
      const std::pair<int64_t, int64_t> group = s.entries(g, p.batch);
      const int64_t b0 = group.first, rows = group.second - group.first;
      const auto [j0, j1] = PackedRecurrence::units_of(p, team.index, team.count);
      // A group's h, c and workspace take what its rows would take one an entry.
      float* h = ws + (d * p.batch + b0) * item_floats();  // [rows][H]
      float* c = h + rows * p.hidden;                      // [rows][H]
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t so = rnn_state_offset(p, d, b0 + r);
        for (int64_t j = j0; j < j1; ++j) {
          h[r * p.hidden + j] = p.has_h0 ? to_compute(a.input<T>(5)[so + j]) : 0.0f;
          c[r * p.hidden + j] = p.has_c0 ? to_compute(a.input<T>(6)[so + j]) : 0.0f;
        }
      }
      const int64_t len = rnn_length(p, p.has_lens ? a.inputs[4] : nullptr, b0);
      packed_->run(p, d, b0, rows, len, x, bias, peep, h, c, c + rows * p.hidden, team,
                   [&](int64_t t, int64_t r, const float* hs, int64_t u0, int64_t u1) {
                     if (!p.has_y) return;
                     T* y = a.output<T>(0) + rnn_y_offset(p, t, d, b0 + r);
                     for (int64_t j = u0; j < u1; ++j) y[j] = from_compute<T>(hs[j]);
                   });
      for (int64_t r = 0; r < rows; ++r)
        write_final_state(a, rnn_state_offset(p, d, b0 + r), h + r * p.hidden, c + r * p.hidden, j0,
                          j1);
    };
    if (s.team <= 1) {
      parallel_for(
          s.groups, a.num_threads,
          [&](int64_t begin, int64_t end) {
            for (int64_t g = begin; g < end; ++g) run_group(g, {});
          },
          /*grain=*/1);
      return;
    }
    for (int64_t first = 0; first < s.groups; first += s.concurrent) {
      const int64_t wave = std::min(s.concurrent, s.groups - first);
      std::deque<SpinBarrier> barriers;
      for (int64_t g = 0; g < wave; ++g) barriers.emplace_back(static_cast<int>(s.team));
#pragma omp parallel num_threads(static_cast <int>(wave * s.team))
      {
        const int got = omp_get_num_threads(), member = omp_get_thread_num();
        if (got == wave * s.team) {
          const int64_t g = member / s.team;
          run_group(first + g,
                    {static_cast<int>(member % s.team), static_cast<int>(s.team), &barriers[g]});
        } else {
          // Fewer threads than asked (a nested region, a thread limit): a team would wait at
          // its barrier for members that never come, so each group runs on one thread.
          for (int64_t g = member; g < wave; g += got) run_group(first + g, {});
        }
      }
    }
  }

  // Whether every batch entry runs the same number of steps.
  bool equal_lengths(const KernelArgs& a) const {
    const RecurrentPlan& p = this->shape_;
    if (!p.has_lens) return true;
    for (int64_t b = 1; b < p.batch; ++b)
      if (rnn_length(p, a.inputs[4], b) != rnn_length(p, a.inputs[4], 0)) return false;
    return true;
  }

  // Y_h and Y_c's units [j0, j1) from the state after the last step.
  void write_final_state(const KernelArgs& a, int64_t so, const C* h, const C* c, int64_t j0,
                         int64_t j1) const {
    const RecurrentPlan& p = this->shape_;
    if (p.has_yh)
      for (int64_t j = j0; j < j1; ++j) a.output<T>(1)[so + j] = from_compute<T>(h[j]);
    if (p.has_yc)
      for (int64_t j = j0; j < j1; ++j) a.output<T>(2)[so + j] = from_compute<T>(c[j]);
  }

  // A weight row times x (storage or compute type), accumulated in the compute type over the
  // shared tree_reduce (eight lanes: GCC vectorizes it).
  template <typename W, typename X>
  static C dot(const W* w, const X* x, int64_t n) {
    return tree_reduce<C>(
        0, n, C(0), [](C u, C v) { return u + v; },
        [w, x](int64_t k) { return to_compute(w[k]) * static_cast<C>(to_compute(x[k])); });
  }

  template <typename XS>
  void run_sequence(const KernelArgs& a, int d, int64_t b, C* ws, const XS* x) const {
    // The weights as the steps read them: widened at prepare() when they were constants.
    if (!w_wide_.empty() && !r_wide_.empty())
      return run_sequence_with(a, d, b, ws, x, w_wide_.data(), r_wide_.data());
    run_sequence_with(a, d, b, ws, x, a.input<T>(1), a.input<T>(2));
  }

  template <typename XS, typename W>
  void run_sequence_with(const KernelArgs& a, int d, int64_t b, C* ws, const XS* x, const W* w,
                         const W* r) const {
    const RecurrentPlan& p = this->shape_;
    const int64_t H = p.hidden;
    C* h = ws;
    C* c = h + H;
    C* h_next = c + H;
    C* rh = h_next + H;
    C* pre = rh + H;  // [gates][H]
    const T* bias = p.has_bias ? a.input<T>(3) : nullptr;
    const T* peep = p.has_p ? a.input<T>(7) : nullptr;
    const int64_t so = rnn_state_offset(p, d, b);
    for (int64_t j = 0; j < H; ++j) {
      h[j] = p.has_h0 ? to_compute(a.input<T>(5)[so + j]) : C(0);
      c[j] = p.has_c0 ? to_compute(a.input<T>(6)[so + j]) : C(0);
    }
    const graph::RnnActivation* act = p.act[d];
    const bool reverse = p.reverse_only || d == 1;
    const int64_t len = rnn_length(p, p.has_lens ? a.inputs[4] : nullptr, b);
    auto bw = [&](int g, int64_t j) { return bias ? to_compute(bias[rnn_wb(p, d, g, j)]) : C(0); };
    auto br = [&](int g, int64_t j) { return bias ? to_compute(bias[rnn_rb(p, d, g, j)]) : C(0); };
    for (int64_t s = 0; s < len; ++s) {
      const int64_t t = reverse ? len - 1 - s : s;
      const XS* xt = x + rnn_x_offset(p, t, b);
      const bool gru_h_later = p.kind == graph::RecurrentAttrs::kGru;
      for (int g = 0; g < p.gates; ++g) {
        for (int64_t j = 0; j < H; ++j) {
          C v = dot(w + rnn_w_row(p, d, g, j), xt, p.input) + bw(g, j);
          // GRU's h gate adds its recurrent term below (it depends on r).
          if (!(gru_h_later && g == kGateH)) v += dot(r + rnn_r_row(p, d, g, j), h, H) + br(g, j);
          pre[g * H + j] = v;
        }
      }
      if (p.kind == graph::RecurrentAttrs::kRnn) {
        for (int64_t j = 0; j < H; ++j) h_next[j] = rnn_activate(act[0], rnn_clip(pre[j], p.clip));
      } else if (p.kind == graph::RecurrentAttrs::kLstm) {
        for (int64_t j = 0; j < H; ++j) {
          const C pi = peep ? to_compute(peep[d * 3 * H + j]) : C(0);
          const C po = peep ? to_compute(peep[d * 3 * H + H + j]) : C(0);
          const C pf = peep ? to_compute(peep[d * 3 * H + 2 * H + j]) : C(0);
          h_next[j] = lstm_unit(p, act, pre, j, pi, po, pf, &c[j]);
        }
      } else {
        C* z = pre + kGateZ * H;
        C* rg = pre + kGateR * H;
        for (int64_t j = 0; j < H; ++j) {
          z[j] = rnn_activate(act[0], rnn_clip(z[j], p.clip));
          rg[j] = rnn_activate(act[0], rnn_clip(rg[j], p.clip));
          rh[j] = rg[j] * h[j];
        }
        for (int64_t j = 0; j < H; ++j) {
          const W* rrow = r + rnn_r_row(p, d, kGateH, j);
          const C rec = p.linear_before_reset ? rg[j] * (dot(rrow, h, H) + br(kGateH, j))
                                              : dot(rrow, rh, H) + br(kGateH, j);
          h_next[j] = gru_unit(p, act, pre, j, z[j], rec, h[j]);
        }
      }
      std::copy(h_next, h_next + H, h);
      if (p.has_y) {
        T* y = a.output<T>(0) + rnn_y_offset(p, t, d, b);
        for (int64_t j = 0; j < H; ++j) y[j] = from_compute<T>(h[j]);
      }
    }
    write_final_state(a, so, h, c, 0, p.hidden);
  }

  std::vector<C> w_wide_, r_wide_;          // W and R widened at prepare() (f16/bf16 constants)
  std::optional<PackedRecurrence> packed_;  // the packed path, where it applies
};

}  // namespace

void register_recurrent_kernels(KernelRegistry& r) {
  for (graph::OpType op : {graph::OpType::kLSTM, graph::OpType::kGRU, graph::OpType::kRNN})
    add_typed_kernels<RecurrentKernel>(r, op, Backend::kCpu, reduction::FloatTypes{});
}

}  // namespace amp::kernels::cpu
