// A vector times a constant matrix on CPUs with AVX2 and FMA, f32:
//   y[j] = (accumulate ? y[j] : 0) + sum_k x[k] B[k, j]   for j < N,
// B packed once. The recurrent layers (kernels/cpu/recurrent.cc) run one per gate and time
// step: h_{t-1} R^T, a product of one row that the packed GEMM's strips (packed_gemm.h) run
// at a quarter of the FMA rate, since each of their two accumulators waits on the FMA before.
//
// Algorithm: B is packed as panels of kColumns = 64 columns, [N / 64][K][64] (the last
// zero-padded), so that a panel streams contiguously. Per panel, 8 AVX2 accumulators hold
// its 64 outputs for the whole K loop: per k, one broadcast of x[k], 8 loads of B and 8
// independent FMAs, enough chains to hide FMA latency; loads (2 a cycle) bound it at about
// 1.8 FMAs a cycle. Where AVX-512 is visible (cpu_has_avx512f(), gemm_strip_avx512.h) two
// panels run together in 8 registers of 16, half the instructions for the same stream (a
// 2-layer LSTM-256 over 200 steps, one thread: 6.3 -> 4.3 ms, with the AVX-512 strips for
// its input projection; Intel Xeon model 167). The last panel stores only its valid
// columns. Accumulation runs over k in order, one FMA a step, on either ISA.
//
// Packed panels are shared between kernels that pack the same constant of the same owner
// the same way (shared_constants.h), as the packed GEMM's are.
#pragma once

#include <cstdint>
#include <memory>

#include "kernels/kernel.h"

namespace amp::kernels::cpu {

class PackedGemv {
 public:
  static constexpr int64_t kColumns = 64;

  // B's element (k, j) is b[k * stride_k + j * stride_n].
  void prepare(int64_t k, int64_t n, const float* b, int64_t stride_k, int64_t stride_n,
               const std::shared_ptr<const void>& owner = nullptr);

  // x: [K]; y: [N]. On the calling thread. Needs cpu_has_avx2_fma() (gemm_strip_avx2.h).
  void run(const float* x, float* y, bool accumulate) const { run(x, y, accumulate, 0, n_); }

  // The same over columns [j0, j1) only (y still indexed from column 0); j0 and j1 multiples
  // of kColumns (or j1 == N): whole panels. The recurrent layers split units between threads
  // so.
  void run(const float* x, float* y, bool accumulate, int64_t j0, int64_t j1) const;

  int64_t k() const { return k_; }
  int64_t n() const { return n_; }

  // The packed panels, for the memory report.
  HeldConstant held_constant() const;

 private:
  int64_t k_ = 0, n_ = 0;
  std::shared_ptr<const float> b_;  // [N / 64][K][64], 64-byte aligned
};

}  // namespace amp::kernels::cpu
