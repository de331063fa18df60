#include "runtime/common/streamed_memory.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace amp {
namespace {

std::shared_ptr<void> small_buffer(size_t bytes) {
  void* p = std::aligned_alloc(64, std::max<size_t>(64, (bytes + 63) / 64 * 64));
  if (p == nullptr) return nullptr;
  return std::shared_ptr<void>(p, [](void* q) { std::free(q); });
}

}  // namespace

std::shared_ptr<void> allocate_streamed(size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes < kHugePage) return small_buffer(bytes);
  const size_t length = (bytes + 4095) / 4096 * 4096;
  // Mapped with a huge page of slack, then trimmed to start on a 2 MiB boundary.
  void* raw = ::mmap(nullptr, length + kHugePage, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const auto start = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
  if (aligned > start) ::munmap(raw, aligned - start);
  const uintptr_t end = start + length + kHugePage;
  if (end > aligned + length)
    ::munmap(reinterpret_cast<void*>(aligned + length), end - aligned - length);
  void* p = reinterpret_cast<void*>(aligned);
  (void)::madvise(p, length, MADV_HUGEPAGE);  // a hint: where it fails, 4 KiB pages
  return std::shared_ptr<void>(p, [length](void* q) { ::munmap(q, length); });
#else
  return small_buffer(bytes);
#endif
}

}  // namespace amp
