// Resize's per-axis sampling tables on the CPU: for each output coordinate its taps
// (clamped input index and weight) and whether it lies outside the roi (extrapolation),
// built once per axis with the taps every backend computes (kernels/common/resize_taps.h).
// The kernel (movement_resize.cc) applies them.
//
//   const int taps = resize_tap_count(attrs, s.scale);
//   build_axis(attrs, s, taps, /*cap=*/taps, idx, w, extrap);  // out*taps, out*taps, out
#pragma once

#include <cstdint>

#include "amp/dtype.h"
#include "graph/ops/op_attrs.h"
#include "kernels/common/resize_plan.h"
#include "kernels/common/resize_taps.h"
#include "runtime/common/status.h"

namespace amp::kernels::cpu::resize {

// The validated attributes: shape inference's record (graph/ops/op_attrs.h).
using ResizeAttrs = graph::ResizeSampling;

// One axis' resize parameters (kernels/common/resize_plan.h).
using kernels::AxisSpec;

// The largest tap count build_axis handles (a bound on antialias filters).
inline constexpr int kMaxTaps = 512;

// Fills one axis' table: for each output coordinate o, `taps` (clamped input index,
// weight) pairs at idx/w + o * cap, and extrap[o] = 1 where it lies outside the roi.
void build_axis(const ResizeAttrs& at, const AxisSpec& s, int taps, int cap, int64_t* idx,
                double* w, uint8_t* extrap);

// True when the table maps every output coordinate to its own input coordinate.
bool is_identity(const AxisSpec& s, int taps, int cap, const int64_t* idx, const double* w,
                 const uint8_t* extrap);

}  // namespace amp::kernels::cpu::resize
