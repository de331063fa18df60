// Resize's per-axis sampling tables, with the semantics of the ONNX reference
// implementation (onnx/reference/ops/op_resize.py), which generated the ONNX node tests.
// The kernel (movement_resize.cc) applies them.
//
// The interpolation is separable: output(o) = sum over taps of prod_a w_a(o_a, t_a) *
// X(idx_a(o_a, t_a)). Per axis, a table holds for each output coordinate its taps
// (clamped input index and weight) and whether it lies outside the roi (extrapolation).
// build_axis follows the reference's per-coordinate rules:
//   x_ori   = the coordinate transform of o (in double, like the reference's Python floats;
//             `output_width` there is scale * input_width, not the integer size);
//   ratio   = x_ori - floor(x_ori), or 1 when x_ori is an integer (the reference prefers
//             the left neighbours);
//   taps    = n coefficients for `ratio` (2 linear, 4 cubic, more with antialias: the
//             filter stretched by 1/scale when downsampling) on the n input indices
//             nearest to x_ori, clamped to the input (edge padding);
//   exclude_outside zeroes taps outside the input and renormalizes.
// Nearest keeps the one tap whose coefficient is 1.
//
//   const AxisSpec s = make_spec(in, out);  // then scale, roi from resolve_spec()
//   const int taps = tap_count(attrs, s.scale);
//   build_axis(attrs, s, taps, /*cap=*/taps, idx, w, extrap);  // out*taps, out*taps, out
#pragma once

#include <cstdint>

#include "amp/dtype.h"
#include "graph/ops/op_attrs.h"
#include "kernels/common/resize_plan.h"
#include "runtime/common/status.h"

namespace amp::kernels::cpu::resize {

// The validated attributes: shape inference's record (graph/ops/op_attrs.h).
using ResizeAttrs = graph::ResizeSampling;

// One axis' resize parameters (kernels/common/resize_plan.h).
using kernels::AxisSpec;

// Number of coefficients per output coordinate; grows as 1/scale with antialias.
int tap_count(const ResizeAttrs& at, double scale);

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
