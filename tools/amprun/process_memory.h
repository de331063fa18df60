// This process's resident memory, for amprun's memory section: what the engine's own report
// (arena, weights, packed copies) leaves out -- the libraries, the allocator, page-cache
// pages of the mapped model -- so that a user sees what a server running the model would.
#pragma once

#include <cstddef>

namespace amprun {

struct ProcessMemory {
  size_t resident_bytes = 0;       // VmRSS now
  size_t peak_resident_bytes = 0;  // VmHWM: the most since the process started
  bool known = false;              // false where /proc/self/status cannot be read
};

ProcessMemory read_process_memory();

}  // namespace amprun
