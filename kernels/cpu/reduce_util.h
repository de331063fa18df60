// Helpers shared by the CPU reduction family (reduce_*.cc, norm_*.cc, softmax.cc): the
// compute type of each storage type, loads/stores through it, a lane-parallel pairwise
// reduction of contiguous runs, the collapsed iteration plan of a multi-axis reduction,
// and per-channel parameter loads for the normalizations.
//
// Compute types (the numerical contract, ARCHITECTURE.md): f32/f16/bf16 -> float, f64 ->
// double, integers and bool -> int64_t. Results are rounded once, on store.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "amp/dtype.h"
#include "graph/ir/graph.h"
#include "kernels/common/element_access.h"
#include "kernels/common/kernel_checks.h"
#include "kernels/common/reduce_plan.h"
#include "kernels/common/reduction_types.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/kernel_registry.h"
#include "runtime/common/half.h"
#include "runtime/common/status.h"

namespace amp::kernels::cpu {

// Storage types and their compute types: common/reduction_types.h.
using reduction::compute_t;
using reduction::ComputeOf;
using reduction::dtype_of;
using reduction::highest_of;
using reduction::lowest_of;

// Storage -> compute type. Exact for every pair used here.
inline float to_compute(float v) {
  return v;
}
inline float to_compute(Half v) {
  return static_cast<float>(v);
}
inline float to_compute(BFloat16 v) {
  return static_cast<float>(v);
}
inline double to_compute(double v) {
  return v;
}
inline int64_t to_compute(int8_t v) {
  return v;
}
inline int64_t to_compute(uint8_t v) {
  return v;
}
inline int64_t to_compute(int32_t v) {
  return v;
}
inline int64_t to_compute(int64_t v) {
  return v;
}
inline int64_t to_compute(ew::Bool v) {
  return v.v;
}

// Compute -> storage type, rounding to nearest even once for f16/bf16. Integer sums wrap
// modulo 2^bits like the storage type would.
template <typename T>
inline T from_compute(compute_t<T> v) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
    return T(v);
  } else if constexpr (std::is_same_v<T, ew::Bool>) {
    return ew::Bool{static_cast<uint8_t>(v != 0)};
  } else {
    return static_cast<T>(v);
  }
}

// Reduces load(i) for i in [begin, end) with `op` (associative; the identity `init`):
// eight independent lanes over blocks of at most 256 elements (GCC vectorizes the lane
// loop), and pairwise recursion above that, so a sum's rounding error grows like
// O(log n) rather than O(n).
template <typename C, typename Op, typename Load>
C tree_reduce(int64_t begin, int64_t end, C init, Op op, Load load) {
  const int64_t n = end - begin;
  if (n > 256) {
    const int64_t mid = begin + ((n / 2) & ~int64_t{7});
    return op(tree_reduce<C>(begin, mid, init, op, load), tree_reduce<C>(mid, end, init, op, load));
  }
  C lane[8];
  for (int l = 0; l < 8; ++l) lane[l] = init;
  int64_t i = begin;
  for (; i + 8 <= end; i += 8)
    for (int l = 0; l < 8; ++l) lane[l] = op(lane[l], load(i + l));
  C tail = init;
  for (; i < end; ++i) tail = op(tail, load(i));
  const C a = op(op(lane[0], lane[1]), op(lane[2], lane[3]));
  const C b = op(op(lane[4], lane[5]), op(lane[6], lane[7]));
  return op(op(a, b), tail);
}

// tree_reduce for `k` <= kColumns columns at once: out[c] is, bit for bit, what
// tree_reduce(begin, end, init, op, [c](i) { return load(i, c); }) gives (the same lanes,
// blocks and pairing per column), with the column loop innermost, so that a strided
// layout (channels-last: the channels of one position are adjacent) is read row by row.
inline constexpr int64_t kColumns = 64;
template <typename C, typename Op, typename Load>
void tree_reduce_columns(int64_t begin, int64_t end, int64_t k, C init, Op op, Load load, C* out) {
  const int64_t n = end - begin;
  if (n > 256) {
    const int64_t mid = begin + ((n / 2) & ~int64_t{7});
    C right[kColumns];
    tree_reduce_columns<C>(begin, mid, k, init, op, load, out);
    tree_reduce_columns<C>(mid, end, k, init, op, load, right);
    for (int64_t c = 0; c < k; ++c) out[c] = op(out[c], right[c]);
    return;
  }
  C lane[8][kColumns];
  C tail[kColumns];
  for (int64_t c = 0; c < k; ++c) {
    tail[c] = init;
    for (int l = 0; l < 8; ++l) lane[l][c] = init;
  }
  int64_t i = begin;
  for (; i + 8 <= end; i += 8)
    for (int l = 0; l < 8; ++l)
      for (int64_t c = 0; c < k; ++c) lane[l][c] = op(lane[l][c], load(i + l, c));
  for (; i < end; ++i)
    for (int64_t c = 0; c < k; ++c) tail[c] = op(tail[c], load(i, c));
  for (int64_t c = 0; c < k; ++c) {
    const C a = op(op(lane[0][c], lane[1][c]), op(lane[2][c], lane[3][c]));
    const C b = op(op(lane[4][c], lane[5][c]), op(lane[6][c], lane[7][c]));
    out[c] = op(op(a, b), tail[c]);
  }
}

// Tensors of higher rank are rejected in prepare (no real model comes close).
inline constexpr int kMaxRank = kReduceMaxRank;
// Columns per tile when the innermost dim is not reduced: per-column accumulators live on
// the stack (no workspace), and 256 fp32 values fit comfortably in L1.
inline constexpr int64_t kTile = 256;

// The input offset of the index-th element of a row-major space `dims` with `strides`.
inline int64_t offset_of(int64_t index, const int64_t* dims, const int64_t* strides, int n) {
  int64_t off = 0;
  for (int d = n - 1; d >= 0; --d) {
    off += (index % dims[d]) * strides[d];
    index /= dims[d];
  }
  return off;
}

// Chunk size for parallel_for so one chunk covers ~32K input elements of work.
inline int64_t grain_for(int64_t work_per_item) {
  return std::max<int64_t>(1, 32768 / std::max<int64_t>(1, work_per_item));
}

// (Element i of a parameter tensor of another dtype than X: load_as_double,
// kernels/common/element_access.h.)
// Stores v into element i of a float tensor (f32/f16/bf16/f64), rounding once.
void store_from_double(void* data, DType dtype, int64_t i, double v);

}  // namespace amp::kernels::cpu
