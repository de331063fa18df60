// A vector (or a few rows) times a constant matrix on CPUs with AVX2 and FMA, f32:
//   y[j] = (accumulate ? y[j] : 0) + sum_k x[k] B[k, j]   for j < N,
// B packed once. Two users:
//   - The recurrent layers (kernels/cpu/recurrent.cc) run one per gate and time step:
//     h_{t-1} R^T, a product of one row that the packed GEMM's strips (packed_gemm.h) run at
//     a quarter of the FMA rate, since each of their two accumulators waits on the FMA
//     before.
//   - MatMul and Gemm (kernels/cpu/dnnl_matmul.cc) with a constant 2-D B and up to
//     max_rows() rows (run_rows): a decoder's token, a classifier head at batch 1. Such a
//     product reads each weight once, so its time is B's stream from memory, and oneDNN 2.6
//     streams it at half the rate of these panels. One thread, B cycled through copies
//     beyond L3 ("DRAM") or one copy ("hot"), with bias, median us, oneDNN / here, on an AMD
//     EPYC (Zen 4, family 25 model 17): with AVX-512 (oneDNN's brg:avx512_core) 1 x 512 x
//     32000 5751 / 3015, 1 x 512 x 1408 DRAM 241 / 116, hot 34 / 30, 1 x 4096 x 4096 5800 /
//     2890; 2 to 4 rows 0.36-0.75 of oneDNN's time from DRAM, 0.38-1.05 hot. As an AVX2-only
//     CPU (tools/bench/as_avx2_cpu.cc; oneDNN's gemm:jit) 1 and 2 rows 0.43-0.96 from DRAM,
//     0.69-1.14 hot; 3 rows lost hot (512 x 1408: 54 / 96), so AVX2 takes up to 2 rows and
//     the packed GEMM takes 4 and more.
//
// Algorithm: B is packed as panels of kColumns = 64 columns, [N / 64][K][64] (the last
// zero-padded), so that a panel streams contiguously. Per panel, 8 AVX2 accumulators hold
// its 64 outputs for the whole K loop: per k, one broadcast of x[k], 8 loads of B and 8
// independent FMAs, enough chains to hide FMA latency; loads (2 a cycle) bound it at about
// 1.8 FMAs a cycle. Where AVX-512 is visible (cpu_has_avx512f(), gemm_strip_avx512.h) two
// panels run together in 8 registers of 16, half the instructions for the same stream (a
// 2-layer LSTM-256 over 200 steps, one thread: 6.3 -> 4.3 ms, with the AVX-512 strips for
// its input projection; Intel Xeon model 167). The last panel stores only its valid
// columns. Rows (run_rows): with AVX-512 up to 3 rows share each load of B (24
// accumulators), 4 rows take one panel at a time (16); with AVX2 the rows run one after
// another while the panel is in L2. A bias starts the sums; the fused activation runs over
// each finished share of a row. Accumulation runs over k in order, one FMA a step, on either
// ISA and for any number of rows.
//
// Packed panels are shared between kernels that pack the same constant of the same owner
// the same way (shared_constants.h), as the packed GEMM's are.
#pragma once

#include <cstdint>
#include <memory>

#include "graph/ops/fused_activation.h"
#include "kernels/kernel.h"

namespace amp::kernels::cpu {

class PackedGemv {
 public:
  static constexpr int64_t kColumns = 64;
  // Rows of A run_rows() takes on this CPU: 4 with AVX-512, 2 with AVX2 (header of the
  // file); past that, a product reuses each weight enough for a blocked GEMM.
  static int64_t max_rows();

  // Whether this CPU runs it (AVX2 and FMA; AVX-512 used where present).
  static bool suits_this_cpu();

  // B's element (k, j) is b[k * stride_k + j * stride_n].
  void prepare(int64_t k, int64_t n, const float* b, int64_t stride_k, int64_t stride_n,
               const std::shared_ptr<const void>& owner = nullptr);

  // x: [K]; y: [N]. On the calling thread. Needs cpu_has_avx2_fma() (gemm_strip_avx2.h).
  void run(const float* x, float* y, bool accumulate) const { run(x, y, accumulate, 0, n_); }

  // The same over columns [j0, j1) only (y still indexed from column 0); j0 and j1 multiples
  // of kColumns (or j1 == N): whole panels. The recurrent layers split units between threads
  // so.
  void run(const float* x, float* y, bool accumulate, int64_t j0, int64_t j1) const;

  // A few rows: y[r, j] = act(bias[j] + sum_k x[r, k] B[k, j]) for r < rows <= max_rows()
  // (x: [rows, K], y: [rows, N] dense; bias: [N] or null). Threads split the panels; each
  // panel (a pair with AVX-512) serves every row while it is in L2 (header of the file).
  void run_rows(const float* x, int64_t rows, const float* bias, const graph::FusedActivation& act,
                float* y, int threads) const;

  int64_t k() const { return k_; }
  int64_t n() const { return n_; }

  // The packed panels, for the memory report.
  HeldConstant held_constant() const;

 private:
  int64_t k_ = 0, n_ = 0;
  std::shared_ptr<const float> b_;  // [N / 64][K][64], 64-byte aligned
};

}  // namespace amp::kernels::cpu
