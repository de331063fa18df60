#include "kernels/cpu/conv_transpose_tiled.h"

#include <algorithm>
#include <cstring>

#include "kernels/cpu/cpu_common.h"

namespace amp::kernels::cpu {
namespace {

using Geometry = DepthToSpace::Geometry;

// Copies one run of L floats; L fixed at compile time (1, 8) or given (channels-last).
template <int64_t L>
[[gnu::always_inline]] inline void copy_run(const float* s, float* d, int64_t len) {
  if constexpr (L > 0) {
    for (int64_t i = 0; i < L; ++i) d[i] = s[i];
  } else {
    std::memcpy(d, s, static_cast<size_t>(len) * sizeof(float));
  }
}

// Output rows [begin, end): a row is (n, run q, Z, Y); along it X = x kw + j reads source
// position (z, y, x) of window position t = (a kh + i) kw + j.
template <int64_t L>
AMP_ISA_CLONES void rows(const Geometry& g, const float* __restrict__ pixels,
                         float* __restrict__ out, int64_t begin, int64_t end) {
  const int64_t kd = g.k3[0], kh = g.k3[1], kw = g.k3[2];
  const int64_t width = g.in3[2];
  for (int64_t r = begin; r < end; ++r) {
    int64_t t = r;
    const int64_t Y = t % g.out3[1];
    t /= g.out3[1];
    const int64_t Z = t % g.out3[0];
    t /= g.out3[0];
    const int64_t q = t % g.units;
    const int64_t n = t / g.units;
    const int64_t y = Y / kh, i = Y % kh, z = Z / kd, a = Z % kd;
    const int64_t window_row = (a * kh + i) * kw;  // t of (a, i, j = 0)
    const float* src = pixels + n * g.in_batch + (z * g.in3[1] + y) * width * g.in_pos;
    float* dst = out + n * g.out_batch + g.out_base[static_cast<size_t>(q)] +
                 (Z * g.out3[1] + Y) * g.out3[2] * g.out_pos;
    for (int64_t j = 0; j < kw; ++j) {
      const float* s = src + g.in_base[static_cast<size_t>((window_row + j) * g.units + q)];
      float* d = dst + j * g.out_pos;
      for (int64_t x = 0; x < width; ++x)
        copy_run<L>(s + x * g.in_pos, d + x * kw * g.out_pos, g.run);
    }
  }
}

}  // namespace

std::vector<float> tiled_weights(const float* w, int64_t c, int64_t m, int64_t k) {
  std::vector<float> out(static_cast<size_t>(c * m * k));
  for (int64_t t = 0; t < k; ++t)
    for (int64_t o = 0; o < m; ++o)
      for (int64_t ci = 0; ci < c; ++ci)
        out[static_cast<size_t>((t * m + o) * c + ci)] = w[(ci * m + o) * k + t];
  return out;
}

std::vector<float> tiled_bias(const float* b, int64_t m, int64_t k) {
  std::vector<float> out(static_cast<size_t>(m * k));
  for (int64_t t = 0; t < k; ++t) std::copy(b, b + m, out.begin() + t * m);
  return out;
}

void DepthToSpace::prepare(int64_t n, int64_t m, const int64_t in3[3], const int64_t k3[3],
                           ChannelLayout pixels, ChannelLayout out) {
  g_.n = n;
  int64_t k = 1, in_sp = 1, out_sp = 1;
  for (int i = 0; i < 3; ++i) {
    g_.in3[i] = in3[i];
    g_.k3[i] = k3[i];
    g_.out3[i] = in3[i] * k3[i];
    k *= k3[i];
    in_sp *= in3[i];
    out_sp *= g_.out3[i];
  }
  // Runs as long as both layouts keep channels together.
  g_.run = pixels == out && out == ChannelLayout::kBlocked8 && m % 8 == 0 ? 8
           : pixels == out && out == ChannelLayout::kChannelsLast         ? m
                                                                          : 1;
  g_.units = m / g_.run;
  g_.in_pos = position_stride(pixels, k * m);
  g_.out_pos = position_stride(out, m);
  g_.in_batch = batch_size(pixels, k * m, in_sp);
  g_.out_batch = batch_size(out, m, out_sp);
  g_.in_base.resize(static_cast<size_t>(k * g_.units));
  g_.out_base.resize(static_cast<size_t>(g_.units));
  for (int64_t q = 0; q < g_.units; ++q) {
    g_.out_base[static_cast<size_t>(q)] = channel_offset(out, q * g_.run, out_sp);
    for (int64_t t = 0; t < k; ++t)
      g_.in_base[static_cast<size_t>(t * g_.units + q)] =
          channel_offset(pixels, t * m + q * g_.run, in_sp);
  }
}

void DepthToSpace::run(const float* pixels, float* out, int threads) const {
  const int64_t count = g_.n * g_.units * g_.out3[0] * g_.out3[1];
  const int64_t row_floats = g_.out3[2] * g_.run;
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(row_floats, 1));
  parallel_for(
      count, threads,
      [&](int64_t begin, int64_t end) {
        if (g_.run == 1)
          rows<1>(g_, pixels, out, begin, end);
        else if (g_.run == 8)
          rows<8>(g_, pixels, out, begin, end);
        else
          rows<0>(g_, pixels, out, begin, end);
      },
      grain);
}

}  // namespace amp::kernels::cpu
