// RotaryEmbedding's prepare() for every backend and the per-element rule both loops share.
//
// For each head row (b, h, s) of the input ([B, H, S, D] or [B, S, H * D]): element d of the
// first R = rotary_dim rotates with its pair partner by the cache row of position s (or of
// position_ids[b, s]), the rest is copied:
//   first of a pair:  out = cos[k] * x[i1] - sin[k] * x[i2]
//   second:           out = sin[k] * x[i1] + cos[k] * x[i2]
// where the pairs are (k, k + R/2) (halves) or (2k, 2k + 1) (interleaved). fp32 arithmetic
// (f64 for f64).
#pragma once

#include <cstdint>

#include "kernels/common/head_layout.h"
#include "kernels/kernel_registry.h"
#include "runtime/common/host_device.h"
#include "runtime/common/status.h"

namespace amp::kernels {

struct RotaryPlan {
  int64_t batch = 0, seq = 0, heads = 0, head_size = 0, rotary_dim = 0;
  bool interleaved = false;
  bool has_positions = false;
  int64_t cache_rows = 0;  // rows of cos/sin (positions must be below it)
  HeadStrides x;           // input and output (same layout)
};

Result<RotaryPlan> check_rotary_io(const KernelConfig& cfg);

// For element d < rotary_dim of a head: the pair's elements i1 and i2, the cache column k,
// and whether d is the pair's first (real) part.
AMP_HOST_DEVICE bool rotary_pair(const RotaryPlan& p, int64_t d, int64_t* i1, int64_t* i2,
                                 int64_t* k) {
  const int64_t half = p.rotary_dim / 2;
  if (p.interleaved) {
    *k = d / 2;
    *i1 = 2 * *k;
    *i2 = *i1 + 1;
    return d % 2 == 0;
  }
  *k = d % half;
  *i1 = *k;
  *i2 = *k + half;
  return d < half;
}

// The cache row of (b, s), or -1 when its position is out of the cache.
AMP_HOST_DEVICE int64_t rotary_cache_row(const RotaryPlan& p, const int64_t* positions, int64_t b,
                                         int64_t s) {
  if (!p.has_positions) return b * p.seq + s;
  const int64_t row = positions[b * p.seq + s];
  return row >= 0 && row < p.cache_rows ? row : -1;
}

}  // namespace amp::kernels
