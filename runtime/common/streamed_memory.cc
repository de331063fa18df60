#include "runtime/common/streamed_memory.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace amp {

void* allocate_streamed(size_t bytes) {
  const size_t rounded = std::max<size_t>(64, (bytes + 63) / 64 * 64);
  if (rounded < kHugePage) return std::aligned_alloc(64, rounded);
  // aligned_alloc wants a size that is a multiple of the alignment.
  void* p = std::aligned_alloc(kHugePage, (rounded + kHugePage - 1) / kHugePage * kHugePage);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // A hint: where it fails (huge pages off, an old kernel) the pages stay 4 KiB.
  if (p != nullptr) (void)::madvise(p, rounded / 4096 * 4096, MADV_HUGEPAGE);
#endif
  return p;
}

}  // namespace amp
