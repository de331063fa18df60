// The CPU backend's kernels: one registration function per kernel family
// (kernels/common/kernel_families.h), all called by register_cpu_kernels(). Every kernel follows
// kernel.h (prepare once, run const).
//
// Numerical contract (ARCHITECTURE.md): f16/bf16 kernels store the low type but compute
// and accumulate in fp32, rounding once on store (cpu_common.h: load_f32 / store_f32).
#pragma once

#include "kernels/common/kernel_families.h"
#include "kernels/kernel_registry.h"

namespace amp::kernels {

// Fills `registry` with every CPU kernel: cpu::register_<family>_kernels, declared here for
// every family and defined in its kernel file.
void register_cpu_kernels(KernelRegistry& registry);
AMP_DECLARE_KERNEL_FAMILIES(cpu)

}  // namespace amp::kernels
