// Memory for the constants that kernels stream at every run (a GEMV's or GEMM's packed
// panels, the AMP planner's 16-bit weights): large ones are backed by transparent huge pages.
//
// Why: a product of a few rows (a decoder's token) reads each weight once, so it runs at the
// pace of B's stream from memory, and with 4 KiB pages that stream pays a TLB miss every
// 4 KiB -- in a virtual machine a two-level page walk -- and the hardware prefetchers stop at
// every page boundary. Measured on an AMD EPYC VM (Zen 4, family 25 model 17), one thread
// summing 64 MiB buffers: 16.2-16.6 GB/s with 4 KiB pages, 26.4-29.8 GB/s with 2 MiB pages.
//
// How: a buffer of at least kHugePage bytes is a mapping of its own (mmap), started on a
// 2 MiB boundary and marked madvise(MADV_HUGEPAGE) before it is first written, so the kernel
// backs each whole 2 MiB of it with one huge page where transparent huge pages are enabled
// as "madvise" or "always"; the tail past the last whole 2 MiB keeps 4 KiB pages (nothing is
// rounded up to a huge page). Its own mapping, not the malloc heap: memory flagged for huge
// pages never goes back to malloc's free lists, where small allocations would fault in 2 MiB
// pages. Where huge pages are off (or madvise fails) the pages stay 4 KiB. Smaller buffers
// come from aligned_alloc, 64-byte aligned as kernels need.
#pragma once

#include <cstddef>
#include <memory>

namespace amp {

inline constexpr size_t kHugePage = size_t{2} << 20;

// `bytes` of memory as above, 64-byte aligned at least, freed with its last owner; null when
// out of memory. Its contents are unspecified.
std::shared_ptr<void> allocate_streamed(size_t bytes);

}  // namespace amp
