// Products with a constant B on AVX2 CPUs, by our own register-blocked kernel:
//   y[r, j] = act(bias[j] + sum_k x[r, k] B[k, j])   for r < rows, j < N,
// f32 operands. MatMul and Gemm (kernels/cpu/dnnl_matmul.cc) take it for the products
// between SmallGemm's (a few thousand multiply-adds) and anything larger, on CPUs with AVX2
// and FMA but no AVX-512: a transformer's projections and feed-forward layers.
//
// Why: on such a CPU oneDNN 2.6 has no brgemm matmul and runs its gemm:jit, which packs B on
// every call. Measured with AVX-512 hidden (tools/bench/as_avx2_cpu.cc) on an Intel Xeon
// (model 167), one thread, B cycled through 16 copies (as a model's layers evict each
// other's), median us: 32x384x1536 oneDNN 466, ONNX Runtime's MLAS 350 (its profile, in the
// model), here 329-336 (113 GFLOP/s); 32x1536x384 370 / 350 / 329-335; 32x384x384 97 / 90 /
// 83-84. In the 6-layer encoder (demo_bert6) 7.9 -> 6.7 ms against ONNX Runtime's 7.6. With
// AVX-512 oneDNN's brgemm is faster than this kernel (32x384x1536: 250 us) and keeps them.
//
// Algorithm (the BLIS/GotoBLAS structure, with B packed once at load):
//   - prepare() packs B as [K / 256][N / 16][kc][16]: panels of kNr = 16 columns (the last
//     zero-padded), a slice of kKc = 256 steps of K of every panel contiguous, so a pass over
//     one K slice streams B sequentially (MLAS packs so too). Against a panel-major layout
//     (each panel's K rows contiguous) the two measured within this VM's noise.
//   - run() splits the panels over threads. Each thread walks its panels in blocks of rows
//     of x and kKc steps of K: a kKc x 16 slice of a panel (16 KiB) stays in L1 while every
//     strip of up to 6 rows of the block multiplies it, and the block's rows of x stay in L2
//     across the thread's panels. A block is as many rows as fit a K slice in half of one
//     core's L2 (96 to 256: 256 rows are 256 KiB), and the rows are cut into as few blocks
//     as that allows, evenly: each block streams all of B once, so 128 rows as 96 + 32 read
//     B twice, the second time for 32 rows. As AVX2-only (Intel Xeon model 167, 2 MiB L2,
//     one thread), 12 feed-forward products 128 x 512 x 2048 / 128 x 2048 x 512: 34.5 ->
//     30-31 ms (96-row blocks -> one block of 128; ONNX Runtime 32.9); at 512 rows 42.6 ->
//     39 ms with blocks of 256 (of 512: 42). Strips are as even as can be (32 rows as
//     5+5+6+5+5+6, not 6+6+6+6+6+2: a strip of under 4 rows waits on FMA latency).
//   - Where a block's y overflows half of L2 (a vocabulary projection, 768 -> 50257), it
//     walks B panel by panel instead, all of K for one panel, so y's tile stays in L1 and
//     x (up to twice L2) is read again per panel in place of y going out to L3 and back
//     once a K slice (panel_outer in packed_gemm.cc; 64 x 768 x 50257 70-94 -> 65-77 ms,
//     AMD EPYC, one thread).
//   - While the strips of a block multiply one slice, they prefetch the next slice into L1,
//     a 1/strips part each (blocks of 12 rows or more on AVX2). B is 4 MiB for a 512 x 2048
//     layer, more than L2, and the hardware prefetcher left the first strip of every slice
//     waiting on it: as AVX2-only (Intel Xeon model 167, one thread) a GPT-2-style decoder
//     at 128 tokens 57.3 -> 52-53 ms (ONNX Runtime 49.5), the 6-layer encoder at 16 tokens
//     5.2-5.6 -> 4.4-4.5 ms, at 128 tokens 34.2 -> 31.6-32.2 ms; recurrent layers unchanged.
//   - The micro-kernel (gemm_strip_avx2.h, shared with the attention kernel) keeps a strip
//     x 16 tile of y in up to 12 AVX2 registers for a kKc slice. The first slice starts
//     from the bias (or 0), later ones from the tile stored by the slice before. A last
//     panel of 8 columns or fewer keeps one register column a row, half the FMAs (a DB
//     head's 96 -> 24 channel Winograd convolution at 160x160: 4.23 -> 3.74 ms); the
//     panels' zero padding spares narrow panels masked loads of B.
//   - The activation runs over each row of a finished block of rows (vector_activation.h),
//     while it is in cache.
// Accumulation order differs from oneDNN's (by K slices of 256, in order): results agree to
// f32 rounding, not bit for bit.
#pragma once

#include <cstdint>
#include <memory>

#include "graph/ops/fused_activation.h"
#include "kernels/kernel.h"

namespace amp::kernels::cpu {

class PackedGemm {
 public:
  // Below this many rows the 6-row tiles are mostly empty and B's stream dominates: oneDNN
  // (or SmallGemm) keeps those.
  static constexpr int64_t kMinRows = 4;
  // Columns of a packed panel.
  static constexpr int64_t kColumns = 16;

  // AVX2 and FMA without AVX-512: where this kernel beats oneDNN's.
  static bool suits_this_cpu();

  // B's element (k, j) is b[k * stride_k + j * stride_n]. With `owner` (what keeps a
  // model constant's bytes alive) the packed panels are shared with every PackedGemm that
  // packs the same bytes the same way (shared_constants.h); without, they are this one's.
  void prepare(int64_t k, int64_t n, const float* b, int64_t stride_k, int64_t stride_n,
               const graph::FusedActivation& act,
               const std::shared_ptr<const void>& owner = nullptr);

  // x: [rows, K] dense; y: [rows, N] dense; bias: [N] or null. Needs suits_this_cpu().
  void run(const float* x, int64_t rows, const float* bias, float* y, int threads) const;

  // On the calling thread, without the bias or the activation: y [rows, N] = x [rows, K] B,
  // x's rows ldx apart, y's ldy apart. The Winograd convolution's products
  // (winograd_conv.h) run so, one per transformed window position, and the recurrent
  // layers' (recurrent_packed.h), which also run on CPUs with AVX-512: there the strips are
  // gemm_strip_avx512.h's, up to three panels wide, with the same sums.
  void run_serial(const float* x, int64_t ldx, int64_t rows, float* y, int64_t ldy) const;

  // The same over columns [j0, j1) only (y and bias still indexed from column 0), plus
  // bias[j] (null: none), or added to y's values when `accumulate` (then without bias); j0
  // and j1 multiples of kColumns (or j1 == N): whole panels. The recurrent layers split
  // units between threads so, and accumulate each step's product onto its input projection.
  void run_serial(const float* x, int64_t ldx, int64_t rows, float* y, int64_t ldy, int64_t j0,
                  int64_t j1, const float* bias, bool accumulate) const;

  // The packed panels, for the memory report.
  HeldConstant held_constant() const;

 private:
  int64_t k_ = 0, n_ = 0;
  std::shared_ptr<const float> b_;  // [K / 256][N / 16][kc][16], 64-byte aligned
  graph::FusedActivation act_;
};

}  // namespace amp::kernels::cpu
