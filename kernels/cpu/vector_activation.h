// A fused activation (graph/ops/fused_activation.h) over an f32 array, vectorized per ISA:
// the epilogue of our own products (kernels/cpu/packed_gemm.h), which apply it to each
// thread's block of the output while it is still in cache.
//
// Each kind computes ew::apply_activation's formula: the piecewise-linear ones (Relu,
// LeakyRelu, Clip, HardSigmoid, HardSwish) in loops GCC vectorizes as they are (bit-equal,
// but that alpha x + beta may be one fused multiply-add, an ulp apart);
// Sigmoid, Swish, both GELUs and Tanh through the vectorized exp (kernels/cpu/vector_exp.h,
// within a few ulp).
#pragma once

#include <cstdint>

#include "graph/ops/fused_activation.h"

namespace amp::kernels::cpu {

// y[i] = act(y[i]) for i < n.
void activate_f32(const graph::FusedActivation& act, float* y, int64_t n);

}  // namespace amp::kernels::cpu
