// One core's L2 size, for the kernels that size their blocks by it (packed_gemm.h's rows
// of x, recurrent_schedule.h's "R fits").
#pragma once

#include <cstdint>

namespace amp::kernels::cpu {

// One core's L2 in bytes, as the C library reads it from CPUID; 1 MiB where it cannot tell.
int64_t cpu_l2_cache_bytes();

}  // namespace amp::kernels::cpu
