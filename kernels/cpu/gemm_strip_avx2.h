// The register-blocked micro-kernel of our own f32 products on CPUs with AVX2 and FMA:
//   c[r, j] = (first ? bias[j] or 0 : c[r, j]) + sum_{k < kc} x[r, k] b[k, j]
// for r < rows <= kStripRows and j < width <= kStripColumns. The packed GEMM
// (packed_gemm.h) runs it over its panels of B; the attention kernel (attention.cc) over
// K^T and V, whose rows are a head's keys and values.
//
// Why one kernel: both products are a strip of up to 6 rows times 16 columns of a row-major
// B, and both need FMA. The autovectorized loops of AMP_ISA_CLONES use no FMA (the build is
// ISO C++, so GCC does not contract a * b + c), which caps them at half the FMA units' rate:
// the attention's row-at-a-time loops ran at 57 GFLOP/s where this kernel runs at ~100
// (Intel Xeon model 167 as AVX2-only, one thread).
//
// Algorithm: a strip x 16 tile of c stays in up to 12 AVX2 registers for the whole kc loop;
// per k, two loads of b's row (b + k * ldb), a broadcast of x per row, two FMAs per row
// (both FMA ports busy). A width of 8 or less keeps one register column a row, half the
// FMAs; a width that is not 8 or 16 masks its loads and stores, so nothing past column
// `width` of any row is read or written (b excepted where its rows are padded). Strips of fewer
// than 4 rows wait on FMA latency rather than throughput: callers split rows as evenly as they can
// (strip_rows below). Accumulation runs over k in order, one FMA a step.
//
// Callable only where the CPU has AVX2 and FMA (cpu_has_avx2_fma()); compiled for that ISA.
#pragma once

#include <cstdint>

namespace amp::kernels::cpu {

inline constexpr int64_t kStripRows = 6;      // 12 accumulators + 2 of b + 1 broadcast = 15
inline constexpr int64_t kStripColumns = 16;  // two AVX2 registers

// AVX2 and FMA, as libgcc's CPU model sees them (so the CPUID mask of
// tools/bench/as_avx2_cpu.cc applies to it too).
bool cpu_has_avx2_fma();

// The product above; x's rows are ldx apart, c's ldc apart, b's ldb. bias: [width] or null,
// read only when `first`. b_rows_padded: every row of b may be read up to kStripColumns
// (the packed GEMM's zero-padded panels), which spares a narrow strip the masked loads of b.
void gemm_strip_avx2(int64_t rows, const float* x, int64_t ldx, const float* b, int64_t ldb,
                     int64_t kc, float* c, int64_t ldc, const float* bias, bool first,
                     int64_t width, bool b_rows_padded = false);

// Rows of strip s of `rows` rows cut into `strips` strips as evenly as can be: 32 rows as
// 5+5+6+5+5+6, not 6+6+6+6+6+2. Strip s starts at strip_begin(rows, strips, s).
inline int64_t strip_count(int64_t rows) {
  return (rows + kStripRows - 1) / kStripRows;
}
inline int64_t strip_begin(int64_t rows, int64_t strips, int64_t s) {
  return rows * s / strips;
}

}  // namespace amp::kernels::cpu
