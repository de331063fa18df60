// The tiled ConvTranspose's parts (kernels/cpu/conv_transpose_tiled.h): the regrouped weights
// and bias, and the depth-to-space between every pair of layouts the conv kernel hands it
// (plain, 8-channel blocks padded to 8, channels-last), against the definition computed on
// plain tensors. Pure copies: the results must be equal, not close.
#include "kernels/cpu/conv_transpose_tiled.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace amp::kernels::cpu {
namespace {

// A plain [N, C, S] tensor in `layout` (blocks padded with NaN, which nothing may read).
std::vector<float> to_layout(const std::vector<float>& plain, int64_t n, int64_t c, int64_t s,
                             ChannelLayout layout) {
  if (layout == ChannelLayout::kPlain) return plain;
  const int64_t cp = layout == ChannelLayout::kBlocked8 ? (c + 7) / 8 * 8 : c;
  std::vector<float> out(static_cast<size_t>(n * cp * s), std::nanf(""));
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t p = 0; p < s; ++p) {
        const int64_t at = layout == ChannelLayout::kBlocked8
                               ? ((b * cp / 8 + ch / 8) * s + p) * 8 + ch % 8
                               : (b * s + p) * c + ch;
        out[static_cast<size_t>(at)] = plain[static_cast<size_t>((b * c + ch) * s + p)];
      }
  return out;
}

const char* name(ChannelLayout l) {
  return l == ChannelLayout::kPlain ? "plain" : l == ChannelLayout::kBlocked8 ? "blocked8" : "nhwc";
}

TEST(ConvTransposeTiled, DepthToSpaceBetweenEveryPairOfLayouts) {
  struct Case {
    int64_t n, m;
    int64_t in3[3], k3[3];
  };
  const std::vector<Case> cases = {
      {2, 8, {1, 3, 5}, {1, 2, 2}},   // 2x2 upsampling, whole blocks
      {1, 1, {1, 4, 3}, {1, 2, 2}},   // a DB head's last one: 4 channels padded to 8
      {1, 12, {1, 2, 3}, {1, 2, 2}},  // channels not a multiple of 8
      {1, 3, {1, 1, 7}, {1, 1, 3}},   // 1-D
      {1, 16, {2, 2, 3}, {2, 2, 2}},  // 3-D
      {2, 8, {1, 5, 4}, {1, 3, 1}},   // unequal window sides
  };
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1, 1);
  const ChannelLayout layouts[] = {ChannelLayout::kPlain, ChannelLayout::kBlocked8,
                                   ChannelLayout::kChannelsLast};
  for (const Case& c : cases) {
    const int64_t k = c.k3[0] * c.k3[1] * c.k3[2];
    const int64_t in_sp = c.in3[0] * c.in3[1] * c.in3[2], out_sp = in_sp * k;
    std::vector<float> pixels(static_cast<size_t>(c.n * k * c.m * in_sp));
    for (float& v : pixels) v = u(rng);
    // The definition: out[n, m, z kd + a, y kh + i, x kw + j] = pixels[n, t M + m, z, y, x].
    std::vector<float> want(static_cast<size_t>(c.n * c.m * out_sp));
    const int64_t od = c.in3[0] * c.k3[0], oh = c.in3[1] * c.k3[1], ow = c.in3[2] * c.k3[2];
    for (int64_t b = 0; b < c.n; ++b)
      for (int64_t m = 0; m < c.m; ++m)
        for (int64_t Z = 0; Z < od; ++Z)
          for (int64_t Y = 0; Y < oh; ++Y)
            for (int64_t X = 0; X < ow; ++X) {
              const int64_t t = ((Z % c.k3[0]) * c.k3[1] + Y % c.k3[1]) * c.k3[2] + X % c.k3[2];
              const int64_t src = (b * k * c.m + t * c.m + m) * in_sp +
                                  ((Z / c.k3[0]) * c.in3[1] + Y / c.k3[1]) * c.in3[2] + X / c.k3[2];
              want[static_cast<size_t>(((b * c.m + m) * od + Z) * oh * ow + Y * ow + X)] =
                  pixels[static_cast<size_t>(src)];
            }
    for (ChannelLayout lp : layouts)
      for (ChannelLayout lo : layouts)
        for (int threads : {1, 3}) {
          SCOPED_TRACE(std::string("M ") + std::to_string(c.m) + ", pixels " + name(lp) + ", out " +
                       name(lo) + ", threads " + std::to_string(threads));
          const std::vector<float> src = to_layout(pixels, c.n, k * c.m, in_sp, lp);
          const std::vector<float> expected = to_layout(want, c.n, c.m, out_sp, lo);
          std::vector<float> got(expected.size(), std::nanf(""));
          DepthToSpace d2s;
          d2s.prepare(c.n, c.m, c.in3, c.k3, lp, lo);
          d2s.run(src.data(), got.data(), threads);
          for (size_t i = 0; i < got.size(); ++i) {
            if (std::isnan(expected[i])) continue;  // block padding: never read
            ASSERT_EQ(got[i], expected[i]) << "element " << i;
          }
        }
  }
}

TEST(ConvTransposeTiled, WeightsAndBiasAreWindowPositionMajor) {
  const int64_t c = 3, m = 2, k = 4;
  std::vector<float> w(static_cast<size_t>(c * m * k));
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i);
  const std::vector<float> t = tiled_weights(w.data(), c, m, k);
  for (int64_t pos = 0; pos < k; ++pos)
    for (int64_t o = 0; o < m; ++o)
      for (int64_t ci = 0; ci < c; ++ci)
        EXPECT_EQ(t[static_cast<size_t>((pos * m + o) * c + ci)], w[(ci * m + o) * k + pos]);
  const float b[] = {5, 7};
  EXPECT_EQ(tiled_bias(b, m, k), (std::vector<float>{5, 7, 5, 7, 5, 7, 5, 7}));
}

}  // namespace
}  // namespace amp::kernels::cpu
