// Human-readable device descriptions for reports (amprun's "device" line).
#pragma once

#include <string>

namespace amp::runtime {

// "AMD EPYC 7B13 (2 threads; avx2 fma f16c)": the model name from /proc/cpuinfo and the
// extensions this process's CPUID reports and the OS enables (what our dispatch sees).
std::string cpu_device_name();

}  // namespace amp::runtime
