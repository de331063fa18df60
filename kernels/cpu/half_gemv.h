// A few rows times a constant matrix kept in 16-bit floats (f16 or bf16), on CPUs with AVX2,
// FMA and F16C but no 16-bit arithmetic, f32 accumulation:
//   y[r, j] = act(bias[j] + sum_k x[r, k] B[k, j])   for r < rows, j < N.
// The MatMul and Gemm kernels (dnnl_matmul.cc) use it for f16 and bf16 nodes with a constant
// 2-D B and at most kMaxRows rows of A: a decoder generating one token.
//
// Why: such a product reads each weight once and does one multiply-add with it, so its time
// is the time to stream B from memory. oneDNN 2.6 computes an f16 product on these CPUs
// through f32, with B widened to f32 once at load, which streams 4 bytes a weight at every
// token; here B stays 2 bytes a weight and is widened in registers as it is read (F16C's
// vcvtph2ps; a bf16 is the top half of an f32, one shift). A Llama decoder step with 170 MiB
// of f32 weights reads 85 MiB of f16 instead.
//
// Algorithm: as PackedGemv (packed_gemv.h), whose layout this is with 2-byte elements:
// prepare() packs B as panels of kColumns = 64 columns, [N / 64][K][64] (the last
// zero-padded), so that a panel streams contiguously. Per panel and row, 8 AVX2 accumulators
// hold its 64 outputs for the whole K loop: per k, one broadcast of x[r, k], 8 loads of 8
// 16-bit values, 8 widenings and 8 independent FMAs. Rows after the first read the panel
// again from cache (a panel is K x 128 bytes: 64 KiB at K = 512). The bias starts the sums;
// the fused activation runs over each finished row of a panel. Threads split the panels.
// Accumulation runs over k in order, one FMA a step: the result is the f32 product of x and
// the 16-bit B, rounded once when the caller stores it.
//
// Packed panels are shared between kernels that pack the same constant of the same owner the
// same way (shared_constants.h).
#pragma once

#include <cstdint>
#include <memory>

#include "amp/dtype.h"
#include "graph/ops/fused_activation.h"
#include "kernels/kernel.h"

namespace amp::kernels::cpu {

class HalfGemv {
 public:
  static constexpr int64_t kColumns = 64;
  // Rows of A it takes: past a few, a product reuses each weight enough for a blocked GEMM.
  static constexpr int64_t kMaxRows = 4;

  // Whether this CPU runs it (AVX2, FMA and F16C).
  static bool suits_this_cpu();

  // `storage`: kF16 or kBF16. B's element (k, j) is b[k * stride_k + j * stride_n] (16-bit
  // values). `bias`: [N] f32 given to run(), or none.
  void prepare(DType storage, int64_t k, int64_t n, const uint16_t* b, int64_t stride_k,
               int64_t stride_n, const graph::FusedActivation& act,
               const std::shared_ptr<const void>& owner = nullptr);

  // x: [rows, K] f32, rows <= kMaxRows; bias: [N] or null; y: [rows, N] f32.
  void run(const float* x, int64_t rows, const float* bias, float* y, int threads) const;

  // The packed panels, for the memory report.
  HeldConstant held_constant() const;

 private:
  DType storage_ = DType::kF16;
  int64_t k_ = 0, n_ = 0;
  graph::FusedActivation act_;
  std::shared_ptr<const float> b_;  // [N / 64][K][64] 16-bit values, 64-byte aligned
};

}  // namespace amp::kernels::cpu
