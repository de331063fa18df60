// Human-readable device descriptions for reports (amprun's "device" line).
#pragma once

#include <string>

namespace amp::runtime {

// "AMD EPYC 9654 (2 cores; avx2 avx512f avx512_bf16 f16c)" from /proc/cpuinfo.
std::string cpu_device_name();

}  // namespace amp::runtime
