// The CPU backend's kernels: one registration function per op family, all called by
// register_cpu_kernels(). Every kernel follows kernel.h (prepare once, run const).
//
// Numerical contract (ARCHITECTURE.md): f16/bf16 kernels store the low type but compute
// and accumulate in fp32, rounding once on store (cpu_common.h: load_f32 / store_f32).
#pragma once

#include "kernels/kernel_registry.h"

namespace amp::kernels {

// Fills `registry` with every CPU kernel.
void register_cpu_kernels(KernelRegistry& registry);

// Per family (kernels/cpu/<family>.cc).
void register_cpu_elementwise_kernels(KernelRegistry& registry);  // unary, binary, Where, Cast
void register_cpu_movement_kernels(KernelRegistry& registry);     // reshape..resize, shape ops
void register_cpu_reduction_kernels(KernelRegistry& registry);    // Reduce*, ArgMax, norms, softmax
void register_cpu_dnnl_kernels(KernelRegistry& registry);  // Conv, ConvT, MatMul, Gemm, pools

}  // namespace amp::kernels
