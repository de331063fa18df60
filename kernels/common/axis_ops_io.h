// The ops that walk lines along one axis (CumSum, TopK, Hardmax, LpNormalization): prepare()'s
// checks against the node's record, the line geometry, and the ordering rules both backends
// share (AMP_HOST_DEVICE). A line is the `len` elements at stride `inner` of X viewed as
// [outer, len, inner].
#pragma once

#include <cstdint>

#include "amp/dtype.h"
#include "graph/ops/op_attrs.h"
#include "kernels/common/index_plan.h"
#include "kernels/kernel.h"
#include "runtime/common/host_device.h"
#include "runtime/common/status.h"

namespace amp::kernels {

// The offset of line `line` (of outer * inner) of X viewed as [outer, len, inner]; its
// elements are at base + i * inner.
AMP_HOST_DEVICE int64_t axis_line_base(int64_t line, int64_t len, int64_t inner) {
  return (line / inner) * len * inner + line % inner;
}

// CumSum: X's dims, and the axis when it is a constant (else read at run, i32 or i64).
struct CumSumShape {
  int rank = 0;
  int64_t dims[kIndexMaxRank] = {};
  int64_t axis = -1;  // normalized; -1 until read at run
  DType axis_dtype = DType::kI64;
  bool exclusive = false, reverse = false;
};
Result<CumSumShape> check_cum_sum_io(const KernelConfig& cfg, DType t);

// [outer, len, inner] of X around a normalized axis.
AMP_HOST_DEVICE graph::AxisGeometry cum_sum_geometry(const CumSumShape& s, int64_t axis) {
  graph::AxisGeometry g;
  for (int k = 0; k < s.rank; ++k) {
    if (k < axis)
      g.outer *= s.dims[k];
    else if (k == axis)
      g.len = s.dims[k];
    else
      g.inner *= s.dims[k];
  }
  return g;
}

// The axis a run-time CumSum axis input names, or -1 when out of range.
AMP_HOST_DEVICE int64_t cum_sum_axis(int64_t v, int rank) {
  if (v < -rank || v >= rank) return -1;
  return v < 0 ? v + rank : v;
}

// TopK: X [outer, len, inner] -> values and indices [outer, k, inner].
struct TopKShape {
  int64_t outer = 1, len = 1, inner = 1, k = 0;
  bool largest = true;
};
Result<TopKShape> check_top_k_io(const KernelConfig& cfg, DType t);

// Whether (a, ia) comes before (b, ib) in TopK's output: by value (descending for largest,
// ascending for smallest; NaN counts as the largest value), ties by the lower index, so the
// order is total and the same on every backend.
template <typename C>
AMP_HOST_DEVICE bool top_k_before(C a, int64_t ia, C b, int64_t ib, bool largest) {
  const bool a_nan = a != a, b_nan = b != b;
  const bool gt = (a_nan && !b_nan) || (!a_nan && !b_nan && a > b);
  const bool lt = (b_nan && !a_nan) || (!a_nan && !b_nan && a < b);
  if (!gt && !lt) return ia < ib;
  return largest ? gt : lt;
}

// LpNormalization: X [outer, len, inner] normalized along len by its L1 or L2 norm.
struct LpNormShape {
  int64_t outer = 1, len = 1, inner = 1;
  int64_t p = 2;
};
Result<LpNormShape> check_lp_norm_io(const KernelConfig& cfg, DType t);

}  // namespace amp::kernels
