// Tile's copy loop (kernels/common/copy_kernels.h has the kernel): output row (all axes but
// the last) o reads input row (o_a mod d_a), which is copied repeats_last times.
#include <algorithm>
#include <cstring>

#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/movement_common.h"

namespace amp::kernels::cpu {

void tile_copy(const void* src_v, void* dst_v, int rank, const int64_t* in_dims,
               const int64_t* out_dims, size_t es, int threads) {
  int64_t numel = 1;
  for (int a = 0; a < rank; ++a) numel *= out_dims[a];
  if (numel == 0) return;
  const auto* src = static_cast<const uint8_t*>(src_v);
  auto* dst = static_cast<uint8_t*>(dst_v);
  if (rank == 0) {
    std::memcpy(dst, src, es);
    return;
  }
  const int last = rank - 1;
  const size_t in_row = static_cast<size_t>(in_dims[last]) * es;
  const int64_t reps = out_dims[last] / in_dims[last];
  const int64_t rows = numel / out_dims[last];
  int64_t in_strides[kMaxRank];
  contiguous_strides(rank, in_dims, in_strides);
  parallel_for(
      rows, threads,
      [&](int64_t b, int64_t e) {
        int64_t idx[kMaxRank];
        int64_t rem = b;
        for (int a = last - 1; a >= 0; --a) {
          idx[a] = rem % out_dims[a];
          rem /= out_dims[a];
        }
        for (int64_t row = b; row < e; ++row) {
          int64_t off = 0;
          for (int a = 0; a < last; ++a) off += (idx[a] % in_dims[a]) * in_strides[a];
          uint8_t* d = dst + static_cast<size_t>(row) * in_row * static_cast<size_t>(reps);
          if (in_dims[last] == 1) {
            fill_elements(d, src + static_cast<size_t>(off) * es, reps, es);
          } else {
            for (int64_t k = 0; k < reps; ++k)
              std::memcpy(d + static_cast<size_t>(k) * in_row, src + static_cast<size_t>(off) * es,
                          in_row);
          }
          for (int a = last - 1; a >= 0; --a) {
            if (++idx[a] < out_dims[a]) break;
            idx[a] = 0;
          }
        }
      },
      std::max<int64_t>(1, 32768 / std::max<int64_t>(out_dims[last], 1)));
}

}  // namespace amp::kernels::cpu
