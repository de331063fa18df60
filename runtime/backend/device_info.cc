#include "runtime/backend/device_info.h"

#include <fstream>
#include <sstream>
#include <thread>

namespace amp::runtime {

std::string cpu_device_name() {
  std::ifstream f("/proc/cpuinfo");
  std::string line, model, flags;
  while (std::getline(f, line) && (model.empty() || flags.empty())) {
    auto value = [&] {
      auto p = line.find(':');
      return p == std::string::npos ? std::string() : line.substr(p + 2);
    };
    if (model.empty() && line.rfind("model name", 0) == 0) model = value();
    if (flags.empty() && line.rfind("flags", 0) == 0) flags = " " + value() + " ";
  }
  if (model.empty()) model = "unknown CPU";
  std::string isa;
  for (const char* f_name :
       {"avx2", "fma", "f16c", "avx512f", "avx512_bf16", "avx512_fp16", "amx_bf16"})
    if (flags.find(std::string(" ") + f_name + " ") != std::string::npos)
      isa += (isa.empty() ? "" : " ") + std::string(f_name);
  std::ostringstream os;
  os << model << " (" << std::thread::hardware_concurrency() << " threads; "
     << (isa.empty() ? "no AVX2" : isa) << ")";
  return os.str();
}

}  // namespace amp::runtime
