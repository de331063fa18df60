// Resize's per-axis sampling taps for every backend, with the semantics of the ONNX reference
// implementation (onnx/reference/ops/op_resize.py), which generated the ONNX node tests.
// AMP_HOST_DEVICE: the CPU builds its tables with these functions, the CUDA kernels call them
// per output coordinate, so both sample alike.
//
// The interpolation is separable: output(o) = sum over taps of prod_a w_a(o_a, t_a) *
// X(idx_a(o_a, t_a)). Per axis and output coordinate o (resize_axis_taps):
//   x_ori   = the coordinate transform of o (in double, like the reference's Python floats;
//             `output_width` there is scale * input_width, not the integer size);
//   ratio   = x_ori - floor(x_ori), or 1 when x_ori is an integer (the reference prefers
//             the left neighbours);
//   taps    = n coefficients for `ratio` (2 linear, 4 cubic, more with antialias: the
//             filter stretched by 1/scale when downsampling) on the n input indices
//             nearest to x_ori, clamped to the input (edge padding);
//   exclude_outside zeroes taps outside the input and renormalizes.
// Nearest keeps the one tap whose coefficient is 1.
#pragma once

#include <cmath>
#include <cstdint>

#include "graph/ops/op_attrs.h"
#include "kernels/common/element_access.h"
#include "kernels/common/resize_plan.h"
#include "runtime/common/host_device.h"

namespace amp::kernels {

// Finite: v - v is 0 exactly then (NaN for NaN and infinities), on host and device.
AMP_HOST_DEVICE bool resize_finite(double v) {
  return v - v == 0.0;
}

// A product and a sum rounded separately, as on the CPU: nvcc would otherwise contract
// a * b + c into one FMA (also across statements), and a last-bit change of a source
// coordinate can flip floor() and pick another pixel.
AMP_HOST_DEVICE double resize_mul_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
AMP_HOST_DEVICE double resize_add_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}

// The reference's cubic convolution kernel (Keys, parameter A) at distance x.
AMP_HOST_DEVICE double resize_cubic_kernel(double x, double A) {
  x = fabs(x);
  if (x <= 1) return ((A + 2) * x - (A + 3)) * x * x + 1;
  if (x < 2) return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;
  return 0.0;
}

// The first of the n (even) input indices the reference interpolates from: the n integers
// nearest to x_ori, ties to the smaller, searched in the input edge-padded by n/2 on each
// side (op_resize.py's _get_neighbor). Like the reference, the distances are
// taken from the padded coordinate x_ori + n/2 in floating point, so a coordinate within
// rounding of an integer is decided the way the reference decides it.
AMP_HOST_DEVICE int64_t resize_neighbor_window(double x_ori, int n, int64_t in) {
  const int64_t pad = n / 2;
  // Far-outside coordinates land on the padded border anyway; bound them before the cast.
  double xp = x_ori + static_cast<double>(pad);
  xp = xp < -1e15 ? -1e15 : (xp > 1e15 ? 1e15 : xp);
  const double f = floor(xp);
  int64_t lo = static_cast<int64_t>(f) - pad + (f == xp ? 0 : 1);
  lo = clamp_index(lo, 0, in + 2 * pad - n);  // inside the padded range
  return lo - pad;
}

// Number of coefficients per output coordinate. A scale that is not a positive finite number
// (only possible with run-time parameters) counts as 1; huge counts saturate at 1 << 20.
AMP_HOST_DEVICE int resize_tap_count(const graph::ResizeSampling& at, double scale) {
  if (at.mode == graph::ResizeSampling::kNearest) return 1;
  if (!at.antialias) return at.mode == graph::ResizeSampling::kLinear ? 2 : 4;
  if (!(scale > 0.0) || !resize_finite(scale)) scale = 1.0;
  const double s = scale < 1.0 ? scale : 1.0;
  const double start = floor((at.mode == graph::ResizeSampling::kLinear ? -1.0 : -2.0) / s) + 1;
  const double n = 2 - 2 * start;
  return n > 1048576.0 ? 1048576 : static_cast<int>(n);
}

// The taps of output coordinate o on one axis: writes `taps` clamped input indices and weights, and
// whether o lies outside the roi (tf_crop_and_resize) or its source coordinate is not finite (then
// weights are 0).
AMP_HOST_DEVICE void resize_axis_taps(const graph::ResizeSampling& at, const AxisSpec& s, int taps,
                                      int64_t o, int64_t* idx, double* w, bool* extrap) {
  const double in_w = static_cast<double>(s.in);
  const double out_w = resize_mul_rn(s.scale, in_w);  // the reference's float output width
  const double x = static_cast<double>(o);
  double x_ori = 0.0;
  bool outside = false;
  switch (at.coord) {
    case graph::ResizeSampling::kAlignCorners:
      x_ori = out_w == 1.0 ? 0.0 : x * (in_w - 1) / (out_w - 1);
      break;
    case graph::ResizeSampling::kAsymmetric:
      x_ori = x / s.scale;
      break;
    case graph::ResizeSampling::kTfCropAndResize:
      x_ori = out_w == 1.0 ? (s.roi_end - s.roi_start) * (in_w - 1) / 2
                           : x * (s.roi_end - s.roi_start) * (in_w - 1) / (out_w - 1);
      x_ori = resize_add_rn(x_ori, resize_mul_rn(s.roi_start, in_w - 1));
      outside = x_ori < 0 || x_ori > in_w - 1;
      break;
    case graph::ResizeSampling::kPytorchHalfPixel:
      x_ori = out_w == 1.0 ? -0.5 : (x + 0.5) / s.scale - 0.5;
      break;
    case graph::ResizeSampling::kHalfPixel:
      x_ori = (x + 0.5) / s.scale - 0.5;
      break;
    case graph::ResizeSampling::kHalfPixelSymmetric:
    default: {
      const double adjustment = static_cast<double>(s.out) / out_w;
      const double offset = resize_mul_rn(in_w / 2, 1 - adjustment);
      x_ori = offset + (x + 0.5) / s.scale - 0.5;
      break;
    }
  }
  *extrap = outside;
  if (outside || !resize_finite(x_ori)) {
    for (int t = 0; t < taps; ++t) {
      idx[t] = 0;
      w[t] = 0.0;
    }
    *extrap = true;
    return;
  }
  const double fl = floor(x_ori);
  const double ratio = fl == x_ori ? 1.0 : x_ori - fl;
  const int n = at.mode == graph::ResizeSampling::kNearest ? 2 : taps;  // nearest: 2 coefficients
  const int64_t lo = resize_neighbor_window(x_ori, n, s.in);

  if (at.mode == graph::ResizeSampling::kNearest) {
    bool right = true;  // integer x_ori: coefficients [0, 1]
    if (ratio != 1.0) {
      switch (at.nearest) {
        case graph::ResizeSampling::kRoundPreferFloor:
          right = ratio > 0.5;
          break;
        case graph::ResizeSampling::kRoundPreferCeil:
          right = ratio >= 0.5;
          break;
        case graph::ResizeSampling::kFloor:
          right = false;
          break;
        case graph::ResizeSampling::kCeil:
        default:
          right = true;
          break;
      }
    }
    idx[0] = clamp_index(right ? lo + 1 : lo, 0, s.in - 1);
    w[0] = 1.0;
    return;
  }

  // Coefficients for window points lo .. lo + n - 1, i.e. offsets first .. from the point
  // left of x_ori.
  const int64_t first = 1 - n / 2;
  if (at.mode == graph::ResizeSampling::kLinear && !at.antialias) {
    w[0] = 1 - ratio;
    w[1] = ratio;
  } else if (at.mode == graph::ResizeSampling::kCubic && !at.antialias) {
    for (int t = 0; t < 4; ++t)
      w[t] = resize_cubic_kernel(static_cast<double>(first + t) - ratio, at.cubic_a);
  } else {
    const double sc = s.scale < 1.0 ? s.scale : 1.0;
    double sum = 0.0;
    for (int t = 0; t < n; ++t) {
      const double arg = (static_cast<double>(first + t) - ratio) * sc;
      double c;
      if (at.mode == graph::ResizeSampling::kLinear) {
        c = 1 - fabs(arg);
        c = c < 0.0 ? 0.0 : (c > 1.0 ? 1.0 : c);
      } else {
        c = resize_cubic_kernel(arg, at.cubic_a);
      }
      w[t] = c;
      sum += c;
    }
    for (int t = 0; t < n; ++t) w[t] /= sum;
  }
  if (at.exclude_outside) {
    double sum = 0.0;
    for (int t = 0; t < n; ++t) {
      const int64_t p = lo + t;
      if (p < 0 || p >= s.in) w[t] = 0.0;
      sum += w[t];
    }
    if (sum != 0.0)
      for (int t = 0; t < n; ++t) w[t] /= sum;
  }
  for (int t = 0; t < n; ++t) idx[t] = clamp_index(lo + t, 0, s.in - 1);
}

}  // namespace amp::kernels
