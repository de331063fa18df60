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
//   - Per step, the recurrent product h_{t-1} R^T by the packed GEMV (packed_gemv.h): one
//     over all gates for LSTM and RNN; for GRU one over z and r and one over the h gate,
//     whose input is r * h_{t-1} unless linear_before_reset. Batch entries of equal length
//     (no sequence_lens, or equal ones) run in lockstep, their rows through the packed
//     GEMM's strips, so R streams once a step for the whole batch, not once per entry (a
//     bidirectional LSTM-256 at batch 4 over 100 steps: 10.9 -> 6.2 ms, ONNX Runtime 5.6).
//   - The gates with ONNX's default activations, no clip, no peepholes and no coupled
//     input-forget gate (what PyTorch and TensorFlow export) are activated a gate at a time
//     by the vectorized sigmoid_f32 / tanh_f32 (vector_exp.h); any other configuration
//     takes the shared per-unit functions (lstm_unit, gru_unit, rnn_activate).
// Products accumulate in fp32 in a different order than the direct loops: results agree to
// fp32 rounding, not bit for bit.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "kernels/common/recurrent_plan.h"
#include "kernels/cpu/packed_gemm.h"
#include "kernels/cpu/packed_gemv.h"

namespace amp::kernels::cpu {

class PackedRecurrence {
 public:
  static constexpr int64_t kChunk = 32;  // steps whose input projection runs as one product

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
  // after the last step on return; step_done(t, r, h_r) runs after each step for each row
  // (Y's rows). ws: group_floats(p, rows) floats.
  void run(const RecurrentPlan& p, int d, int64_t b0, int64_t rows, int64_t len, const float* x,
           const float* bias, const float* peep, float* h, float* c, float* ws,
           const std::function<void(int64_t, int64_t, const float*)>& step_done) const;

  void held_constants(std::vector<HeldConstant>& out) const;

 private:
  // out[r][0, n) (+)= in[r] R^T for r < rows (in's rows K apart, out's ld apart): by the
  // GEMV for one row, by the GEMM's strips (into tmp, then added) for several.
  static void recurrent_product(const PackedGemv& v, const PackedGemm& m, const float* in,
                                int64_t rows, float* out, int64_t ld, bool accumulate, float* tmp);

  std::vector<PackedGemm> input_;  // per direction: W_d^T, K = I, N = G*H
  std::vector<PackedGemv> gates_;  // per direction: R_d^T over all gates (GRU: z and r)
  std::vector<PackedGemv> gru_h_;  // per direction, GRU only: R_d^T of the h gate
  // The same two as GEMM panels, for groups of rows (packed when the batch is at least 2).
  std::vector<PackedGemm> gates_rows_, gru_h_rows_;
};

}  // namespace amp::kernels::cpu
