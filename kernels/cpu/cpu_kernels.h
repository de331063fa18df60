// The CPU backend's kernels: one registration function per kernel family
// (kernels/common/kernel_families.h), all called by register_cpu_kernels(). Every kernel follows
// kernel.h (prepare once, run const).
//
// Numerical contract (ARCHITECTURE.md): f16/bf16 kernels store the low type but compute
// and accumulate in fp32, rounding once on store (cpu_common.h: load_f32 / store_f32).
#pragma once

#include <string>

#include "amp/dtype.h"
#include "kernels/common/kernel_families.h"
#include "kernels/kernel_registry.h"

namespace amp::kernels {

// Fills `registry` with every CPU kernel: cpu::register_<family>_kernels, declared here for
// every family and defined in its kernel file.
void register_cpu_kernels(KernelRegistry& registry);
AMP_DECLARE_KERNEL_FAMILIES(cpu)

// Why this CPU runs convolutions and matrix products no faster in `low` (kF16, kBF16) than
// in f32, or "" when it does run them faster. oneDNN 2.6 computes f16 through f32 on every
// CPU; bf16 gains only from AMX tiles: AVX512-BF16's dot product has the throughput of two
// f32 FMAs (measured: a 32x384x1536 product 0.61 ms in bf16, 0.46 ms in f32), and without
// it bf16 goes through f32 too. Casts then make a low-precision model slower than fp32.
std::string cpu_low_precision_slower(DType low);

// Whether oneDNN runs bf16 convolutions and products in bf16 on this CPU (AVX512-BF16 or
// AMX) rather than staging them through f32.
bool cpu_computes_bf16();

}  // namespace amp::kernels
