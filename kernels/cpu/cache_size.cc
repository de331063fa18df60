#include "kernels/cpu/cache_size.h"

#include <unistd.h>

namespace amp::kernels::cpu {

int64_t cpu_l2_cache_bytes() {
  static const int64_t bytes = [] {
#ifdef _SC_LEVEL2_CACHE_SIZE
    const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (l2 > 0) return static_cast<int64_t>(l2);
#endif
    return int64_t{1} << 20;
  }();
  return bytes;
}

}  // namespace amp::kernels::cpu
