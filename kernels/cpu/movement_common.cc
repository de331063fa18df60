#include "kernels/cpu/movement_common.h"

#include <algorithm>
#include <cstring>

#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/transpose_tiles.h"

namespace amp::kernels::cpu {
namespace {

// One innermost row of a strided copy, on a fixed-size element type.
template <typename E>
void copy_row(const E* src, int64_t stride, int64_t n, E* dst) {
  if (stride == 1) {
    std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(E));
  } else if (stride == 0) {
    const E v = *src;
    for (int64_t i = 0; i < n; ++i) dst[i] = v;
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] = src[i * stride];
  }
}

void copy_row_bytes(const uint8_t* src, int64_t stride, int64_t n, uint8_t* dst, size_t elem) {
  switch (elem) {
    case 1:
      copy_row(src, stride, n, dst);
      return;
    case 2:
      copy_row(reinterpret_cast<const uint16_t*>(src), stride, n, reinterpret_cast<uint16_t*>(dst));
      return;
    case 4:
      copy_row(reinterpret_cast<const uint32_t*>(src), stride, n, reinterpret_cast<uint32_t*>(dst));
      return;
    case 8:
      copy_row(reinterpret_cast<const uint64_t*>(src), stride, n, reinterpret_cast<uint64_t*>(dst));
      return;
  }
  for (int64_t i = 0; i < n; ++i)
    std::memcpy(dst + static_cast<size_t>(i) * elem,
                src + static_cast<ptrdiff_t>(i * stride) * static_cast<ptrdiff_t>(elem), elem);
}

// copy_rows for a row size known at compile time: the compiler emits its moves inline.
template <size_t kBytes>
void copy_rows_fixed(uint8_t* dst, ptrdiff_t dst_stride, const uint8_t* src, ptrdiff_t src_stride,
                     int64_t rows) {
  for (int64_t r = 0; r < rows; ++r)
    std::memcpy(dst + r * dst_stride, src + r * src_stride, kBytes);
}

// copy_rows_fixed<B> for the B of kSizes that equals row_bytes; false when none does.
template <size_t... kSizes>
bool copy_rows_of_size(uint8_t* dst, ptrdiff_t dst_stride, const uint8_t* src, ptrdiff_t src_stride,
                       int64_t rows, size_t row_bytes) {
  return ((row_bytes == kSizes &&
           (copy_rows_fixed<kSizes>(dst, dst_stride, src, src_stride, rows), true)) ||
          ...);
}

}  // namespace

void copy_rows(uint8_t* dst, ptrdiff_t dst_stride, const uint8_t* src, ptrdiff_t src_stride,
               int64_t rows, size_t row_bytes) {
  // The short rows of 1- to 8-byte elements: a detector's boxes (4 floats), scores (2).
  if (row_bytes == 0 || copy_rows_of_size<1, 2, 4, 8, 12, 16, 24, 32>(dst, dst_stride, src,
                                                                      src_stride, rows, row_bytes))
    return;
  for (int64_t r = 0; r < rows; ++r)
    std::memcpy(dst + r * dst_stride, src + r * src_stride, row_bytes);
}

StridedView make_strided_view(int rank, const int64_t* dims, const int64_t* strides, int64_t base) {
  StridedView v;
  v.base = base;
  v.numel = 1;
  for (int a = 0; a < rank; ++a) v.numel *= dims[a];
  if (v.numel == 0) return v;
  for (int a = 0; a < rank; ++a) {
    if (dims[a] == 1) continue;
    // Merge with the previous kept axis when the pair walks the source contiguously.
    if (v.rank > 0 && v.strides[v.rank - 1] == strides[a] * dims[a]) {
      v.dims[v.rank - 1] *= dims[a];
      v.strides[v.rank - 1] = strides[a];
      continue;
    }
    v.dims[v.rank] = dims[a];
    v.strides[v.rank] = strides[a];
    ++v.rank;
  }
  return v;
}

void strided_copy(const StridedView& v, const void* src_v, void* dst_v, size_t elem, int threads) {
  if (v.numel == 0) return;
  const uint8_t* src = static_cast<const uint8_t*>(src_v);
  uint8_t* dst = static_cast<uint8_t*>(dst_v);
  const ptrdiff_t es = static_cast<ptrdiff_t>(elem);
  if (v.rank == 0) {
    std::memcpy(dst, src + v.base * es, elem);
    return;
  }
  if (transpose_tiles(v, src, dst, elem, threads)) return;
  const int outer_rank = v.rank - 1;
  const int64_t inner = v.dims[outer_rank];
  const int64_t inner_stride = v.strides[outer_rank];
  const int64_t rows = v.numel / inner;
  parallel_for(
      rows, threads,
      [&](int64_t begin, int64_t end) {
        int64_t idx[kMaxRank];
        int64_t off = v.base;
        int64_t rem = begin;
        for (int a = outer_rank - 1; a >= 0; --a) {
          idx[a] = rem % v.dims[a];
          rem /= v.dims[a];
          off += idx[a] * v.strides[a];
        }
        // Moves the odometer `count` rows on along axis a (count <= what is left on it),
        // carrying one into the axes further out when it wraps.
        auto advance = [&](int a, int64_t count) {
          for (; a >= 0; --a, count = 1) {
            off += v.strides[a] * count;
            idx[a] += count;
            if (idx[a] < v.dims[a]) return;
            off -= v.strides[a] * v.dims[a];
            idx[a] = 0;
          }
        };
        // Contiguous rows: a run of them along the next axis out is one copy_rows call.
        const int run_axis = outer_rank - 1;
        for (int64_t row = begin; row < end;) {
          if (inner_stride == 1 && run_axis >= 0) {
            const int64_t run = std::min(v.dims[run_axis] - idx[run_axis], end - row);
            copy_rows(dst + row * inner * es, inner * es, src + off * es, v.strides[run_axis] * es,
                      run, static_cast<size_t>(inner * es));
            row += run;
            advance(run_axis, run);
          } else {
            copy_row_bytes(src + off * es, inner_stride, inner, dst + row * inner * es, elem);
            ++row;
            advance(outer_rank - 1, 1);
          }
        }
      },
      std::max<int64_t>(1, 32768 / std::max<int64_t>(inner, 1)));
}

void parallel_copy(void* dst, const void* src, size_t bytes, int threads) {
  if (dst == src || bytes == 0) return;
  uint8_t* d = static_cast<uint8_t*>(dst);
  const uint8_t* s = static_cast<const uint8_t*>(src);
  parallel_for(
      static_cast<int64_t>(bytes), threads,
      [&](int64_t b, int64_t e) { std::memcpy(d + b, s + b, static_cast<size_t>(e - b)); },
      int64_t{1} << 20);
}

void fill_elements(void* dst_v, const void* value, int64_t count, size_t elem) {
  uint8_t* dst = static_cast<uint8_t*>(dst_v);
  switch (elem) {
    case 1:
      std::memset(dst, *static_cast<const uint8_t*>(value), static_cast<size_t>(count));
      return;
    case 2: {
      uint16_t v;
      std::memcpy(&v, value, 2);
      uint16_t* d = reinterpret_cast<uint16_t*>(dst);
      for (int64_t i = 0; i < count; ++i) d[i] = v;
      return;
    }
    case 4: {
      uint32_t v;
      std::memcpy(&v, value, 4);
      uint32_t* d = reinterpret_cast<uint32_t*>(dst);
      for (int64_t i = 0; i < count; ++i) d[i] = v;
      return;
    }
    case 8: {
      uint64_t v;
      std::memcpy(&v, value, 8);
      uint64_t* d = reinterpret_cast<uint64_t*>(dst);
      for (int64_t i = 0; i < count; ++i) d[i] = v;
      return;
    }
  }
  for (int64_t i = 0; i < count; ++i) std::memcpy(dst + static_cast<size_t>(i) * elem, value, elem);
}

}  // namespace amp::kernels::cpu
