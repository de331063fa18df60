// LSTM, GRU and RNN with constant W and R on CPUs with AVX2 and FMA, fp32 compute: the path
// kernels/cpu/recurrent.cc takes there (kernels/common/recurrent_plan.h has the numerics).
//
// Why: the direct loops computed every gate unit as two dot products per step (W x_t and
// R h), each a separate pass with its own reduction. A 2-layer LSTM of 256 units over 200
// steps took 23.3 ms where ONNX Runtime took 7.3; this path takes 6.0, a GRU of that size
// 15.4 -> 4.5 against 5.8 (Intel Xeon model 167 as AVX2-only, one thread). The per-step
// GEMV streams R (1 MiB at 256 units) from L2 and is bound by it: ~10 us a step.
//
// Algorithm, per (direction, batch entry) sequence, as ONNX Runtime and oneDNN do it:
//   - The input projection of kChunk steps at once: X_chunk W^T [steps, G*H] by the packed
//     GEMM (packed_gemm.h), W packed once at load. It depends on no state, so it runs as a
//     product of up to kChunk rows, not kChunk products of one.
//   - Per step, the recurrent product h_{t-1} R_g^T of each gate by the packed GEMV
//     (packed_gemv.h); GRU's h gate takes r * h_{t-1} unless linear_before_reset. Batch entries of
//     equal length (no sequence_lens, or equal ones) run in lockstep, their rows through the packed
//     GEMM's strips, so R streams once a step for the whole batch, not once per entry (a
//     bidirectional LSTM-256 at batch 4 over 100 steps: 10.9 -> 6.2 ms, ONNX Runtime 5.6).
//   - A sequence (or a lockstep group) that has more threads than it can share with other
//     groups splits its units between a team of threads: each member computes all gates of
//     its blocks of 64 units (the GEMV's panels; R and W are packed a gate at a time so a
//     block is whole panels in every gate), its part of the input projection, c and h, and
//     the team meets at a SpinBarrier (spin_barrier.h) once a step (GRU without
//     linear_before_reset twice: R_h (r * h) reads every unit's r * h). h alternates
//     between two buffers, so a member writing step t's h never overwrites what another
//     still reads of step t-1's. Each member then streams only its part of R, which stays
//     in its own core's L2 (a 2-layer LSTM-256 over 200 steps at batch 1 on two threads:
//     5.9 -> 3.7 ms, ONNX Runtime 4.6; a GRU of that size 4.2 -> 3.3, ONNX Runtime 4.4).
//   - The gates with ONNX's default activations, no clip, no peepholes and no coupled
//     input-forget gate (what PyTorch and TensorFlow export) are activated a gate at a time
//     by the vectorized sigmoid_f32 / tanh_f32 (vector_exp.h); any other configuration
//     takes the shared per-unit functions (lstm_unit, gru_unit, rnn_activate).
//   - Both biases (GRU's h gate: W's only) start the input projection's sums, and each
//     step's recurrent product accumulates onto the step's rows of it, which the gates then
//     activate in place: no copies of the gates per step.
// On CPUs with AVX-512 the same products run 16 lanes wide (packed_gemv.h, gemm_strip_avx512.h;
// the panels are the same): one thread, 200 frames, ONNX Runtime 1.32 with its AVX-512
// kernels alongside, a 2-layer LSTM-256 6.3 -> 4.3 ms (ORT 4.9), GRU-256 4.3 -> 3.1 (4.0),
// a bidirectional LSTM-256 at batch 4 13.6 -> 8.2 (7.9), Intel Xeon model 167.
// Products accumulate in fp32 in a different order than the direct loops: results agree to
// fp32 rounding, not bit for bit.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "kernels/common/recurrent_plan.h"
#include "kernels/cpu/packed_gemm.h"
#include "kernels/cpu/packed_gemv.h"
#include "kernels/cpu/spin_barrier.h"

namespace amp::kernels::cpu {

class PackedRecurrence {
 public:
  static constexpr int64_t kChunk = 32;  // steps whose input projection runs as one product
  static constexpr int64_t kUnitBlock = PackedGemv::kColumns;  // units a team member takes whole

  // The threads that run one group's steps together: member `index` of `count`, meeting at
  // `barrier` (count threads) when count > 1.
  struct Team {
    int index = 0;
    int count = 1;
    SpinBarrier* barrier = nullptr;
  };

  // Blocks of kUnitBlock units: the most members a team can use.
  static int64_t unit_blocks(const RecurrentPlan& p) {
    return (p.hidden + kUnitBlock - 1) / kUnitBlock;
  }
  // Units [first, second) of member `index` of `count`.
  static std::pair<int64_t, int64_t> units_of(const RecurrentPlan& p, int index, int count);

  // AVX2 and FMA, where the packed GEMM and GEMV run.
  static bool suits_this_cpu();

  // w: [dirs, G*H, I], r: [dirs, G*H, H], fp32; their owners let plans share the panels.
  void prepare(const RecurrentPlan& p, const float* w, const std::shared_ptr<const void>& w_owner,
               const float* r, const std::shared_ptr<const void>& r_owner);

  // Workspace floats for a group of `rows` sequences run together.
  static int64_t group_floats(const RecurrentPlan& p, int64_t rows);

  // Sequences (d, b0 + r) for r < rows in lockstep over their first `len` steps (reverse ones
  // backwards): batch entries of equal length share each step's recurrent product, which
  // then reads R once for all of them (rows > 1 needs a batch of at least 2 at prepare()).
  // x: X in fp32, the plan's layout; bias: B in fp32 [dirs, 2 G H] or null; peep: P in fp32
  // [dirs, 3H] or null. h and c ([rows][H]) hold the initial states on entry and the states
  // after the last step on return; step_done(t, r, h_r, j0, j1) runs after each step for
  // each row, for units [j0, j1) of h_r (Y's rows). ws: group_floats(p, rows) floats.
  // Every member of `team` calls run() with the same arguments, having set its units of h
  // and c (units_of); each writes only its units, and the states are whole once all members
  // have returned.
  void run(
      const RecurrentPlan& p, int d, int64_t b0, int64_t rows, int64_t len, const float* x,
      const float* bias, const float* peep, float* h, float* c, float* ws, const Team& team,
      const std::function<void(int64_t, int64_t, const float*, int64_t, int64_t)>& step_done) const;

  void held_constants(std::vector<HeldConstant>& out) const;

 private:
  // out[r][j0, j1) (+)= in[r] R_g^T for r < rows (in's rows H apart, out's ld apart): by the
  // GEMV for one row, by the GEMM's strips for several.
  void recurrent_product(int d, int g, const float* in, int64_t rows, float* out, int64_t ld,
                         bool accumulate, int64_t j0, int64_t j1) const;

  int gates_ = 0;                     // G
  std::vector<PackedGemm> input_;     // per (direction, gate): W_dg^T, K = I, N = H
  std::vector<PackedGemv> rec_;       // per (direction, gate): R_dg^T, K = N = H
  std::vector<PackedGemm> rec_rows_;  // the same as GEMM panels, for groups of rows
                                      // (packed when the batch is at least 2)
};

}  // namespace amp::kernels::cpu
