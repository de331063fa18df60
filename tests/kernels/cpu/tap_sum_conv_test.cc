// TapSumConv (kernels/cpu/tap_sum_conv.h): a convolution as a sum of one product per tap over
// the outputs the tap reaches. Checked on its own against a direct loop in double precision
// (pads on every side, strides, two dilations, a window of taps that all miss some outputs,
// an M that is no multiple of the 16-column panels, batch 2, a fused activation, 1 and 2
// threads), and which convolutions it takes. tests/runtime/atrous_conv_test.cc runs it inside
// a model, between convolutions.
#include "kernels/cpu/tap_sum_conv.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernels/cpu/gemm_strip_avx2.h"

namespace amp::kernels::cpu {
namespace {

struct Geometry {
  int64_t n, c, m, h, w;
  int64_t kh, kw, sy, sx, dy, dx;
  int64_t pt, pl, pb, pr;
  graph::ActivationKind act = graph::ActivationKind::kNone;
};

graph::ConvAttrs conv_attrs(const Geometry& g) {
  graph::ConvAttrs a;
  a.n = g.n;
  a.c = g.c;
  a.m = g.m;
  a.has_bias = true;
  graph::Window& w = a.window;
  w.kernel = {g.kh, g.kw};
  w.strides = {g.sy, g.sx};
  w.dilations = {g.dy, g.dx};
  w.pad_begin = {g.pt, g.pl};
  w.pad_end = {g.pb, g.pr};
  w.in_spatial = {g.h, g.w};
  w.out_spatial = {(g.h + g.pt + g.pb - w.effective_kernel(0)) / g.sy + 1,
                   (g.w + g.pl + g.pr - w.effective_kernel(1)) / g.sx + 1};
  a.act.kind = g.act;
  return a;
}

std::vector<float> uniform(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& e : v) e = u(rng);
  return v;
}

// Runs TapSumConv on channels-last x and checks every output against a direct loop.
void check_against_direct_loop(const Geometry& g, int threads) {
  const graph::ConvAttrs attrs = conv_attrs(g);
  const int64_t oh = attrs.window.out_spatial[0], ow = attrs.window.out_spatial[1];
  const std::vector<float> x = uniform(static_cast<size_t>(g.n * g.h * g.w * g.c), 1);  // NHWC
  const std::vector<float> w = uniform(static_cast<size_t>(g.m * g.c * g.kh * g.kw), 2);
  const std::vector<float> bias = uniform(static_cast<size_t>(g.m), 3);
  TapSumConv conv;
  conv.prepare(attrs, w.data(), nullptr, bias.data());
  std::vector<float> workspace(conv.workspace_bytes() / sizeof(float) + 16);
  void* aligned = workspace.data();
  size_t space = workspace.size() * sizeof(float);
  ASSERT_NE(std::align(64, conv.workspace_bytes(), aligned, space), nullptr);
  std::vector<float> y(static_cast<size_t>(g.n * oh * ow * g.m), std::nanf(""));
  conv.run(x.data(), y.data(), aligned, threads);

  double worst = 0;
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t oy = 0; oy < oh; ++oy)
      for (int64_t ox = 0; ox < ow; ++ox)
        for (int64_t m = 0; m < g.m; ++m) {
          double sum = bias[static_cast<size_t>(m)], terms = std::abs(sum);
          for (int64_t ky = 0; ky < g.kh; ++ky)
            for (int64_t kx = 0; kx < g.kw; ++kx) {
              const int64_t iy = oy * g.sy - g.pt + ky * g.dy, ix = ox * g.sx - g.pl + kx * g.dx;
              if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w) continue;
              for (int64_t c = 0; c < g.c; ++c) {
                const double p = x[static_cast<size_t>(((n * g.h + iy) * g.w + ix) * g.c + c)] *
                                 w[static_cast<size_t>(((m * g.c + c) * g.kh + ky) * g.kw + kx)];
                sum += p;
                terms += std::abs(p);
              }
            }
          if (g.act == graph::ActivationKind::kRelu) sum = std::max(sum, 0.0);
          const double got = y[static_cast<size_t>(((n * oh + oy) * ow + ox) * g.m + m)];
          ASSERT_TRUE(std::isfinite(got)) << "output " << n << "," << oy << "," << ox << "," << m;
          ASSERT_LE(std::abs(got - sum), 1e-6 * terms + 1e-7)
              << "output " << n << "," << oy << "," << ox << "," << m;
          worst = std::max(worst, std::abs(got - sum));
        }
  EXPECT_LT(worst, 1e-4);
}

TEST(TapSumConv, MatchesADirectLoop) {
  if (!cpu_has_avx2_fma()) GTEST_SKIP() << "this CPU has no AVX2 + FMA";
  using graph::ActivationKind;
  const Geometry cases[] = {
      // DeepLabV3's atrous 3x3 at dilation 12 over 16x16, M over three panels, batch 2, Relu.
      {2, 24, 40, 16, 16, 3, 3, 1, 1, 12, 12, 12, 12, 12, 12, ActivationKind::kRelu},
      // Strides, two dilations, a 5x3 window, uneven pads on all four sides.
      {1, 16, 17, 13, 11, 5, 3, 2, 2, 3, 5, 5, 0, 7, 9},
      // One row (a lifted 1-D convolution), stride 1 along the row.
      {1, 8, 16, 1, 20, 1, 5, 1, 1, 1, 8, 0, 16, 0, 16},
      // A 1x1 window padded by 5: 12x12 outputs, 2x2 of them reach the input, the rest bias.
      {1, 8, 5, 2, 2, 1, 1, 1, 1, 1, 1, 5, 5, 5, 5},
  };
  for (const Geometry& g : cases)
    for (int threads : {1, 2}) {
      SCOPED_TRACE("case " + std::to_string(&g - cases) + ", threads " + std::to_string(threads));
      check_against_direct_loop(g, threads);
    }
}

TEST(TapSumConv, TakesTheConvolutionsOneDnnRunsAsAnIm2colGemm) {
  if (!cpu_has_avx2_fma()) GTEST_SKIP() << "this CPU has no AVX2 + FMA";
  // 25% of the multiply-adds read the input.
  EXPECT_TRUE(
      TapSumConv::suits(conv_attrs({1, 960, 256, 16, 16, 3, 3, 1, 1, 12, 12, 12, 12, 12, 12})));
  // A dense 3x3 with pad 1 on 64x64 (98% read the input), and two groups.
  EXPECT_FALSE(TapSumConv::suits(conv_attrs({1, 64, 64, 64, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1})));
  graph::ConvAttrs grouped = conv_attrs({1, 64, 64, 16, 16, 3, 3, 1, 1, 12, 12, 12, 12, 12, 12});
  grouped.group = 2;
  EXPECT_FALSE(TapSumConv::suits(grouped));
}

}  // namespace
}  // namespace amp::kernels::cpu
