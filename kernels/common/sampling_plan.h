// The ops that sample X at computed coordinates (GridSample, RoiAlign): prepare()'s checks
// against the node's record, the plain-data plans run() reads, and the sampling itself,
// AMP_HOST_DEVICE, so the CPU loops (kernels/cpu/sampling.cc) and the CUDA kernels
// (kernels/cuda/sampling.cu) share every edge rule. The rules are those of the ONNX reference
// implementation (onnx/reference/ops/op_grid_sample.py, op_roi_align.py), which generated the
// ONNX node tests; op_roi_align.py mirrors ONNX Runtime's CPU kernel.
//
// C is the compute type: float for f32/f16/bf16, double for f64. Products whose result is
// then floored or compared are rounded separately on the GPU too (sampling_mul), so a
// coordinate on a pixel boundary picks the same pixel on both backends.
//
//   GridAxisTaps<float> taps[3];
//   grid_sample_taps(plan, grid, location, taps);
//   y = grid_sample_value(plan, taps, [&](int64_t i) { return to_compute(plane[i]); });
#pragma once

#include <cmath>
#include <cstdint>

#include "amp/dtype.h"
#include "graph/ops/op_attrs.h"
#include "kernels/common/element_access.h"
#include "kernels/kernel.h"
#include "runtime/common/host_device.h"
#include "runtime/common/status.h"

namespace amp::kernels {

// ---- Arithmetic both backends round alike ----

AMP_HOST_DEVICE float sampling_floor(float v) {
  return floorf(v);
}
AMP_HOST_DEVICE double sampling_floor(double v) {
  return floor(v);
}
AMP_HOST_DEVICE float sampling_ceil(float v) {
  return ceilf(v);
}
AMP_HOST_DEVICE double sampling_ceil(double v) {
  return ceil(v);
}
// Round half to even (std::nearbyint), as PyTorch and the reference's np.rint do.
AMP_HOST_DEVICE float sampling_round_even(float v) {
  return nearbyintf(v);
}
AMP_HOST_DEVICE double sampling_round_even(double v) {
  return nearbyint(v);
}
// a * b rounded on its own: nvcc would otherwise fuse it with a following add into one FMA.
AMP_HOST_DEVICE float sampling_mul(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
AMP_HOST_DEVICE double sampling_mul(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

// Whether the integral value n is even (exact at any magnitude: n / 2 is).
template <typename C>
AMP_HOST_DEVICE bool sampling_even(C n) {
  return sampling_floor(n / 2) * 2 == n;
}

// A coordinate as an integer index, truncated toward zero like the reference's int(). NaN and
// far-out values (no pixel is that far) become +-2^40 first, since the cast would be undefined.
template <typename C>
AMP_HOST_DEVICE int64_t sampling_index(C v) {
  const C far = static_cast<C>(int64_t{1} << 40);
  if (!(v > -far)) return -(int64_t{1} << 40);  // NaN too
  if (v > far) return int64_t{1} << 40;
  return static_cast<int64_t>(v);
}

// ---- GridSample ----

// X [N, C, D1..Dr] and grid [N, O1..Or, r] with r spatial dims, right-aligned into 3 axes
// (leading axes of size 1), so one loop nest serves 1-D to 3-D. Grid coordinate k (x, y, z)
// belongs to spatial axis 2 - k: x indexes the last one.
struct GridSamplePlan {
  int64_t batch = 0, channels = 0;
  int spatial = 0;
  int64_t in[3] = {1, 1, 1};  // X's spatial dims, right-aligned
  int64_t in_plane = 0;       // D1 * .. * Dr
  int64_t out_plane = 0;      // O1 * .. * Or
  int mode = graph::GridSampleAttrs::kLinear;
  int padding = graph::GridSampleAttrs::kZeros;
  bool align_corners = false;
  DType grid_dtype = DType::kF32;  // the grid keeps its own float type under AMP
};
Result<GridSamplePlan> check_grid_sample_io(const KernelConfig& cfg, DType t);

// The input positions one output location reads along one axis and their weights: 1 tap
// (nearest), 2 (linear) or 4 (cubic). index -1 reads 0 (zeros padding, or an empty axis).
template <typename C>
struct GridAxisTaps {
  int count = 1;
  int64_t index[4] = {0, 0, 0, 0};
  C weight[4] = {C(1), C(0), C(0), C(0)};
};

// Reflects x into [lo, hi] by its nearest border until inside (the reference's _gs_reflect).
// A single position (align_corners over a size-1 axis) reflects onto itself, where the
// reference divides by zero. Far-out values lose precision in n * range, hence the final
// clamp.
template <typename C>
AMP_HOST_DEVICE C grid_reflect(C x, C lo, C hi) {
  const C range = hi - lo;
  if (!(range > C(0))) return lo;
  C fx = x;
  if (x < lo) {
    const C dx = lo - x;
    const C n = sampling_floor(dx / range);
    const C r = dx - sampling_mul(n, range);
    fx = sampling_even(n) ? lo + r : hi - r;
  } else if (x > hi) {
    const C dx = x - hi;
    const C n = sampling_floor(dx / range);
    const C r = dx - sampling_mul(n, range);
    fx = sampling_even(n) ? hi - r : lo + r;
  }
  return fx < lo ? lo : (fx > hi ? hi : fx);
}

// The position X is read at for tap index i of an axis of `size`, by the padding mode (the
// reference's _pixel_at_array), or -1 when it reads 0.
template <typename C>
AMP_HOST_DEVICE int64_t grid_tap(const GridSamplePlan& p, int64_t size, int64_t i, C lo, C hi) {
  if (p.padding == graph::GridSampleAttrs::kBorder)
    i = i < 0 ? 0 : (i > size - 1 ? size - 1 : i);
  else if (p.padding == graph::GridSampleAttrs::kReflection)
    i = sampling_index(grid_reflect(static_cast<C>(i), lo, hi));
  return i >= 0 && i < size ? i : -1;  // zeros padding, and an empty axis in any mode
}

// Keys' cubic convolution coefficients (A = -0.75) for the 4 taps around a point at fraction
// u in [0, 1) past the second one, in the reference's evaluation order.
template <typename C>
AMP_HOST_DEVICE void grid_cubic_coeffs(C u, C* w) {
  const C A = C(-0.75);
  const C u1 = u + 1, v = 1 - u, v1 = 2 - u;
  w[0] = ((A * u1 - 5 * A) * u1 + 8 * A) * u1 - 4 * A;
  w[1] = ((A + 2) * u - (A + 3)) * u * u + 1;
  w[2] = ((A + 2) * v - (A + 3)) * v * v + 1;
  w[3] = ((A * v1 - 5 * A) * v1 + 8 * A) * v1 - 4 * A;
}

// The taps of normalized coordinate g along an axis of `size`. As the reference: denormalize;
// nearest rounds half to even; a coordinate outside [lo, hi] (the pixel-edge or pixel-centre
// bounds, by align_corners) is clamped to [0, size - 1] (border) or reflected (reflection);
// then each tap of the interpolation window goes through the padding rule (grid_tap).
template <typename C>
AMP_HOST_DEVICE GridAxisTaps<C> grid_axis_taps(const GridSamplePlan& p, int64_t size, C g) {
  const C s = static_cast<C>(size);
  C x = p.align_corners ? (g + 1) / 2 * (s - 1) : (sampling_mul(g + 1, s) - 1) / 2;
  const C lo = p.align_corners ? C(0) : C(-0.5);
  const C hi = p.align_corners ? s - 1 : s - C(0.5);
  if (p.mode == graph::GridSampleAttrs::kNearest) x = sampling_round_even(x);
  if (x < lo || x > hi) {
    if (p.padding == graph::GridSampleAttrs::kBorder)
      x = x < C(0) ? C(0) : (x > s - 1 ? s - 1 : x);
    else if (p.padding == graph::GridSampleAttrs::kReflection)
      x = grid_reflect(x, lo, hi);
  }
  GridAxisTaps<C> t;
  if (p.mode == graph::GridSampleAttrs::kNearest) {
    t.index[0] = grid_tap(p, size, sampling_index(x), lo, hi);
    return t;
  }
  const C f = sampling_floor(x);
  const int64_t x0 = sampling_index(f);
  const C u = x - f;
  if (p.mode == graph::GridSampleAttrs::kLinear) {
    t.count = 2;
    t.weight[0] = 1 - u;
    t.weight[1] = u;
    for (int k = 0; k < 2; ++k) t.index[k] = grid_tap(p, size, x0 + k, lo, hi);
  } else {
    t.count = 4;
    grid_cubic_coeffs(u, t.weight);
    for (int k = 0; k < 4; ++k) t.index[k] = grid_tap(p, size, x0 - 1 + k, lo, hi);
  }
  return t;
}

// The taps of output location `location` (n * out_plane + position) on all 3 axes, reading
// its r normalized coordinates from the grid (of p.grid_dtype).
template <typename C>
AMP_HOST_DEVICE void grid_sample_taps(const GridSamplePlan& p, const void* grid, int64_t location,
                                      GridAxisTaps<C> (&taps)[3]) {
  for (int a = 0; a < 3; ++a) {
    taps[a] = GridAxisTaps<C>();
    if (a < 3 - p.spatial) continue;
    const int64_t k = 2 - a;
    const C g = static_cast<C>(load_as_double(grid, p.grid_dtype, location * p.spatial + k));
    taps[a] = grid_axis_taps(p, p.in[a], g);
  }
}

// The sampled value: separable, the last axis first, as the reference interpolates (1-D
// along each row, then along the rows). load(i) reads element i of the (n, c) plane.
template <typename C, typename Load>
AMP_HOST_DEVICE C grid_sample_value(const GridSamplePlan& p, const GridAxisTaps<C> (&t)[3],
                                    Load load) {
  C total = C(0);
  for (int i = 0; i < t[0].count; ++i) {
    C mid = C(0);
    for (int j = 0; j < t[1].count; ++j) {
      C inner = C(0);
      for (int k = 0; k < t[2].count; ++k) {
        const int64_t z = t[0].index[i], y = t[1].index[j], x = t[2].index[k];
        const C v = z < 0 || y < 0 || x < 0 ? C(0) : C(load((z * p.in[1] + y) * p.in[2] + x));
        inner += t[2].weight[k] * v;
      }
      mid += t[1].weight[j] * inner;
    }
    total += t[0].weight[i] * mid;
  }
  return total;
}

// ---- RoiAlign ----

// X [N, C, H, W], rois [R, 4] (x1, y1, x2, y2), batch_indices [R] -> [R, C, out_h, out_w].
struct RoiAlignPlan {
  int64_t batch = 0, channels = 0, height = 0, width = 0;
  int64_t rois = 0, out_h = 1, out_w = 1;
  int64_t sampling_ratio = 0;  // 0: adaptive, ceil(box size / bins) per axis
  float spatial_scale = 1.0f;
  bool max_mode = false;
  bool half_pixel = true;
  DType rois_dtype = DType::kF32;
};
Result<RoiAlignPlan> check_roi_align_io(const KernelConfig& cfg, DType t);

// Adaptive sample counts above this are capped (only absurd boxes get there; the cast of a
// larger float would be undefined).
inline constexpr int64_t kRoiMaxGrid = int64_t{1} << 20;

// One box in X's pixel space: its first bin's corner, the bin size and the samples per bin.
template <typename C>
struct RoiBox {
  C start_h = C(0), start_w = C(0), bin_h = C(0), bin_w = C(0);
  int64_t grid_h = 0, grid_w = 0;  // <= 0: no samples, the bins are 0
};

template <typename C>
AMP_HOST_DEVICE int64_t roi_grid_count(const RoiAlignPlan& p, C bin) {
  if (p.sampling_ratio > 0) return p.sampling_ratio;
  const C g = sampling_ceil(bin);
  if (!(g > C(0))) return 0;  // NaN too
  return g > static_cast<C>(kRoiMaxGrid) ? kRoiMaxGrid : static_cast<int64_t>(g);
}

// Box r of `rois` (of p.rois_dtype): scaled by spatial_scale and, for half_pixel, shifted by
// -0.5; output_half_pixel (opset 10's only mode) forces malformed boxes to at least 1x1.
template <typename C>
AMP_HOST_DEVICE RoiBox<C> roi_box(const RoiAlignPlan& p, const void* rois, int64_t r) {
  const C scale = static_cast<C>(p.spatial_scale);
  const C offset = p.half_pixel ? C(0.5) : C(0);
  C v[4];
  for (int k = 0; k < 4; ++k)
    v[k] =
        sampling_mul(static_cast<C>(load_as_double(rois, p.rois_dtype, r * 4 + k)), scale) - offset;
  C roi_w = v[2] - v[0], roi_h = v[3] - v[1];
  if (!p.half_pixel) {
    roi_w = roi_w > C(1) ? roi_w : C(1);
    roi_h = roi_h > C(1) ? roi_h : C(1);
  }
  RoiBox<C> b;
  b.start_w = v[0];
  b.start_h = v[1];
  b.bin_h = roi_h / static_cast<C>(p.out_h);
  b.bin_w = roi_w / static_cast<C>(p.out_w);
  b.grid_h = roi_grid_count(p, b.bin_h);
  b.grid_w = roi_grid_count(p, b.bin_w);
  return b;
}

// The bilinear sample at (y, x), as ONNX Runtime: 0 beyond one pixel outside X; negative
// coordinates clamp to 0; at the last row/column both neighbours are that row/column.
// Returns the weighted values of the 4 neighbours (w1*v1 .. w4*v4) in `wv`.
template <typename C, typename Load>
AMP_HOST_DEVICE void roi_sample(const RoiAlignPlan& p, C y, C x, Load load, C* wv) {
  const C h = static_cast<C>(p.height), w = static_cast<C>(p.width);
  if (!(y >= C(-1) && y <= h && x >= C(-1) && x <= w) || p.height < 1 || p.width < 1) {
    for (int k = 0; k < 4; ++k) wv[k] = C(0);
    return;
  }
  if (y < C(0)) y = C(0);
  if (x < C(0)) x = C(0);
  int64_t y_low = static_cast<int64_t>(y), x_low = static_cast<int64_t>(x);
  int64_t y_high = y_low + 1, x_high = x_low + 1;
  if (y_low >= p.height - 1) {
    y_high = y_low = p.height - 1;
    y = static_cast<C>(y_low);
  }
  if (x_low >= p.width - 1) {
    x_high = x_low = p.width - 1;
    x = static_cast<C>(x_low);
  }
  const C ly = y - static_cast<C>(y_low), lx = x - static_cast<C>(x_low);
  const C hy = 1 - ly, hx = 1 - lx;
  wv[0] = hy * hx * C(load(y_low * p.width + x_low));
  wv[1] = hy * lx * C(load(y_low * p.width + x_high));
  wv[2] = ly * hx * C(load(y_high * p.width + x_low));
  wv[3] = ly * lx * C(load(y_high * p.width + x_high));
}

// Output bin (ph, pw) of box b: the average of its grid_h x grid_w bilinear samples, or in
// max mode the largest weighted neighbour value over all samples (ONNX Runtime's max, which
// takes max(w1*v1, .., w4*v4) per sample rather than the max of interpolated values).
// Comparisons keep the earlier value on ties and NaN, like Python's max in the reference.
template <typename C, typename Load>
AMP_HOST_DEVICE C roi_bin_value(const RoiAlignPlan& p, const RoiBox<C>& b, int64_t ph, int64_t pw,
                                Load load) {
  if (b.grid_h <= 0 || b.grid_w <= 0) return C(0);
  const C gh = static_cast<C>(b.grid_h), gw = static_cast<C>(b.grid_w);
  C acc = C(0);
  bool first = true;
  for (int64_t iy = 0; iy < b.grid_h; ++iy) {
    const C y = b.start_h + sampling_mul(static_cast<C>(ph), b.bin_h) +
                (static_cast<C>(iy) + C(0.5)) * b.bin_h / gh;
    for (int64_t ix = 0; ix < b.grid_w; ++ix) {
      const C x = b.start_w + sampling_mul(static_cast<C>(pw), b.bin_w) +
                  (static_cast<C>(ix) + C(0.5)) * b.bin_w / gw;
      C wv[4];
      roi_sample(p, y, x, load, wv);
      if (!p.max_mode) {
        acc += wv[0] + wv[1] + wv[2] + wv[3];
        continue;
      }
      C m = wv[0];
      for (int k = 1; k < 4; ++k)
        if (wv[k] > m) m = wv[k];
      if (first || m > acc) acc = m;
      first = false;
    }
  }
  return p.max_mode ? acc : acc / static_cast<C>(b.grid_h * b.grid_w);
}

}  // namespace amp::kernels
