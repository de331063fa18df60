#include "kernels/cpu/max_pool_blocked8.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "kernels/cpu/cpu_common.h"

namespace amp::kernels::cpu {
namespace {

// The window taps of output position `o` on one axis that lie inside the input: input
// positions start + j*d for j in [first, last).
struct Taps {
  int64_t first = 0, last = 0, start = 0;
};
Taps taps_on_axis(int64_t o, int64_t in, int64_t k, int64_t s, int64_t d, int64_t pb) {
  Taps t;
  t.start = o * s - pb;
  t.first = t.start >= 0 ? 0 : std::min<int64_t>(k, (-t.start + d - 1) / d);
  const int64_t past = in - t.start;  // j*d < past
  t.last = past <= 0 ? 0 : std::min<int64_t>(k, (past + d - 1) / d);
  return t;
}

// For tap kx of the innermost axis: the output columns [lo, hi) whose input column
// ox*s - pb + kx*d lies inside the input.
struct ColumnRange {
  int64_t lo = 0, hi = 0, offset = 0;  // offset: input column of output column 0
};
ColumnRange columns_of_tap(const PoolGeometry& g, int64_t kx) {
  ColumnRange r;
  r.offset = kx * g.d[2] - g.pb[2];
  const int64_t s = g.s[2];
  auto ceil_div = [](int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); };
  r.lo = std::clamp<int64_t>(ceil_div(-r.offset, s), 0, g.out[2]);
  r.hi = std::clamp<int64_t>(ceil_div(g.in[2] - r.offset, s), r.lo, g.out[2]);
  return r;
}

constexpr int64_t kBlock = 8;  // channels per block

// out = max(out, v) over one block, NaN propagating (as PyTorch's max pooling: a NaN in a
// window is its max). Always inlined: a call would run the default-ISA (SSE) copy instead of
// the caller's AVX2 / AVX-512 clone.
[[gnu::always_inline]] inline void max_into(float* __restrict__ out, const float* __restrict__ v) {
  for (int64_t c = 0; c < kBlock; ++c) out[c] = (v[c] > out[c] || v[c] != v[c]) ? v[c] : out[c];
}

// Output row (block b, oz, oy) into `row` (out[2] blocks, contiguous): the lowest float, then one
// pass over the row per window tap. Per-tap passes keep the inner loop long (a row of blocks) where
// per-output windows of 2x2 would pay their loop overhead per block.
[[gnu::always_inline]] inline void pool_row(const PoolGeometry& g, const ColumnRange* cols,
                                            const float* __restrict__ xb, int64_t oz, int64_t oy,
                                            float* __restrict__ row) {
  constexpr int64_t vec = kBlock;
  std::fill(row, row + g.out[2] * vec, std::numeric_limits<float>::lowest());
  const Taps tz = taps_on_axis(oz, g.in[0], g.k[0], g.s[0], g.d[0], g.pb[0]);
  const Taps ty = taps_on_axis(oy, g.in[1], g.k[1], g.s[1], g.d[1], g.pb[1]);
  const int64_t step = g.s[2] * vec;
  for (int64_t jz = tz.first; jz < tz.last; ++jz)
    for (int64_t jy = ty.first; jy < ty.last; ++jy) {
      const float* in_row =
          xb + ((tz.start + jz * g.d[0]) * g.in[1] + ty.start + jy * g.d[1]) * g.in[2] * vec;
      for (int64_t kx = 0; kx < g.k[2]; ++kx) {
        const ColumnRange& c = cols[kx];
        const float* v = in_row + (c.lo * g.s[2] + c.offset) * vec;
        for (int64_t ox = c.lo; ox < c.hi; ++ox, v += step) max_into(row + ox * vec, v);
      }
    }
}

// Output rows [begin, end) of all blocks; a row is (block, oz, oy). `scratch` holds one row
// when the output is plain (it is then scattered channel by channel).
AMP_ISA_CLONES void max_pool_rows(const PoolGeometry& g, const ColumnRange* cols,
                                  const float* __restrict__ x, float* __restrict__ y,
                                  float* __restrict__ scratch, int64_t begin, int64_t end) {
  constexpr int64_t vec = kBlock;
  const int64_t in_sp = g.in[0] * g.in[1] * g.in[2];
  const int64_t out_sp = g.out[0] * g.out[1] * g.out[2];
  const int64_t rows_per_block = g.out[0] * g.out[1];
  for (int64_t r = begin; r < end; ++r) {
    const int64_t b = r / rows_per_block, oz = r % rows_per_block / g.out[1], oy = r % g.out[1];
    const int64_t row_pos = (oz * g.out[1] + oy) * g.out[2];
    float* row = scratch ? scratch : y + (b * out_sp + row_pos) * vec;
    pool_row(g, cols, x + b * in_sp * vec, oz, oy, row);
    if (!scratch) continue;
    // Plain NCHW: channel c of the block is plane b * vec + c.
    for (int64_t c = 0; c < vec; ++c) {
      float* plane = y + (b * vec + c) * out_sp + row_pos;
      for (int64_t ox = 0; ox < g.out[2]; ++ox) plane[ox] = row[ox * vec + c];
    }
  }
}

}  // namespace

void max_pool_blocked8(const PoolGeometry& g, int64_t blocks, const float* x, float* y,
                       bool y_plain, int threads) {
  constexpr int64_t vec = kBlock;
  std::vector<ColumnRange> cols(static_cast<size_t>(g.k[2]));
  for (int64_t kx = 0; kx < g.k[2]; ++kx) cols[static_cast<size_t>(kx)] = columns_of_tap(g, kx);
  const int64_t rows = blocks * g.out[0] * g.out[1];
  // About 8K output floats a task: smaller pools run on the calling thread.
  const int64_t grain = std::max<int64_t>(1, 8192 / std::max<int64_t>(g.out[2] * vec, 1));
  parallel_for(
      rows, threads,
      [&](int64_t begin, int64_t end) {
        std::vector<float> scratch(y_plain ? static_cast<size_t>(g.out[2] * vec) : 0);
        max_pool_rows(g, cols.data(), x, y, y_plain ? scratch.data() : nullptr, begin, end);
      },
      grain);
}

}  // namespace amp::kernels::cpu
