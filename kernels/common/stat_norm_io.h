// The normalizations by statistics that both backends compute alike: GroupNormalization,
// MeanVarianceNormalization and LRN. prepare()'s checks against the node's record, and the
// plain-data shapes the CPU loops and CUDA kernels read (AMP_HOST_DEVICE helpers). Means and
// variances accumulate in double on both backends (one pass of sum and sum of squares over
// values whose magnitude the fp32 input bounds).
#pragma once

#include <cstdint>

#include "amp/dtype.h"
#include "kernels/common/index_plan.h"
#include "kernels/kernel.h"
#include "runtime/common/host_device.h"
#include "runtime/common/status.h"

namespace amp::kernels {

// GroupNormalization: X [n, c, spatial], groups of c / groups channels; group (b, g) is the
// contiguous block of channels_per_group * spatial elements at (b * c + g * cpg) * spatial.
struct GroupNormShape {
  int64_t n = 0, c = 0, spatial = 1, groups = 1;
  float epsilon = 1e-5f;
  bool scale_per_group = false;
};
Result<GroupNormShape> check_group_norm_io(const KernelConfig& cfg, DType t);

// MeanVarianceNormalization: statistics per "slot", the element's coordinates on the axes
// not normalized; (X - mean) / (sqrt(E[X^2] - mean^2) + 1e-9), as ONNX's function body.
struct MvnShape {
  int rank = 0;
  int64_t dims[kIndexMaxRank] = {};
  bool reduced[kIndexMaxRank] = {};
  int64_t numel = 0, slots = 1, per_slot = 1;
};
Result<MvnShape> check_mvn_io(const KernelConfig& cfg, DType t);

inline constexpr double kMvnEpsilon = 1e-9;

// The slot of element e (row-major over dims).
AMP_HOST_DEVICE int64_t mvn_slot(const MvnShape& s, int64_t e) {
  int64_t slot = 0, scale = 1;
  for (int k = s.rank - 1; k >= 0; --k) {
    const int64_t c = e % s.dims[k];
    e /= s.dims[k];
    if (!s.reduced[k]) {
      slot += c * scale;
      scale *= s.dims[k];
    }
  }
  return slot;
}

// The offset of the j-th element (row-major over the normalized axes) of slot `slot`.
AMP_HOST_DEVICE int64_t mvn_element(const MvnShape& s, int64_t slot, int64_t j) {
  int64_t off = 0, stride = 1;
  for (int k = s.rank - 1; k >= 0; --k) {
    int64_t& from = s.reduced[k] ? j : slot;
    off += (from % s.dims[k]) * stride;
    from /= s.dims[k];
    stride *= s.dims[k];
  }
  return off;
}

// LRN across channels of X [n, c, spatial]: channel ch sums squares over
// [ch - (size - 1) / 2, ch + size / 2] within [0, c).
struct LrnShape {
  int64_t n = 0, c = 0, spatial = 1, size = 1;
  float alpha = 1e-4f, beta = 0.75f, bias = 1.0f;
};
Result<LrnShape> check_lrn_io(const KernelConfig& cfg, DType t);

AMP_HOST_DEVICE int64_t lrn_first(const LrnShape& s, int64_t ch) {
  const int64_t f = ch - (s.size - 1) / 2;
  return f < 0 ? 0 : f;
}
AMP_HOST_DEVICE int64_t lrn_last(const LrnShape& s, int64_t ch) {
  const int64_t l = ch + s.size / 2;
  return l >= s.c ? s.c - 1 : l;
}

}  // namespace amp::kernels
