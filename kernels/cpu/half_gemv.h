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
// Algorithm. A B row-major and dense ([K, N], as exporters store a MatMul's weight) with rows
// of at least 4 KiB (N >= kMinInPlaceColumns: every product of a multi-billion-parameter
// decoder) is read in place: the 16-bit constant the AMP planner converted once is then the
// only copy (packing it too held every streamed weight twice, as much memory as f32).
// Columns split into tiles of up to kMaxTile; per tile, each row's sums live in y itself (a
// row's tile is 32 KiB at most, so it stays in L1 / L2), started from the bias or zeros.
// The K loop takes four rows of B at a time: per 8 columns, 4 loads of 8 16-bit values, 4
// widenings, and per row of A one load of the sums, 4 FMAs and one store. So B streams as
// 4 contiguous runs of up to 16 KiB, which the hardware prefetchers follow. Measured from
// DRAM on a Zen 3, one row: 4096 x 4096 and 512 x 32000 read 16-18 GB/s in place against
// 14-15 packed, 4096 x 11008 and 2048 x 2048 the same; but narrower rows (N = 512 to 1024)
// read 10 GB/s in place against 13-14 packed, so those, and any other layout of B (Gemm's
// transB, a strided view), are packed as PackedGemv packs (packed_gemv.h), with 2-byte
// elements: panels of 64 columns, [N / 64][K][64], 8 AVX2 accumulators per row, shared
// between kernels that pack the same constant (shared_constants.h). Threads split the tiles
// (panels). The fused activation runs over each finished tile of a row.
// Accumulation runs over k in order, one FMA a step, in both layouts: the result is the f32
// product of x and the 16-bit B, rounded once when the caller stores it.
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
  // Columns of an in-place tile.
  static constexpr int64_t kMaxTile = 8192;
  // The narrowest B read in place: a row of 4 KiB (header).
  static constexpr int64_t kMinInPlaceColumns = 2048;
  // Rows of A it takes: past a few, a product reuses each weight enough for a blocked GEMM.
  static constexpr int64_t kMaxRows = 4;

  // Whether this CPU runs it (AVX2, FMA and F16C).
  static bool suits_this_cpu();

  // `storage`: kF16 or kBF16. B's element (k, j) is b[k * stride_k + j * stride_n] (16-bit
  // values). `bias`: [N] f32 given to run(), or none.
  void prepare(DType storage, int64_t k, int64_t n, const uint16_t* b, int64_t stride_k,
               int64_t stride_n, const graph::FusedActivation& act,
               const std::shared_ptr<const void>& owner = nullptr);

  // Whether run() reads B where prepare() found it (dense row-major, wide) or panels.
  bool reads_b_in_place() const { return !panels_; }

  // x: [rows, K] f32, rows <= kMaxRows; b: B as given to prepare() (read when
  // reads_b_in_place()); bias: [N] or null; y: [rows, N] f32.
  void run(const float* x, int64_t rows, const uint16_t* b, const float* bias, float* y,
           int threads) const;

  // The packed panels, for the memory report (none when B is read in place).
  HeldConstant held_constant() const;

 private:
  void run_in_place(const float* x, int64_t rows, const uint16_t* b, const float* bias, float* y,
                    int threads) const;

  DType storage_ = DType::kF16;
  int64_t k_ = 0, n_ = 0;
  graph::FusedActivation act_;
  // [N / 64][K][64] 16-bit values, 64-byte aligned; null when B is read in place.
  std::shared_ptr<const float> panels_;
};

}  // namespace amp::kernels::cpu
