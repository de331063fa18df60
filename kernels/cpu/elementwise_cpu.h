// The CPU loops of the elementwise family (kernels/cpu/elementwise_*.cc). The kernels,
// their checks and dtypes are kernels/common/elementwise_kernels.h and the family table;
// the arithmetic is common/elementwise_functors.h (shared with CUDA).
//
// Broadcasting: run() splits the output of a common BroadcastPlan (broadcast_plan.h) over
// threads (parallel_for) and walks each chunk in contiguous output rows; each row picks a
// loop specialised for strides (1, 1), (1, 0), (0, 1) that GCC vectorizes, with a general
// strided loop as the fallback. The row loops are compiled for AVX-512, AVX2 and the
// baseline and picked at load for the CPU at hand (cpu_common.h, AMP_ISA_CLONES).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/broadcast_plan.h"
#include "kernels/common/dtype_dispatch.h"
#include "kernels/common/elementwise_functors.h"
#include "kernels/common/kernel_checks.h"
#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/kernel_registry.h"

namespace amp::kernels::cpu {

// Calls fn(out_offset, count, in_offsets) for each contiguous run of output elements in
// [begin, end); input k's element j of the run is at in_offsets[k] + j * inner_stride(k).
template <typename Fn>
void for_each_row(const BroadcastPlan& p, int64_t begin, int64_t end, Fn&& fn) {
  if (begin >= end) return;
  const int last = p.rank - 1;
  std::array<int64_t, kMaxBroadcastRank> idx{};
  std::array<int64_t, kMaxBroadcastInputs> off{};
  int64_t rem = begin;
  for (int d = last; d >= 0; --d) {
    idx[d] = rem % p.dims[d];
    rem /= p.dims[d];
  }
  for (int k = 0; k < p.num_inputs; ++k)
    for (int d = 0; d <= last; ++d) off[k] += idx[d] * p.strides[k][d];
  int64_t pos = begin;
  for (;;) {
    const int64_t n = std::min(end - pos, p.dims[last] - idx[last]);
    fn(pos, n, off.data());
    pos += n;
    if (pos >= end) return;
    // The row ran to the end of the last axis: rewind it and carry into the outer axes.
    for (int k = 0; k < p.num_inputs; ++k) off[k] -= idx[last] * p.strides[k][last];
    idx[last] = 0;
    for (int d = last - 1; d >= 0; --d) {
      for (int k = 0; k < p.num_inputs; ++k) off[k] += p.strides[k][d];
      if (++idx[d] < p.dims[d]) break;
      for (int k = 0; k < p.num_inputs; ++k) off[k] -= p.dims[d] * p.strides[k][d];
      idx[d] = 0;
    }
  }
}

// out[i] = f(a[i * sa], b[i * sb]) for i < n, with the common stride pairs specialised.
// f maps raw storage values to a raw output value. Safe when out aliases a or b with the
// same stride (each element is read before it is written). Compiled per ISA (AMP_ISA_CLONES).
template <typename A, typename B, typename O, typename F>
AMP_ISA_CLONES void binary_row(const A* a, int64_t sa, const B* b, int64_t sb, O* out, int64_t n,
                               const F& fn) {
  const F f = fn;  // local_functor (below)
  if (sa == 1 && sb == 1) {
    for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], b[i]);
  } else if (sa == 1 && sb == 0) {
    const B bv = b[0];
    for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], bv);
  } else if (sa == 0 && sb == 1) {
    const A av = a[0];
    for (int64_t i = 0; i < n; ++i) out[i] = f(av, b[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = f(a[i * sa], b[i * sb]);
  }
}

// out[r * n + i] = f(a[r * n + i], v[i]) (or f(v[i], b[...]) when `vector_first`) for
// r < rows: a vector repeated on every row, such as a per-channel scale of a channels-last
// tensor. One call for all rows: with rows of a few channels, a call per row cost more
// than the arithmetic. Compiled per ISA (AMP_ISA_CLONES).
template <typename A, typename B, typename O, typename F>
AMP_ISA_CLONES void binary_row_vector(const A* a, const B* b, O* out, int64_t rows, int64_t n,
                                      bool vector_first, const F& fn) {
  const F f = fn;  // local_functor (below)
  for (int64_t r = 0; r < rows; ++r) {
    O* o = out + r * n;
    if (vector_first) {
      const B* row = b + r * n;
      for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], row[i]);
    } else {
      const A* row = a + r * n;
      for (int64_t i = 0; i < n; ++i) o[i] = f(row[i], b[i]);
    }
  }
}

// Rows of fewer elements than this take binary_row_vector when one input is a vector
// repeated over them.
inline constexpr int64_t kShortRow = 256;

// out = f(a, b) over a two-input plan, split across `threads`.
template <typename A, typename B, typename O, typename F>
void binary_loop(const BroadcastPlan& p, const A* a, const B* b, O* out, int threads, const F& f) {
  // [groups, rows, n] (merged dims; groups = 1 at rank 2) against a vector [groups, 1, n]:
  // a per-channel scale of a channels-last tensor (rank 2) or of 8-channel blocks (rank 3).
  if ((p.rank == 2 || p.rank == 3) && p.dims[p.rank - 1] < kShortRow) {
    const int r = p.rank;
    const int64_t n = p.dims[r - 1], rows = p.dims[r - 2], groups = r == 3 ? p.dims[0] : 1;
    auto dense = [&](int k) {
      return p.strides[k][r - 1] == 1 && p.strides[k][r - 2] == n &&
             (r == 2 || p.strides[k][0] == rows * n);
    };
    auto vector = [&](int k) {
      return p.strides[k][r - 1] == 1 && p.strides[k][r - 2] == 0 &&
             (r == 2 || p.strides[k][0] == n);
    };
    const bool b_vector = dense(0) && vector(1), a_vector = vector(0) && dense(1);
    if (a_vector || b_vector) {
      parallel_for(
          groups * rows, threads,
          [&](int64_t begin, int64_t end) {
            for (int64_t row = begin; row < end;) {
              const int64_t g = row / rows, stop = std::min(end, (g + 1) * rows);
              if (b_vector)
                binary_row_vector(a + row * n, b + g * n, out + row * n, stop - row, n, false, f);
              else
                binary_row_vector(a + g * n, b + row * n, out + row * n, stop - row, n, true, f);
              row = stop;
            }
          },
          std::max<int64_t>(1, 32768 / std::max<int64_t>(n, 1)));  // ~32K elements a chunk
      return;
    }
  }
  const int64_t sa = p.inner_stride(0), sb = p.inner_stride(1);
  parallel_for(p.numel, threads, [&](int64_t begin, int64_t end) {
    for_each_row(p, begin, end, [&](int64_t o, int64_t n, const int64_t* off) {
      binary_row(a + off[0], sa, b + off[1], sb, out + o, n, f);
    });
  });
}

// out[i] = f(in[i]) for i < n; in may equal out. Compiled per ISA (AMP_ISA_CLONES).
//
// local_functor: each row function works on a copy of its functor. Read through the
// reference, a functor's float parameter (LeakyRelu's alpha) may alias the float output, so
// it was loaded again after every store, inside the select, and the loop stayed scalar in
// the AVX2 clone (0.25 ms for 230K elements, 20x the vectorized loop).
template <typename I, typename O, typename F>
AMP_ISA_CLONES void unary_row(const I* in, O* out, int64_t n, const F& fn) {
  const F f = fn;  // local_functor
  for (int64_t i = 0; i < n; ++i) out[i] = f(in[i]);
}

// out[i] = f(in[i]) over n contiguous elements, split across `threads`; in may equal out.
template <typename I, typename O, typename F>
void unary_loop(const I* in, O* out, int64_t n, int threads, const F& f) {
  parallel_for(n, threads, [&](int64_t begin, int64_t end) {
    unary_row(in + begin, out + begin, end - begin, f);
  });
}

}  // namespace amp::kernels::cpu
