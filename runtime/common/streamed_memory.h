// Memory for the packed constants that kernels stream at every run (a GEMV's or GEMM's
// panels): large ones are backed by transparent huge pages.
//
// Why: a product of a few rows (a decoder's token) reads each weight once, so it runs at the
// pace of B's stream from memory, and with 4 KiB pages that stream pays a TLB miss every
// 4 KiB -- in a virtual machine a two-level page walk -- and the hardware prefetchers stop at
// every page boundary. Measured on an AMD EPYC VM (Zen 4, family 25 model 17), one thread
// summing 64 MiB buffers: 16.2-16.6 GB/s with 4 KiB pages, 26.4-29.8 GB/s with 2 MiB pages.
//
// How: a buffer of at least kHugePage bytes starts on a 2 MiB boundary and is marked
// madvise(MADV_HUGEPAGE) before it is first written, so the kernel backs each whole 2 MiB of
// it with one huge page where transparent huge pages are enabled as "madvise" or "always";
// the tail past the last whole 2 MiB keeps 4 KiB pages and is never rounded up to a huge
// one (the address range reserved is, but pages past `bytes` are never touched). Where huge pages
// are off (or madvise fails) the buffer is an ordinary one. Smaller buffers are 64-byte aligned, as
// kernels need.
#pragma once

#include <cstddef>

namespace amp {

inline constexpr size_t kHugePage = size_t{2} << 20;

// `bytes` (rounded up to 64) of memory as above, or null when out of memory; free with
// std::free.
void* allocate_streamed(size_t bytes);

}  // namespace amp
