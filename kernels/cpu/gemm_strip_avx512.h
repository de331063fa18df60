// The AVX-512 form of the packed GEMM's micro-kernel (gemm_strip_avx2.h), for the products
// that run through PackedGemm::run_serial on CPUs with AVX-512: the recurrent layers' input
// projection and their batch-in-lockstep recurrent product (recurrent_packed.h).
//   c[r, j] = (first ? bias[j] or 0 : c[r, j]) + sum_{k < kc} x[r, k] B[k, j]
// for r < rows <= kStripRows and j < width <= 16 * panels, panels <= kAvx512StripPanels.
//
// Why: the AVX2 kernel uses half of an AVX-512 core's FMA width and 16 of its 32 registers.
// A bidirectional LSTM-256 at batch 4 over 200 frames spent 63% of its time in the AVX2
// kernel's 4-row strips and took 13.6 ms where ONNX Runtime's AVX-512 kernels took 7.9
// (Intel Xeon model 167, one thread).
//
// Algorithm: B comes as the packed GEMM's panels of 16 columns (zero-padded, so no load of B
// is masked), panel v's row k at b + v * panel_stride + k * 16: one zmm register a row. A
// strip of up to 6 rows times up to 3 panels (48 columns) stays in up to 18 accumulators for
// the whole kc loop; per k, one load per panel, a broadcast of x per row and rows x panels
// FMAs: at 3 panels even a strip of 3 rows keeps 9 independent FMA chains. B is prefetched
// 16 rows ahead: a 4-row strip does too little per byte of B for the hardware prefetcher to
// keep up from L2 (that LSTM: 9.1 -> 8.2 ms; the AVX-512 GEMV measured no gain from it,
// the AVX2 GEMV and AVX2 strips of up to 4 rows did: packed_gemv.cc, gemm_strip_avx2.cc). The last
// panel's columns past `width` are masked on c's loads and stores. Accumulation runs over k in
// order, one FMA a step, from the same start as the AVX2 kernel: the two agree bit for bit
// (GemmStripAvx512.BitEqualToTheAvx2Kernel).
//
// Callable only where cpu_has_avx512f(); compiled for that ISA.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "kernels/cpu/cpu_common.h"

namespace amp::kernels::cpu {

inline constexpr int64_t kAvx512StripPanels = 3;
// Columns of one panel of B: 16 fp32, one zmm register.
inline constexpr int64_t kAvx512PanelWidth = 16;

// Lanes [0, width) of a register of 16: all of them for a width of 16 or more, none for 0
// or less. The AVX-512 kernels' masks for the columns past a row's end.
AMP_AVX512F inline __mmask16 avx512_lanes(int64_t width) {
  return width >= 16 ? static_cast<__mmask16>(0xFFFF)
                     : static_cast<__mmask16>((1u << (width > 0 ? width : 0)) - 1);
}

// AVX-512F as libgcc's CPU model sees it (the CPUID mask of tools/bench/as_avx2_cpu.cc
// applies), and false in a build with AMP_CPU_ISA_CAP_AVX2 (cpu_common.h).
bool cpu_has_avx512f();

// The product above for `panels` panels of B (1 to kAvx512StripPanels); bias: [width] or
// null, read only when `first`.
void gemm_strip_avx512(int64_t rows, const float* x, int64_t ldx, const float* b,
                       int64_t panel_stride, int panels, int64_t kc, float* c, int64_t ldc,
                       const float* bias, bool first, int64_t width);

}  // namespace amp::kernels::cpu
