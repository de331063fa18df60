#include "kernels/cpu/movement_resize.h"

#include <algorithm>
#include <cmath>

#include "runtime/common/half.h"

namespace amp::kernels::cpu::resize {
namespace {

// The reference's cubic convolution kernel (Keys, parameter A) at distance x.
double cubic_kernel(double x, double A) {
  x = std::fabs(x);
  if (x <= 1) return ((A + 2) * x - (A + 3)) * x * x + 1;
  if (x < 2) return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;
  return 0.0;
}

// The first of the n (even) input indices the reference interpolates from: the n integers
// nearest to x_ori, ties to the smaller, searched in the input edge-padded by n/2 on each
// side (op_resize.py's _get_neighbor). Like the reference, the distances are taken from
// the padded coordinate x_ori + n/2 in floating point, so a coordinate within rounding of
// an integer is decided the way the reference decides it.
int64_t neighbor_window(double x_ori, int n, int64_t in) {
  const int64_t pad = n / 2;
  // Far-outside coordinates land on the padded border anyway; bound them before the cast.
  const double xp = std::clamp(x_ori + static_cast<double>(pad), -1e15, 1e15);
  const double f = std::floor(xp);
  int64_t lo = static_cast<int64_t>(f) - pad + (f == xp ? 0 : 1);
  lo = std::clamp<int64_t>(lo, 0, in + 2 * pad - n);  // inside the padded range
  return lo - pad;
}

}  // namespace

int tap_count(const ResizeAttrs& at, double scale) {
  switch (at.mode) {
    case ResizeAttrs::kNearest:
      return 1;
    case ResizeAttrs::kLinear: {
      if (!at.antialias) return 2;
      const double s = std::min(scale, 1.0);
      const int64_t start = static_cast<int64_t>(std::floor(-1.0 / s)) + 1;
      return static_cast<int>(2 - 2 * start);
    }
    case ResizeAttrs::kCubic: {
      if (!at.antialias) return 4;
      const double s = std::min(scale, 1.0);
      const int64_t start = static_cast<int64_t>(std::floor(-2.0 / s)) + 1;
      return static_cast<int>(2 - 2 * start);
    }
  }
  return 1;
}

void build_axis(const ResizeAttrs& at, const AxisSpec& s, int taps, int cap, int64_t* idx,
                double* w, uint8_t* extrap) {
  const double in_w = static_cast<double>(s.in);
  const double out_w = s.scale * in_w;  // the reference's float output width
  double coeffs[kMaxTaps];              // taps <= cap <= kMaxTaps, checked in prepare()
  for (int64_t o = 0; o < s.out; ++o) {
    const double x = static_cast<double>(o);
    double x_ori = 0.0;
    bool outside = false;
    switch (at.coord) {
      case ResizeAttrs::kAlignCorners:
        x_ori = out_w == 1.0 ? 0.0 : x * (in_w - 1) / (out_w - 1);
        break;
      case ResizeAttrs::kAsymmetric:
        x_ori = x / s.scale;
        break;
      case ResizeAttrs::kTfCropAndResize:
        x_ori = out_w == 1.0 ? (s.roi_end - s.roi_start) * (in_w - 1) / 2
                             : x * (s.roi_end - s.roi_start) * (in_w - 1) / (out_w - 1);
        x_ori += s.roi_start * (in_w - 1);
        outside = x_ori < 0 || x_ori > in_w - 1;
        break;
      case ResizeAttrs::kPytorchHalfPixel:
        x_ori = out_w == 1.0 ? -0.5 : (x + 0.5) / s.scale - 0.5;
        break;
      case ResizeAttrs::kHalfPixel:
        x_ori = (x + 0.5) / s.scale - 0.5;
        break;
      case ResizeAttrs::kHalfPixelSymmetric: {
        const double adjustment = static_cast<double>(s.out) / out_w;
        const double offset = in_w / 2 * (1 - adjustment);
        x_ori = offset + (x + 0.5) / s.scale - 0.5;
        break;
      }
    }
    int64_t* oi = idx + o * cap;
    double* ow = w + o * cap;
    extrap[o] = outside ? 1 : 0;
    if (outside || !std::isfinite(x_ori)) {
      for (int t = 0; t < taps; ++t) {
        oi[t] = 0;
        ow[t] = 0.0;
      }
      extrap[o] = 1;
      continue;
    }
    const double fl = std::floor(x_ori);
    const double ratio = fl == x_ori ? 1.0 : x_ori - fl;
    const int n = at.mode == ResizeAttrs::kNearest ? 2 : taps;  // nearest: 2 coefficients
    const int64_t lo = neighbor_window(x_ori, n, s.in);

    if (at.mode == ResizeAttrs::kNearest) {
      bool right = true;  // integer x_ori: coefficients [0, 1]
      if (ratio != 1.0) {
        switch (at.nearest) {
          case ResizeAttrs::kRoundPreferFloor:
            right = ratio > 0.5;
            break;
          case ResizeAttrs::kRoundPreferCeil:
            right = ratio >= 0.5;
            break;
          case ResizeAttrs::kFloor:
            right = false;
            break;
          case ResizeAttrs::kCeil:
            right = true;
            break;
        }
      }
      oi[0] = std::clamp<int64_t>(right ? lo + 1 : lo, 0, s.in - 1);
      ow[0] = 1.0;
      continue;
    }

    // Coefficients for window points lo .. lo + n - 1, i.e. offsets first .. from the
    // point left of x_ori.
    const int64_t first = 1 - n / 2;
    if (at.mode == ResizeAttrs::kLinear && !at.antialias) {
      coeffs[0] = 1 - ratio;
      coeffs[1] = ratio;
    } else if (at.mode == ResizeAttrs::kCubic && !at.antialias) {
      for (int t = 0; t < 4; ++t)
        coeffs[t] = cubic_kernel(static_cast<double>(first + t) - ratio, at.cubic_a);
    } else {
      const double sc = std::min(s.scale, 1.0);
      double sum = 0.0;
      for (int t = 0; t < n; ++t) {
        const double arg = (static_cast<double>(first + t) - ratio) * sc;
        coeffs[t] = at.mode == ResizeAttrs::kLinear ? std::clamp(1 - std::fabs(arg), 0.0, 1.0)
                                                    : cubic_kernel(arg, at.cubic_a);
        sum += coeffs[t];
      }
      for (int t = 0; t < n; ++t) coeffs[t] /= sum;
    }
    if (at.exclude_outside) {
      double sum = 0.0;
      for (int t = 0; t < n; ++t) {
        const int64_t p = lo + t;
        if (p < 0 || p >= s.in) coeffs[t] = 0.0;
        sum += coeffs[t];
      }
      if (sum != 0.0)
        for (int t = 0; t < n; ++t) coeffs[t] /= sum;
    }
    for (int t = 0; t < n; ++t) {
      oi[t] = std::clamp<int64_t>(lo + t, 0, s.in - 1);
      ow[t] = coeffs[t];
    }
  }
}

bool is_identity(const AxisSpec& s, int taps, int cap, const int64_t* idx, const double* w,
                 const uint8_t* extrap) {
  if (s.in != s.out) return false;
  for (int64_t o = 0; o < s.out; ++o) {
    if (extrap[o]) return false;
    for (int t = 0; t < taps; ++t) {
      const double wt = w[o * cap + t];
      if (wt != 0.0 && (wt != 1.0 || idx[o * cap + t] != o)) return false;
    }
  }
  return true;
}
}  // namespace amp::kernels::cpu::resize
