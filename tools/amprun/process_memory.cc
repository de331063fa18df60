#include "tools/amprun/process_memory.h"

#include <fstream>
#include <string>

namespace amprun {

ProcessMemory read_process_memory() {
  ProcessMemory m;
  std::ifstream status("/proc/self/status");
  std::string line;
  bool rss = false, hwm = false;
  // "VmRSS:     123456 kB"
  auto kib = [](const std::string& l) { return std::stoull(l.substr(l.find(':') + 1)) * 1024; };
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) {
      m.resident_bytes = kib(line);
      rss = true;
    } else if (line.rfind("VmHWM:", 0) == 0) {
      m.peak_resident_bytes = kib(line);
      hwm = true;
    }
  }
  m.known = rss && hwm;
  return m;
}

}  // namespace amprun
