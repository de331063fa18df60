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
// in f32 whatever the node, or "" when some nodes may run faster. oneDNN 2.6 computes f16
// through f32 on every CPU, and bf16 too without AVX512-BF16 or AMX; casts then make a
// low-precision model slower than fp32. With AVX512-BF16 it depends on the node (measured on
// an Intel Xeon without AMX: a 32x384x1536 product 0.61 ms in bf16, 0.46 ms in f32; 1x1
// convolutions 2x slower), so the engine times the plan (runtime/precision_timing.h).
std::string cpu_low_precision_slower(DType low);

// Where cpu_low_precision_slower says `low` is slower: the most rows of A for which a
// product with a constant 2-D B still runs faster in `low`, since it reads B in 16 bits
// (kernels/cpu/half_gemv.h: AVX2, FMA and F16C); 0 where none does.
int64_t cpu_low_precision_weight_rows(DType low);

// Where the engine could not time a plan: why fp32 is the better guess on this CPU, or "".
// bf16 on AVX512-BF16 without AMX: most nodes measured slower than f32 (above).
std::string cpu_untimed_low_precision_slower(DType low);

// Whether the convolutions' layout of these logical dims is 8-channel blocks (else
// channels-last): kernels/cpu/dnnl_common.h, conv_layout_blocked8.
bool cpu_conv_layout_blocked8(const std::vector<int64_t>& dims);

// Whether oneDNN runs bf16 convolutions and products in bf16 on this CPU (AVX512-BF16 or
// AMX) rather than staging them through f32.
bool cpu_computes_bf16();

// The instruction set oneDNN dispatches to in this process ("avx2", "avx512_core_bf16", ...):
// its CPUID view, capped by ONEDNN_MAX_CPU_ISA.
std::string cpu_dnnl_isa_name();

}  // namespace amp::kernels
