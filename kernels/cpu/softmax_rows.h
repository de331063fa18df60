// The passes of a softmax over one contiguous row of f32 (or f64) values, compiled per ISA
// (AMP_ISA_CLONES: 16 floats a step with AVX-512, 8 with AVX2), for the Softmax kernel's rows
// and the Attention kernel's scores (kernels/cpu/softmax.cc, attention.cc).
//
// Why: written inside those kernels they were baseline (SSE2) code, 4 floats a step, and the
// max a chain of 8-lane steps: an unfused 8 x 128 x 128 Softmax (a GPT-2 export's causal
// attention) took 0.45 ms where ONNX Runtime takes 0.05, and the passes were 15% of a
// 500-key attention (Intel Xeon model 167, one thread).
//
// row_max ignores NaN (a NaN element still makes its row NaN through exp(x - max) and the
// sum, so a softmax's output is the same as with a NaN-propagating max): it is row_max.h's
// row_max_ignoring_nan, 64 lanes reduced by halving. row_sum adds in tree_reduce's order
// (reduce_util.h), so a row sums to the same bits as the kernels' generic paths.
#pragma once

#include <cstdint>

namespace amp::kernels::cpu {

float row_max(const float* s, int64_t n);
double row_max(const double* s, int64_t n);
float row_sum(const float* s, int64_t n);
double row_sum(const double* s, int64_t n);
// s[j] *= factor
void scale_row(float* s, int64_t n, float factor);
void scale_row(double* s, int64_t n, double factor);
// s[j] = s[j] * factor + add[j]
void scale_add_row(float* s, const float* add, int64_t n, float factor);
void scale_add_row(double* s, const float* add, int64_t n, double factor);
// y[j] = x[j] - value (x may be y)
void subtract_row(const float* x, float* y, int64_t n, float value);
void subtract_row(const double* x, double* y, int64_t n, double value);

}  // namespace amp::kernels::cpu
