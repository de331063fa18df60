// row_max_propagating: the max of a contiguous row of f32 (or f64), NaN when any element is
// NaN (numpy.max, ONNX's ReduceMax and GlobalMaxPool), compiled per ISA (AMP_ISA_CLONES:
// 16 floats a step with AVX-512, 8 with AVX2) for GlobalMaxPool's planes and ReduceMax over
// innermost axes.
//
// Why: the generic path (tree_reduce with reduce_max_step, reduce_util.h) does not
// vectorize: its NaN test is a branch per element. A GlobalMaxPool over 2 x 512 planes of 508
// (Magika's file-type model) took 1.26 ms there, 0.077 here, against 0.055 for the same
// GlobalAveragePool (AMD EPYC Zen 4, one thread). Here 64 lanes keep their max and whether they saw
// a NaN; a max is exact in any order, so the result is the generic path's but for which NaN (any
// NaN is returned as the row's first NaN) and, among equal zeros, the sign of the zero.
#pragma once

#include <cstdint>

namespace amp::kernels::cpu {

// n >= 1
float row_max_propagating(const float* s, int64_t n);
double row_max_propagating(const double* s, int64_t n);

// The same lanes without the NaN check: a NaN element is skipped (-inf for a row of NaN).
// Softmax's row max (softmax_rows.h), where a NaN reaches the output through exp and the sum
// anyway.
float row_max_ignoring_nan(const float* s, int64_t n);
double row_max_ignoring_nan(const double* s, int64_t n);

}  // namespace amp::kernels::cpu
