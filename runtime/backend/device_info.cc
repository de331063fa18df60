#include "runtime/backend/device_info.h"

#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#define AMP_DEVICE_INFO_CPUID 1
#endif

namespace amp::runtime {
namespace {

#ifdef AMP_DEVICE_INFO_CPUID
// The extensions that decide our kernels, as CPUID tells this process (the view every
// dispatcher here takes: GCC's target_clones, oneDNN, MLAS), with the OS's consent read from
// XCR0 as the kernel's /proc/cpuinfo would. A process whose CPUID is masked (the bench's
// libamp-as-avx2-cpu) therefore reports the CPU it really runs as.
std::vector<const char*> isa_extensions() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid_max(0, nullptr) < 7) return {};
  __cpuid_count(1, 0, a, b, c, d);
  const bool fma = c & (1u << 12), f16c = c & (1u << 29), osxsave = c & (1u << 27);
  unsigned long long xcr0 = 0;
  if (osxsave) {
    unsigned lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    xcr0 = (static_cast<unsigned long long>(hi) << 32) | lo;
  }
  const bool os_ymm = (xcr0 & 0x6) == 0x6, os_zmm = (xcr0 & 0xe6) == 0xe6;
  const bool os_amx = (xcr0 & 0x60000) == 0x60000;
  __cpuid_count(7, 0, a, b, c, d);
  const bool avx2 = os_ymm && (b & (1u << 5)), avx512f = os_zmm && (b & (1u << 16));
  const bool avx512_fp16 = os_zmm && (d & (1u << 23)), amx_bf16 = os_amx && (d & (1u << 22));
  __cpuid_count(7, 1, a, b, c, d);
  const bool avx512_bf16 = os_zmm && (a & (1u << 5));
  std::vector<const char*> out;
  for (auto [has, name] : {std::pair{avx2, "avx2"},
                           {os_ymm && fma, "fma"},
                           {os_ymm && f16c, "f16c"},
                           {avx512f, "avx512f"},
                           {avx512_bf16, "avx512_bf16"},
                           {avx512_fp16, "avx512_fp16"},
                           {amx_bf16, "amx_bf16"}})
    if (has) out.push_back(name);
  return out;
}
#else
std::vector<const char*> isa_extensions() {
  return {};
}
#endif

}  // namespace

std::string cpu_device_name() {
  std::ifstream f("/proc/cpuinfo");
  std::string line, model;
  while (model.empty() && std::getline(f, line))
    if (line.rfind("model name", 0) == 0) {
      auto p = line.find(':');
      if (p != std::string::npos) model = line.substr(p + 2);
    }
  if (model.empty()) model = "unknown CPU";
  std::string isa;
  for (const char* name : isa_extensions()) {
    if (!isa.empty()) isa += ' ';
    isa += name;
  }
  std::ostringstream os;
  os << model << " (" << std::thread::hardware_concurrency() << " threads; "
     << (isa.empty() ? "no AVX2" : isa) << ")";
  return os.str();
}

}  // namespace amp::runtime
