// Resize(X, roi?, scales?, sizes?) for every backend: prepare()'s checks against the node's
// record (graph::ResizeAttrs) and the resolution of roi and scales-or-sizes into one
// AxisSpec per axis. resolve_spec() is AMP_HOST_DEVICE: the host resolves constant
// parameters once in prepare(); parameters computed at run time are resolved where they
// live (the CPU at run, CUDA in its kernels) by the same code. The sampling tables built
// from the specs are each backend's.
//
//   AMP_ASSIGN_OR_RETURN(st_, check_resize_io(cfg));
//   if (st_.all_const) AMP_RETURN_IF_ERROR(resolve_constant_specs(cfg, st_, specs));
#pragma once

#include <cstdint>
#include <string>

#include "amp/dtype.h"
#include "graph/ops/op_attrs.h"
#include "kernels/common/element_access.h"
#include "kernels/kernel_registry.h"
#include "runtime/common/host_device.h"
#include "runtime/common/status.h"

namespace amp::kernels {

inline constexpr int kResizeMaxRank = 16;

// One axis' resize parameters. No default member initializers: CUDA kernels keep it in
// __shared__ memory, which needs a trivially constructible type (make_spec gives defaults).
struct AxisSpec {
  int64_t in, out;
  double scale;
  double roi_start, roi_end;
};

AMP_HOST_DEVICE AxisSpec make_spec(int64_t in, int64_t out) {
  AxisSpec s;
  s.in = in;
  s.out = out;
  s.scale = 1.0;
  s.roi_start = 0.0;
  s.roi_end = 1.0;
  return s;
}

// What prepare() learns about the node (trivially copyable: CUDA passes it by value).
struct ResizeStatic {
  graph::ResizeSampling at;
  int rank = 0;
  int n_axes = 0;                     // entries of scales/sizes (roi has twice as many)
  int axis_pos[kResizeMaxRank] = {};  // index into scales/sizes/roi, -1 when not resized
  int64_t in_dims[kResizeMaxRank] = {};
  int64_t out_dims[kResizeMaxRank] = {};
  bool has_roi = false, has_scales = false, has_sizes = false;
  DType roi_dtype = DType::kF32;
  DType param_dtype = DType::kF32;  // of scales (float) or sizes (i32/i64)
  bool all_const = false;           // roi and scales/sizes are constants (host only)
  int param_index() const { return has_scales ? 2 : 3; }
};

// Axis a's spec from the raw roi / scales-or-sizes buffers (host constants or device
// tensors); false for a non-positive scale or sizes that do not give the output.
AMP_HOST_DEVICE bool resolve_spec(const ResizeStatic& st, const void* roi, const void* param, int a,
                                  AxisSpec* spec) {
  AxisSpec s = make_spec(st.in_dims[a], st.out_dims[a]);
  const int i = st.axis_pos[a];
  *spec = s;
  if (i < 0) return true;
  if (roi != nullptr) {
    s.roi_start = load_as_double(roi, st.roi_dtype, i);
    s.roi_end = load_as_double(roi, st.roi_dtype, st.n_axes + i);
  }
  if (st.has_scales) {
    s.scale = load_as_double(param, st.param_dtype, i);
    // Finite: v - v is 0 exactly then (NaN for NaN and infinities), on host and device.
    if (!(s.scale > 0.0) || s.scale - s.scale != 0.0) return false;
  } else if (s.in > 0) {
    if (st.at.policy == graph::ResizeSampling::kStretch) {
      const double size = static_cast<double>(load_index(param, st.param_dtype, i));
      if (static_cast<int64_t>(size) != s.out) return false;
      s.scale = size / static_cast<double>(s.in);
    } else {
      // keep_aspect_ratio_policy: one scale for all resized axes (min or max of size/in).
      double common = 0.0;
      bool first = true;
      for (int b = 0; b < st.rank; ++b) {
        if (st.axis_pos[b] < 0 || st.in_dims[b] == 0) continue;
        const double v = static_cast<double>(load_index(param, st.param_dtype, st.axis_pos[b])) /
                         static_cast<double>(st.in_dims[b]);
        if (first || (st.at.policy == graph::ResizeSampling::kNotLarger ? v < common : v > common))
          common = v;
        first = false;
      }
      s.scale = common;
    }
    if (!(s.scale > 0.0)) s.scale = 1.0;  // empty output: nothing is sampled
  }
  *spec = s;
  return true;
}

// The checks of prepare(): X and Y of one rank (at most kResizeMaxRank) and dtype, integer
// tensors only with nearest, the axes of the record, exactly one of scales and sizes with
// an entry per axis, roi (float, two entries per axis) when given or when
// tf_crop_and_resize needs it.
Result<ResizeStatic> check_resize_io(const KernelConfig& cfg);

// Every axis' spec from constant parameters (st.all_const): invalid_model when they do not
// give the output shape.
Status resolve_constant_specs(const KernelConfig& cfg, const ResizeStatic& st, AxisSpec* specs);

// The run-time error of resolve_spec() failing on axis a.
std::string describe_resize_error(const ResizeStatic& st, int a);

}  // namespace amp::kernels
