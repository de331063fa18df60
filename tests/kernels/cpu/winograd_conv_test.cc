// kernels/cpu/winograd_conv.h: F(4x4, 3x3) against a direct convolution in double
// precision, on geometries that reach each edge of the algorithm: outputs that leave partial
// 4x4 tiles, pads (uneven, wider than the window's reach, a 1x1 input wholly padded), a
// batch whose tiles share blocks across images, input channels past one 256-deep slice of
// the products, output channels that are not a multiple of 8 (plain or channels-last
// output), blocks split over 1-3 threads, and each fused activation; each from 8-channel
// blocks (the conv layout on AVX2) and again from channels-last (on AVX-512). The kernel
// runs on any CPU with AVX2 and FMA.
//
// Tolerance: |got - want| <= 1e-5 T + 1e-5 |want| + 1e-6, T the largest sum|terms| (the
// magnitudes of the direct convolution's products and the bias) among the outputs of the
// output's 4x4 tile: the transforms mix a tile's values (an output of bias alone, in a tile
// whose other rows read the input, carries their rounding), and their constants (up to 8,
// and 1/24) cost a few more f32 roundings than a direct sum's.
#include "kernels/cpu/winograd_conv.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "kernels/common/elementwise_functors.h"
#include "kernels/cpu/channel_layout.h"
#include "kernels/cpu/gemm_strip_avx2.h"
#include "kernels/cpu/gemm_strip_avx512.h"
#include "tests/test_util/avx2_kernel_cases.h"

namespace amp::kernels::cpu {
namespace {

using graph::ActivationKind;
using graph::FusedActivation;

struct Case {
  int64_t n, c, m, h, w;
  std::vector<int64_t> pads;  // top, left, bottom, right
  ChannelLayout out = ChannelLayout::kBlocked8;
  int threads = 1;
  FusedActivation act;
  bool bias = true;
  // Input elements (plain NCHW index) set to these values after the random fill.
  std::vector<std::pair<int64_t, float>> specials = {};
  ChannelLayout in = ChannelLayout::kBlocked8;
};

const char* name_of(ChannelLayout l) {
  return l == ChannelLayout::kBlocked8 ? "blocked" : l == ChannelLayout::kPlain ? "plain" : "nhwc";
}

graph::ConvAttrs attrs_of(const Case& c) {
  graph::ConvAttrs a;
  a.n = c.n;
  a.c = c.c;
  a.m = c.m;
  a.has_bias = c.bias;
  a.act = c.act;
  graph::Window& w = a.window;
  w.kernel = {3, 3};
  w.strides = {1, 1};
  w.dilations = {1, 1};
  w.pad_begin = {c.pads[0], c.pads[1]};
  w.pad_end = {c.pads[2], c.pads[3]};
  w.in_spatial = {c.h, c.w};
  w.out_spatial = {c.h + c.pads[0] + c.pads[2] - 2, c.w + c.pads[1] + c.pads[3] - 2};
  return a;
}

std::string describe(const Case& c) {
  std::ostringstream s;
  s << "n=" << c.n << " c=" << c.c << " m=" << c.m << " " << c.h << "x" << c.w << " pads "
    << c.pads[0] << "," << c.pads[1] << "," << c.pads[2] << "," << c.pads[3] << " " << name_of(c.in)
    << " in, " << name_of(c.out) << " out threads=" << c.threads
    << " act=" << static_cast<int>(c.act.kind) << " bias=" << c.bias;
  return s.str();
}

void check(const Case& c, uint32_t seed) {
  const std::string what = describe(c);
  const graph::ConvAttrs attrs = attrs_of(c);
  const int64_t oh = attrs.window.out_spatial[0], ow = attrs.window.out_spatial[1];
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> x(c.n * c.c * c.h * c.w), w(c.m * c.c * 9), bias(c.m);
  for (float& v : x) v = u(rng);
  for (float& v : w) v = u(rng) * 0.3f;
  for (float& v : bias) v = u(rng);
  for (const auto& [i, v] : c.specials) x[static_cast<size_t>(i)] = v;

  // The input in its layout (C is a multiple of 8: no padded blocks).
  const int64_t in_plane = c.h * c.w, out_plane = oh * ow;
  std::vector<float> xb(x.size());
  for (int64_t n = 0; n < c.n; ++n)
    for (int64_t ch = 0; ch < c.c; ++ch)
      for (int64_t p = 0; p < in_plane; ++p)
        xb[n * c.c * in_plane + channel_offset(c.in, ch, in_plane) +
           p * position_stride(c.in, c.c)] = x[(n * c.c + ch) * in_plane + p];

  WinogradConv conv;
  conv.prepare(attrs, w.data(), nullptr, c.bias ? bias.data() : nullptr, c.in, c.out, 4);
  std::vector<float> ws(conv.workspace_bytes() / sizeof(float) + 16);
  float* ws64 = reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(ws.data()) + 63) / 64 * 64);
  std::vector<float> y(c.n * c.m * out_plane, std::nanf(""));
  conv.run(xb.data(), y.data(), ws64, c.threads);

  // The direct convolution, and the magnitude of its terms, per output.
  std::vector<double> want(y.size()), mag(y.size());
  for (int64_t n = 0; n < c.n; ++n)
    for (int64_t mo = 0; mo < c.m; ++mo)
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox) {
          double acc = c.bias ? bias[mo] : 0.0, sum = std::fabs(acc);
          for (int64_t ci = 0; ci < c.c; ++ci)
            for (int64_t ky = 0; ky < 3; ++ky)
              for (int64_t kx = 0; kx < 3; ++kx) {
                const int64_t iy = oy + ky - c.pads[0], ix = ox + kx - c.pads[1];
                if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w) continue;
                const double t = static_cast<double>(x[((n * c.c + ci) * c.h + iy) * c.w + ix]) *
                                 w[((mo * c.c + ci) * 3 + ky) * 3 + kx];
                acc += t;
                sum += std::fabs(t);
              }
          const size_t i = static_cast<size_t>(((n * c.m + mo) * oh + oy) * ow + ox);
          want[i] = ew::apply_activation(c.act, static_cast<float>(acc));
          mag[i] = sum;
        }
  const ChannelLayout out_layout = c.out;
  int reported = 0;
  for (int64_t n = 0; n < c.n; ++n)
    for (int64_t mo = 0; mo < c.m; ++mo)
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox) {
          // The largest magnitude in the output's 4x4 tile: the transforms mix the tile's
          // values, so an output of small terms carries its tile-mates' rounding.
          double tile_mag = 0;
          for (int64_t ty = oy / 4 * 4; ty < std::min(oh, oy / 4 * 4 + 4); ++ty)
            for (int64_t tx = ox / 4 * 4; tx < std::min(ow, ox / 4 * 4 + 4); ++tx)
              if (std::isfinite(mag[((n * c.m + mo) * oh + ty) * ow + tx]))
                tile_mag = std::max(tile_mag, mag[((n * c.m + mo) * oh + ty) * ow + tx]);
          const double ref = want[((n * c.m + mo) * oh + oy) * ow + ox];
          const int64_t p = oy * ow + ox;
          const float got = y[n * c.m * out_plane + channel_offset(out_layout, mo, out_plane) +
                              p * position_stride(out_layout, c.m)];
          if (!std::isfinite(ref)) {  // as a direct convolution: the same Inf, or NaN
            if (!(std::isnan(ref) ? std::isnan(got) : got == ref) && reported++ < 5)
              ADD_FAILURE() << what << ": y[" << n << ", " << mo << ", " << oy << ", " << ox
                            << "] = " << got << ", want " << ref;
            continue;
          }
          const double tol = 1e-5 * tile_mag + 1e-5 * std::fabs(ref) + 1e-6;
          if (!(std::fabs(got - ref) <= tol) && reported++ < 5)
            ADD_FAILURE() << what << ": y[" << n << ", " << mo << ", " << oy << ", " << ox
                          << "] = " << got << ", want " << ref;
        }
}

TEST(WinogradConv, MatchesTheDirectConvolution) {
  if (!test::cpu_runs_avx2_fma()) GTEST_SKIP() << "this CPU has no AVX2 + FMA (the kernel's ISA)";
  const std::vector<Case> cases = {
      // Whole tiles; one tile; a 1x1 input wholly padded around.
      {1, 16, 16, 8, 8, {1, 1, 1, 1}},
      {1, 16, 16, 6, 6, {0, 0, 0, 0}},
      {1, 16, 16, 1, 1, {1, 1, 1, 1}},
      // Partial tiles, uneven pads, a batch of 2, 20 output channels (plain output).
      {2, 24, 20, 11, 13, {0, 1, 2, 0}, ChannelLayout::kPlain},
      {2, 24, 24, 11, 13, {0, 1, 2, 0}},
      // Pads past the window's reach (output rows and columns of bias alone).
      {3, 32, 24, 5, 30, {3, 2, 2, 3}, ChannelLayout::kBlocked8, 3},
      // Input channels past one 256-deep slice of the products; more output channels than
      // one 16-column panel, the last one masked.
      {1, 264, 40, 6, 7, {1, 1, 1, 1}},
      // A YOLO head's size: several blocks of tiles, two threads; no bias.
      {1, 64, 80, 40, 40, {1, 1, 1, 1}, ChannelLayout::kBlocked8, 2, {}, false},
      {2, 16, 16, 23, 9, {1, 1, 1, 1}, ChannelLayout::kPlain, 2},
      // One block of input channels; fewer output channels than a register (super-
      // resolution's last convolution: 32 -> 9), down to one.
      {1, 8, 8, 9, 9, {1, 1, 1, 1}},
      {1, 32, 9, 12, 12, {1, 1, 1, 1}, ChannelLayout::kPlain, 2},
      {2, 8, 1, 10, 7, {1, 1, 1, 1}, ChannelLayout::kPlain},
  };
  uint32_t seed = 1;
  for (const Case& c : cases) check(c, ++seed);
  // From channels-last (the conv layout on AVX-512) to channels-last, any M, and to plain.
  for (Case c : cases) {
    c.in = ChannelLayout::kChannelsLast;
    const ChannelLayout given = c.out;
    c.out = ChannelLayout::kChannelsLast;
    check(c, ++seed);
    if (given == ChannelLayout::kPlain) {
      c.out = ChannelLayout::kPlain;
      check(c, ++seed);
    }
  }
}

// Inf and NaN inputs: the transforms would spread one over its whole 6x6 patch (Inf - Inf),
// turning outputs whose windows never see it into NaN. Those tiles are computed directly,
// so each output is what a direct convolution gives: Inf or NaN where its window holds one,
// its finite value elsewhere. The lowest float overflows the transforms and is recomputed
// so too.
TEST(WinogradConv, InfAndNanReachOnlyTheOutputsWhoseWindowsHoldThem) {
  if (!test::cpu_runs_avx2_fma()) GTEST_SKIP() << "this CPU has no AVX2 + FMA (the kernel's ISA)";
  const float inf = std::numeric_limits<float>::infinity();
  const int64_t plane = 12 * 12;
  Case c{1, 16, 16, 12, 12, {1, 1, 1, 1}};
  c.specials = {{3 * plane + 5 * 12 + 6, inf},
                {10 * plane + 1 * 12 + 1, std::nanf("")},
                {0 * plane + 9 * 12 + 10, -std::numeric_limits<float>::max()}};
  check(c, 300);
  c.out = ChannelLayout::kPlain;
  c.m = 9;
  c.specials.push_back({15 * plane + 11 * 12 + 0, -inf});
  check(c, 301);
  c.in = c.out = ChannelLayout::kChannelsLast;
  check(c, 302);
}

// Most tiles flagged, as in a model whose activations overflowed: Inf and NaN every few
// positions of a few channels, so nearly every patch holds one while most outputs' windows
// do not. Several blocks over two threads, partial tiles, a batch of 2, and 40 output
// channels: 16-channel groups and a last 8-channel one where the output allows (AVX-512),
// 8-channel groups from blocks.
TEST(WinogradConv, TilesMostlyFlaggedAreSummedDirectly) {
  if (!test::cpu_runs_avx2_fma()) GTEST_SKIP() << "this CPU has no AVX2 + FMA (the kernel's ISA)";
  const float inf = std::numeric_limits<float>::infinity();
  Case c{2, 24, 40, 21, 19, {1, 0, 1, 2}, ChannelLayout::kBlocked8, 2};
  const int64_t plane = c.h * c.w;
  for (int64_t n = 0; n < c.n; ++n)
    for (int64_t y = 2; y < c.h; y += 6)
      for (int64_t x = n + 1; x < c.w; x += 5) {
        const int64_t channel = (y + x) % c.c;
        c.specials.push_back({(n * c.c + channel) * plane + y * c.w + x,
                              (y + x) % 3 == 0 ? std::nanf("") : (x % 2 ? inf : -inf)});
      }
  uint32_t seed = 400;
  check(c, ++seed);
  for (ChannelLayout out : {ChannelLayout::kChannelsLast, ChannelLayout::kPlain}) {
    c.in = ChannelLayout::kChannelsLast;
    c.out = out;
    check(c, ++seed);
  }
}

TEST(WinogradConv, EachFusedActivation) {
  if (!test::cpu_runs_avx2_fma()) GTEST_SKIP() << "this CPU has no AVX2 + FMA (the kernel's ISA)";
  uint32_t seed = 100;
  for (const FusedActivation& act : test::every_fused_activation()) {
    check({1, 16, 24, 9, 10, {1, 1, 1, 1}, ChannelLayout::kBlocked8, 1, act}, ++seed);
    check({1, 16, 12, 9, 10, {1, 1, 1, 1}, ChannelLayout::kPlain, 2, act}, ++seed);
    check({1,
           16,
           12,
           9,
           10,
           {1, 1, 1, 1},
           ChannelLayout::kChannelsLast,
           2,
           act,
           true,
           {},
           ChannelLayout::kChannelsLast},
          ++seed);
  }
}

// The filter transform of a model constant is shared by the convolutions of every plan that
// transform the same weights (4x the weights' memory each otherwise), and counted at its
// size: 36 products of C rows by M columns in 16-column panels.
TEST(WinogradConv, FilterTransformOfOneConstantIsShared) {
  const Case c{1, 16, 24, 8, 8, {1, 1, 1, 1}};
  auto w = std::make_shared<std::vector<float>>(c.m * c.c * 9, 0.25f);
  auto prepared = [&](const std::shared_ptr<const void>& owner) {
    auto conv = std::make_shared<WinogradConv>();
    conv->prepare(attrs_of(c), w->data(), owner, nullptr, ChannelLayout::kBlocked8,
                  ChannelLayout::kBlocked8, 1);
    return conv;
  };
  const auto a = prepared(w), b = prepared(w), own = prepared(nullptr);
  EXPECT_EQ(a->held_constant().id, b->held_constant().id);
  EXPECT_NE(own->held_constant().id, a->held_constant().id);
  EXPECT_EQ(a->held_constant().bytes, size_t{36 * 16 * 32 * sizeof(float)});
}

// Which convolutions it takes: 3x3, stride 1, dilation 1, one group, 2-D, from 8-channel
// blocks or channels-last, any output channels, at least 4 tiles at least 10/16 full, on a
// CPU with AVX2 and FMA; on AVX-512 also enough channels and tiles (next test).
TEST(WinogradConv, TakesOnlyWhatItComputes) {
  const Case base{1, 32, 32, 8, 8, {1, 1, 1, 1}};
  const bool cpu = cpu_has_avx2_fma();
  EXPECT_EQ(WinogradConv::suits(attrs_of(base), ChannelLayout::kBlocked8), cpu);
  EXPECT_EQ(WinogradConv::suits(attrs_of(base), ChannelLayout::kChannelsLast), cpu);
  EXPECT_FALSE(WinogradConv::suits(attrs_of(base), ChannelLayout::kPlain));
  auto changed = [&](auto&& edit) {
    graph::ConvAttrs a = attrs_of(base);
    edit(a);
    return WinogradConv::suits(a, ChannelLayout::kBlocked8);
  };
  EXPECT_FALSE(changed([](graph::ConvAttrs& a) { a.window.strides = {2, 2}; }));
  EXPECT_FALSE(changed([](graph::ConvAttrs& a) { a.window.dilations = {2, 2}; }));
  EXPECT_FALSE(changed([](graph::ConvAttrs& a) { a.window.kernel = {5, 5}; }));
  EXPECT_FALSE(changed([](graph::ConvAttrs& a) { a.window.kernel = {3, 1}; }));
  EXPECT_FALSE(changed([](graph::ConvAttrs& a) { a.group = 2; }));
  EXPECT_FALSE(changed([](graph::ConvAttrs& a) { a.c = 12; }));
  EXPECT_EQ(changed([](graph::ConvAttrs& a) { a.c = 40; }), cpu);
  EXPECT_EQ(changed([](graph::ConvAttrs& a) { a.m = 1; }), cpu);
  auto map = [&](int64_t n, int64_t side) {
    return changed([&](graph::ConvAttrs& a) {
      a.n = n;
      a.window.in_spatial = {side, side};
      a.window.out_spatial = {side, side};
    });
  };
  EXPECT_FALSE(map(1, 4));     // one tile
  EXPECT_EQ(map(4, 4), cpu);   // four, in four images
  EXPECT_FALSE(map(1, 6));     // 36 outputs in 4 tiles
  EXPECT_EQ(map(1, 7), cpu);   // 49 in 4
  EXPECT_FALSE(map(1, 9));     // 81 in 9
  EXPECT_EQ(map(1, 10), cpu);  // 100 in 9
  EXPECT_EQ(map(1, 224), cpu);
  EXPECT_FALSE(changed([](graph::ConvAttrs& a) {  // 1-D
    a.window.kernel = {3};
    a.window.strides = {1};
    a.window.dilations = {1};
    a.window.pad_begin = {1};
    a.window.pad_end = {1};
    a.window.in_spatial = {8};
    a.window.out_spatial = {8};
  }));
}

// WinogradConv::suits' measurements: fewer than 25 tiles only with at most 128 KiB of U a
// tile, on both ISAs; against AVX-512's brgconv also at least 16 input channels (as on AVX2,
// amp_kernel_tests.AsOnAnAvx2Cpu, 8 channels take it).
TEST(WinogradConv, TakesWhatBeatsTheDirectConvolution) {
  if (!cpu_has_avx2_fma()) GTEST_SKIP() << "this CPU has no AVX2 + FMA (the kernel's ISA)";
  const bool avx2_rules = !cpu_has_avx512f();
  auto takes = [](int64_t c, int64_t m, int64_t side) {
    Case k{1, c, m, side, side, {1, 1, 1, 1}};
    return WinogradConv::suits(attrs_of(k), ChannelLayout::kChannelsLast);
  };
  EXPECT_TRUE(takes(32, 9, 224));   // super-resolution's last convolution
  EXPECT_TRUE(takes(64, 1, 40));    // a one-channel head
  EXPECT_TRUE(takes(16, 16, 160));  // 16 channels: 16-lane transforms
  EXPECT_TRUE(takes(16, 8, 224));
  EXPECT_EQ(takes(8, 8, 224), avx2_rules);  // 8 channels: 8-lane transforms
  EXPECT_EQ(takes(8, 64, 80), avx2_rules);
  EXPECT_TRUE(takes(64, 64, 20));     // 25 tiles
  EXPECT_TRUE(takes(64, 64, 10));     // 9 tiles, 64 KiB of U each
  EXPECT_TRUE(takes(256, 256, 20));   // 25 tiles
  EXPECT_TRUE(takes(128, 128, 28));   // 49 tiles (a ResNet's)
  EXPECT_FALSE(takes(128, 128, 14));  // 16 tiles, 144 KiB of U each
  EXPECT_FALSE(takes(256, 256, 7));   // 4 tiles, 2.3 MiB each
  EXPECT_FALSE(takes(512, 512, 7));   // 4 tiles, 9 MiB each
}

}  // namespace
}  // namespace amp::kernels::cpu
