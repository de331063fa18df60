// exp over f32 arrays, vectorized per ISA, for the CPU kernels whose time is exp: Exp,
// Sigmoid (and so SiLU = x * Sigmoid(x), YOLO's activation), Softmax, the exp-based
// activations fused into a product (kernels/cpu/vector_activation.h): Swish, both GELUs,
// and tanh for the recurrent layers' gates (kernels/cpu/recurrent.cc).
//
// Why: std::exp is a scalar call, ~3 ns an element here, and GCC vectorizes it only under
// -ffast-math. Measured with AVX-512 hidden (tools/bench/as_avx2_cpu.cc) on an Intel Xeon
// (Emerald Rapids), one thread, 8840 elements (ultraface-slim-320's Exp): std::exp 27-32 us,
// exp_f32 6.0 us (3.6 us with AVX-512).
//
// Algorithm (Cephes' expf): n = round(x log2 e); r = x - n ln 2, with ln 2 split in two so
// that n ln 2 is exact; exp(r) by a degree-7 polynomial on [-ln 2 / 2, ln 2 / 2]; the result
// is exp(r) * 2^n, 2^n built from its exponent bits. Arithmetic only, so the loops vectorize
// (AMP_ISA_CLONES: 16 floats a step with AVX-512, 8 with AVX2). Per block of 256 elements,
// two passes: the argument clamped into the fast range (a loop of its own, which GCC 12
// would otherwise turn into branches for AVX2), then exp and Sigmoid's 1 / (1 + e) in one
// loop. Sigmoid took five passes before (negate, clamp, exp, copy, reciprocal): 0.63 ->
// 0.45 ns an element as AVX2-only, 0.39 -> 0.32 with AVX-512 (Intel Xeon with AMX, 2.6
// GHz, 409600 elements, one thread). Error:
// at most 1 ulp from the correctly rounded exp on a dense sample of [kMinFast, kMaxFast], on
// both ISAs; the test (tests/kernels/cpu/vector_exp_test.cc) allows 2. exp_f32 of x below
// -104 (-inf included) is +0, as std::exp rounds it, without a call: a softmax's masked
// scores are there. Elsewhere outside that range (results that underflow to subnormals or
// overflow to inf), and for NaN, std::exp gives the element, so nothing changes at the
// edges.
//
// GELU (erf) takes erfc from exp (Numerical Recipes' erfcc, relative error below 1.2e-7
// for the erfc, so the result is close in relative terms on both sides of 0): within
// 1e-6 + 1.5e-7 x^2 relative of the double-precision value in the test (the x^2 term is
// the f32 rounding of exp's argument, about -x^2 / 2, which the scalar f32 formulas of the
// exp-based functors carry too).
//
// x and y may be the same array.
#pragma once

#include <cstdint>

namespace amp::kernels::cpu {

inline constexpr float kMinFast = -87.0f;  // exp(-87) = 1.6e-38 > FLT_MIN (1.2e-38)
inline constexpr float kMaxFast = 88.0f;   // exp(88) = 1.7e38 < FLT_MAX (3.4e38)

// y[i] = exp(x[i]) for i < n.
void exp_f32(const float* x, float* y, int64_t n);

// y[i] = 1 / (1 + exp(-x[i])) for i < n (ONNX Sigmoid, in fp32 as the functor computes it).
void sigmoid_f32(const float* x, float* y, int64_t n);

// y[i] = x[i] * Sigmoid(x[i]) (SiLU), as ew::apply_activation's kSwish.
void swish_f32(const float* x, float* y, int64_t n);

// y[i] = 0.5 x (1 + erf(x / sqrt 2)), ONNX Gelu (approximate = "none").
void gelu_erf_f32(const float* x, float* y, int64_t n);

// y[i] = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), ONNX Gelu (approximate = "tanh").
void gelu_tanh_f32(const float* x, float* y, int64_t n);

// y[i] = tanh(x[i]), within a few ulp of std::tanh (the recurrent layers' activations).
void tanh_f32(const float* x, float* y, int64_t n);

}  // namespace amp::kernels::cpu
