// A pooling window as the pooling loops of both backends read it (the CPU loop in
// kernels/cpu/dnnl_pool.cc, the CUDA kernel in kernels/cuda/pool_kernels.cu): the
// resolved window of the node's record right-aligned into 3 spatial axes (leading axes
// of size 1 for 1-D / 2-D). Plain data, so device code takes it by value.
//
// The window walks themselves are here too, AMP_HOST_DEVICE, so the GPU and the CPU agree
// on every edge rule: max ignores padding; the average divides by the positions inside
// the input, or (count_include_pad) by those inside the padded input, which excludes the
// ceil_mode extension past the end pad, as ONNX Runtime does; Indices flatten per ONNX.
#pragma once

#include <cmath>
#include <cstdint>

#include "runtime/common/host_device.h"

namespace amp::graph {
struct PoolAttrs;
}

namespace amp::kernels {

struct PoolGeometry {
  int64_t planes = 0;  // N * C
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, k[3] = {1, 1, 1}, s[3] = {1, 1, 1};
  int64_t d[3] = {1, 1, 1}, pb[3] = {0, 0, 0}, pe[3] = {0, 0, 0};
  int spatial = 0;                 // real spatial axes (1..3)
  bool col_major_indices = false;  // storage_order = 1
};

// From a record whose window is resolved (kernels/common/window_op_io.h checks that).
PoolGeometry pool_geometry(const graph::PoolAttrs& a, int64_t planes);

// Flattened index of input position (z, y, x) within its plane, as ONNX's Indices
// (storage_order = 1: column-major over the real spatial axes).
AMP_HOST_DEVICE int64_t pool_plane_index(const PoolGeometry& g, int64_t z, int64_t y, int64_t x) {
  if (!g.col_major_indices) return (z * g.in[1] + y) * g.in[2] + x;
  const int64_t pos[3] = {z, y, x};
  int64_t idx = 0, stride = 1;
  for (int a = 3 - g.spatial; a < 3; ++a) {
    idx += pos[a] * stride;
    stride *= g.in[a];
  }
  return idx;
}

// Calls visit(z, y, x) for each position of output (oz, oy, ox)'s window that lies inside the
// input, in row-major order (the padding is skipped: max and Lp pooling ignore it).
template <typename Visit>
AMP_HOST_DEVICE void pool_window_taps(const PoolGeometry& g, int64_t oz, int64_t oy, int64_t ox,
                                      Visit visit) {
  for (int64_t kz = 0; kz < g.k[0]; ++kz) {
    const int64_t iz = oz * g.s[0] - g.pb[0] + kz * g.d[0];
    if (iz < 0 || iz >= g.in[0]) continue;
    for (int64_t ky = 0; ky < g.k[1]; ++ky) {
      const int64_t iy = oy * g.s[1] - g.pb[1] + ky * g.d[1];
      if (iy < 0 || iy >= g.in[1]) continue;
      for (int64_t kx = 0; kx < g.k[2]; ++kx) {
        const int64_t ix = ox * g.s[2] - g.pb[2] + kx * g.d[2];
        if (ix < 0 || ix >= g.in[2]) continue;
        visit(iz, iy, ix);
      }
    }
  }
}

// The maximum of output position (oz, oy, ox)'s window, in compute type C, starting from
// `lowest`; `load(i)` reads element i of the plane. *arg gets the plane index of its first
// occurrence (0 for a window entirely in the padding).
template <typename C, typename Load>
AMP_HOST_DEVICE C pool_window_max(const PoolGeometry& g, int64_t oz, int64_t oy, int64_t ox,
                                  C lowest, Load load, int64_t* arg) {
  C best = lowest;
  int64_t at = -1;
  pool_window_taps(g, oz, oy, ox, [&](int64_t iz, int64_t iy, int64_t ix) {
    const C v = load((iz * g.in[1] + iy) * g.in[2] + ix);
    if (at < 0 || v > best) {
      best = v;
      at = pool_plane_index(g, iz, iy, ix);
    }
  });
  *arg = at > 0 ? at : 0;
  return best;
}

// The fp32 average of output position (oz, oy, ox)'s window (NaN when it counts nothing).
template <typename Load>
AMP_HOST_DEVICE float pool_window_average(const PoolGeometry& g, bool include_pad, int64_t oz,
                                          int64_t oy, int64_t ox, Load load) {
  float sum = 0.0f;
  int64_t inside = 0, padded = 0;
  for (int64_t kz = 0; kz < g.k[0]; ++kz) {
    const int64_t iz = oz * g.s[0] - g.pb[0] + kz * g.d[0];
    if (iz >= g.in[0] + g.pe[0]) continue;  // ceil_mode extension
    const bool vz = iz >= 0 && iz < g.in[0];
    for (int64_t ky = 0; ky < g.k[1]; ++ky) {
      const int64_t iy = oy * g.s[1] - g.pb[1] + ky * g.d[1];
      if (iy >= g.in[1] + g.pe[1]) continue;
      const bool vy = vz && iy >= 0 && iy < g.in[1];
      for (int64_t kx = 0; kx < g.k[2]; ++kx) {
        const int64_t ix = ox * g.s[2] - g.pb[2] + kx * g.d[2];
        if (ix >= g.in[2] + g.pe[2]) continue;
        ++padded;
        if (!vy || ix < 0 || ix >= g.in[2]) continue;
        sum += load((iz * g.in[1] + iy) * g.in[2] + ix);
        ++inside;
      }
    }
  }
  const int64_t count = include_pad ? padded : inside;
  return count > 0 ? sum / static_cast<float>(count) : NAN;
}

// LpPool: (sum over output position (oz, oy, ox)'s window of |x|^p)^(1/p) in fp32; padding
// adds zeros, so only positions inside the input count.
template <typename Load>
AMP_HOST_DEVICE float pool_window_lp(const PoolGeometry& g, int64_t p, int64_t oz, int64_t oy,
                                     int64_t ox, Load load) {
  float sum = 0.0f;
  pool_window_taps(g, oz, oy, ox, [&](int64_t iz, int64_t iy, int64_t ix) {
    const float v = fabsf(static_cast<float>(load((iz * g.in[1] + iy) * g.in[2] + ix)));
    sum += p == 1 ? v : (p == 2 ? v * v : powf(v, static_cast<float>(p)));
  });
  return p == 1 ? sum : (p == 2 ? sqrtf(sum) : powf(sum, 1.0f / static_cast<float>(p)));
}

}  // namespace amp::kernels
