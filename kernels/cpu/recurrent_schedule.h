// How the packed recurrent path (recurrent_packed.h) spreads one layer's sequences over the
// threads of a run: which batch entries step together, how many threads each group gets and
// how many groups run at once. A pure function of the layer's sizes, the thread count and
// the L2 cache, so tests/kernels/cpu/recurrent_schedule_test.cc checks its choices directly.
//
// Why: every step streams a direction's R (G H^2 floats: 1 MiB for an LSTM of 256 units,
// 4 MiB at 512) through the cores that step it, and one step's product is too small to
// hide where it comes from. Measured as AVX2-only on an Intel Xeon (model 167, 2 cores,
// 2 MiB L2 each, ONNX Runtime 1.32 alongside), two threads:
//   - a bidirectional LSTM-512 at batch 1 (2 layers, 200 steps) ran a direction per thread,
//     each streaming its 4 MiB R from L3 every step: 70.5 ms, ONNX Runtime 43.1. Both
//     threads on one direction at a time, each holding half of R in its own L2: 41.3 ms
//     (ONNX Runtime 44.8 in that run).
//   - an LSTM-256 at batch 8 (100 steps) split its units between two threads, which meet at
//     a barrier every step: 4.2 ms, ONNX Runtime 3.1. Two groups of 4 rows, one a thread,
//     each with R in its own L2 and no barrier: 3.2 ms (ONNX Runtime 2.9).
//
// Algorithm, for D directions, a batch of B, T threads and R's bytes per direction:
//   1. Rows. Without lockstep (entries of different lengths) every (direction, entry) is a
//      group of one row. With it, a direction's entries form one group, cut into
//      S = min(T / D, B / kMinRows) groups of B / S rows (as even as can be) when R fits in
//      kL2Share of one core's L2 and S > 1: a group of rows then needs no barrier, and
//      each of its threads keeps the whole R in its own L2. Fewer than kMinRows rows a group
//      would leave the products' strips waiting on FMA latency (gemm_strip_avx2.h).
//   2. Concurrency. When R does not fit in kL2Share of L2 and there are threads to share,
//      the groups run one after another, each with every thread in its team (up to one a
//      block of units), so each thread's slice of R may stay in its L2; else the groups
//      run at once, min(groups, T) of them, and threads beyond one a group join teams.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>

#include "kernels/cpu/cache_size.h"

namespace amp::kernels::cpu {

struct RecurrentSchedule {
  int64_t per_direction = 1;  // groups of each direction; group g has direction g / per_direction
  int64_t groups = 1;         // in all: directions * per_direction
  int64_t team = 1;           // threads that step one group together
  int64_t concurrent = 1;     // groups run at once (groups run in waves of this many)

  // Batch entries [first, second) of group g, for a batch of `batch`.
  std::pair<int64_t, int64_t> entries(int64_t g, int64_t batch) const {
    const int64_t i = g % per_direction;
    return {batch * i / per_direction, batch * (i + 1) / per_direction};
  }
  int64_t direction(int64_t g) const { return g / per_direction; }
};

struct RecurrentLayerSize {
  int64_t directions = 1;
  int64_t batch = 1;
  bool lockstep = false;    // every entry runs the same number of steps
  int64_t unit_blocks = 1;  // the most threads a team can use
  int64_t r_bytes = 0;      // R's bytes per direction, as the products read it
};

inline constexpr int64_t kMinRows = 4;
// R "fits" in this share of one core's L2: the input projection's panels and the gates'
// rows pass through it too.
inline constexpr double kL2Share = 0.75;

inline RecurrentSchedule schedule_recurrence(const RecurrentLayerSize& s, int64_t threads,
                                             int64_t l2_bytes) {
  RecurrentSchedule out;
  threads = std::max<int64_t>(1, threads);
  const bool fits_l2 = static_cast<double>(s.r_bytes) <= kL2Share * static_cast<double>(l2_bytes);
  if (!s.lockstep) {
    out.per_direction = s.batch;
  } else if (fits_l2) {
    out.per_direction = std::max<int64_t>(1, std::min(threads / s.directions, s.batch / kMinRows));
  }
  out.groups = s.directions * out.per_direction;
  if (!fits_l2 && threads > 1 && s.unit_blocks > 1) {
    out.concurrent = 1;
    out.team = std::min(threads, s.unit_blocks);
  } else {
    out.concurrent = std::min(out.groups, threads);
    out.team = out.groups >= threads ? 1 : std::min(threads / out.groups, s.unit_blocks);
  }
  return out;
}

}  // namespace amp::kernels::cpu
