// runtime/common/streamed_memory.h: small buffers 64-byte aligned; large ones a mapping of
// their own on a 2 MiB boundary, flagged for huge pages (the VMA's "THPeligible" in
// /proc/self/smaps, where the kernel reports it and huge pages are not off), whole and
// writable to the last byte, and unmapped with their last owner.
#include "runtime/common/streamed_memory.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

namespace amp {
namespace {

// The smaps block of the mapping that starts at `p`, or "" when none does.
std::string smaps_of(const void* p) {
  std::ifstream in("/proc/self/smaps");
  std::ostringstream start;
  start << std::hex << reinterpret_cast<uintptr_t>(p) << "-";
  std::string line, block;
  bool inside = false;
  while (std::getline(in, line)) {
    // A mapping's first line starts "start-end " in hex; its fields' lines ("Size:") do not.
    const std::string first = line.substr(0, line.find(' '));
    const bool header = first.find('-') != std::string::npos &&
                        first.find_first_not_of("0123456789abcdef-") == std::string::npos;
    if (header) {
      if (inside) break;
      inside = line.rfind(start.str(), 0) == 0;
    }
    if (inside) block += line + "\n";
  }
  return block;
}

std::string thp_mode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string s;
  std::getline(in, s);
  return s;
}

TEST(StreamedMemory, SmallBuffersAreAlignedForKernels) {
  for (size_t bytes : {size_t{0}, size_t{1}, size_t{100}, kHugePage - 1}) {
    std::shared_ptr<void> p = allocate_streamed(bytes);
    ASSERT_NE(p, nullptr) << bytes;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p.get()) % 64, 0u) << bytes;
    std::memset(p.get(), 0xAB, bytes);
  }
}

TEST(StreamedMemory, LargeBuffersAreMappingsOfTheirOwnOnHugePageBoundaries) {
  const size_t bytes = 3 * kHugePage + 12345;  // whole huge pages and a 4 KiB tail
  std::shared_ptr<void> p = allocate_streamed(bytes);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p.get()) % kHugePage, 0u);
  auto* bytes_of = static_cast<unsigned char*>(p.get());
  std::memset(bytes_of, 0x5A, bytes);
  EXPECT_EQ(bytes_of[bytes - 1], 0x5A);
#if defined(__linux__)
  const std::string block = smaps_of(p.get());
  ASSERT_FALSE(block.empty()) << "no mapping starts at the buffer: it came from the heap";
  const std::string mode = thp_mode();
  const size_t eligible = block.find("THPeligible:");
  if (eligible != std::string::npos && !mode.empty() && mode.find("[never]") == std::string::npos) {
    EXPECT_EQ(std::stoi(block.substr(eligible + std::strlen("THPeligible:"))), 1) << block;
  }
  const void* where = p.get();
  p.reset();
  EXPECT_TRUE(smaps_of(where).empty()) << "the mapping outlived its last owner";
#endif
}

}  // namespace
}  // namespace amp
