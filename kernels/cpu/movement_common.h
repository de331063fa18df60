// Shared pieces of the CPU movement kernels (movement_*.cc).
//
// Movement ops never look at element values, only at their bytes, so every kernel here
// works on an element size (1, 2, 4 or 8 bytes) and is registered for every dtype.
//
// Parameters that shape the copy (Slice starts, Pad pads, Resize scales, ...) are inputs.
// When they are constants, prepare() reads them; when they are computed at run time the
// output shape is still static (the runtime binds shapes before prepare), so run()
// resolves them into fixed-size plans on the stack or into the workspace, never the heap.
// Plans are therefore capped at kMaxRank dims.
//
//   StridedView v = make_strided_view(rank, out_dims, src_strides, base);
//   strided_copy(v, src, dst, elem_size, threads);   // dst dense in out_dims order
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "amp/dtype.h"
#include "kernels/common/kernel_checks.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/kernel.h"
#include "kernels/kernel_registry.h"
#include "runtime/common/status.h"

namespace amp::kernels::cpu {

inline constexpr int kMaxRank = 16;

// An N-d view of a source buffer: element (i_0..i_{r-1}) is src[base + sum i_a*strides[a]]
// (element units; strides may be 0 for broadcast or negative for reversed slices).
struct StridedView {
  int rank = 0;
  int64_t numel = 0;
  int64_t base = 0;
  int64_t dims[kMaxRank] = {};
  int64_t strides[kMaxRank] = {};
};

// Builds a view, dropping size-1 dims and merging axes that are contiguous in the source
// so the innermost loop is as long as possible. rank <= kMaxRank (checked by callers).
StridedView make_strided_view(int rank, const int64_t* dims, const int64_t* strides, int64_t base);

// dst (dense, row-major in the view's dims) = the view of src. Rows run in parallel.
void strided_copy(const StridedView& view, const void* src, void* dst, size_t elem_size,
                  int threads);

// `rows` rows of `row_bytes` each, from src (rows `src_stride` bytes apart; 0 repeats one,
// negative walks back) to dst (rows `dst_stride` bytes apart). Short rows (a last axis of 2 or 4
// floats: detectors' box and score tensors) are copied with fixed-size moves, not a memcpy call
// each, which cost ~5 ns a row: measured on ultraface-slim-320 with AVX-512 hidden, Intel Xeon
// (Emerald Rapids), one thread, each Slice of a 4420x4 tensor to 4420x2 took 27 us and each Concat
// back 44 us.
void copy_rows(uint8_t* dst, ptrdiff_t dst_stride, const uint8_t* src, ptrdiff_t src_stride,
               int64_t rows, size_t row_bytes);

// memcpy split over threads for large buffers; a no-op when dst == src (aliased views).
void parallel_copy(void* dst, const void* src, size_t bytes, int threads);

// Fills `count` elements of `elem_size` bytes at dst with the element at `value`.
void fill_elements(void* dst, const void* value, int64_t count, size_t elem_size);

// Tile: output element (o_a) of dims out_dims reads input element (o_a mod in_dims_a)
// (movement_tile.cc). rank <= kMaxRank.
void tile_copy(const void* src, void* dst, int rank, const int64_t* in_dims,
               const int64_t* out_dims, size_t elem_size, int threads);

}  // namespace amp::kernels::cpu
