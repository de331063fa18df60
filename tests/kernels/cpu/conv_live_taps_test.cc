// cut_to_live_taps (kernels/common/conv_live_taps.h): which taps of a window ever read the
// input, the cut window's pads, that the cut leaves the output size unchanged, and the Conv
// kernel that cuts its window against a plain loop over every tap; live_outputs and
// live_share against a brute force.
#include "kernels/common/conv_live_taps.h"

#include <gtest/gtest.h>

#include <random>

#include "graph/ir/graph_builder.h"
#include "graph/ops/shape_inference.h"
#include "tests/test_util/graph_runner.h"

namespace amp::kernels {
namespace {

graph::Window window(int64_t in, int64_t k, int64_t stride, int64_t dilation, int64_t pad_begin,
                     int64_t pad_end) {
  graph::Window w;
  w.kernel = {k};
  w.strides = {stride};
  w.dilations = {dilation};
  w.pad_begin = {pad_begin};
  w.pad_end = {pad_end};
  w.in_spatial = {in};
  w.out_spatial = {(in + pad_begin + pad_end - w.effective_kernel(0)) / stride + 1};
  return w;
}

TEST(ConvLiveTaps, AtrousWindowsOnASmallMap) {
  // DeepLabV3's ASPP at 16x16: dilation 24 and 36 keep only the centre tap.
  for (int64_t d : {24, 36}) {
    auto cut = cut_to_live_taps(window(16, 3, 1, d, d, d));
    ASSERT_TRUE(cut.has_value());
    EXPECT_EQ(cut->window.kernel[0], 1);
    EXPECT_EQ(cut->window.pad_begin[0], 0);
    EXPECT_EQ(cut->window.pad_end[0], 0);
    EXPECT_EQ(cut->window.dilations[0], 1);
    EXPECT_EQ(cut->first[0], 1);
  }
  // Dilation 12 reaches the input with all three taps: nothing to cut.
  EXPECT_FALSE(cut_to_live_taps(window(16, 3, 1, 12, 12, 12)).has_value());
  // A dense 3x3 with pad 1: nothing to cut.
  EXPECT_FALSE(cut_to_live_taps(window(16, 3, 1, 1, 1, 1)).has_value());
}

TEST(ConvLiveTaps, CutWindowKeepsTheOutputSize) {
  int cuts = 0;
  for (int64_t in : {1, 2, 5, 16, 33})
    for (int64_t k : {1, 3, 5, 7})
      for (int64_t s : {1, 2, 3})
        for (int64_t d : {1, 2, 6, 18})
          for (int64_t pb : {0, 3, 20})
            for (int64_t pe : {0, 4, 20}) {
              graph::Window w = window(in, k, s, d, pb, pe);
              if (w.out_spatial[0] < 1) continue;
              auto cut = cut_to_live_taps(w);
              if (!cut) continue;
              ++cuts;
              const graph::Window& c = cut->window;
              EXPECT_LT(c.kernel[0], k);
              EXPECT_GE(c.pad_begin[0], 0);
              EXPECT_GE(c.pad_end[0], 0);
              EXPECT_EQ((in + c.pad_begin[0] + c.pad_end[0] - c.effective_kernel(0)) / s + 1,
                        w.out_spatial[0])
                  << "in " << in << " k " << k << " s " << s << " d " << d;
              // The first kept tap reads the same input positions it read before.
              EXPECT_EQ(cut->first[0] * d - pb, -c.pad_begin[0]);
            }
  EXPECT_GT(cuts, 100);
}

TEST(ConvLiveTaps, LiveOutputsAndShareMatchABruteForce) {
  for (int64_t in : {1, 3, 16, 33})
    for (int64_t k : {1, 3, 5})
      for (int64_t s : {1, 2, 3})
        for (int64_t d : {1, 4, 12})
          for (int64_t pb : {0, 2, 12})
            for (int64_t pe : {0, 5, 12}) {
              const graph::Window w = window(in, k, s, d, pb, pe);
              if (w.out_spatial[0] < 1) continue;
              int64_t reached = 0;
              for (int64_t t = 0; t < k; ++t) {
                const OutputRange r = live_outputs(w, 0, t);
                for (int64_t o = 0; o < w.out_spatial[0]; ++o) {
                  const int64_t at = o * s - pb + t * d;
                  EXPECT_EQ(at >= 0 && at < in, o >= r.begin && o < r.end)
                      << "in " << in << " k " << k << " s " << s << " d " << d << " tap " << t
                      << " output " << o;
                  reached += at >= 0 && at < in;
                }
              }
              EXPECT_DOUBLE_EQ(live_share(w), static_cast<double>(reached) /
                                                  static_cast<double>(k * w.out_spatial[0]));
            }
  // DeepLabV3's 3x3 at dilation 12 over 16x16: 1.5 of 3 taps an axis.
  graph::Window atrous = window(16, 3, 1, 12, 12, 12);
  atrous.kernel.push_back(3);
  atrous.strides.push_back(1);
  atrous.dilations.push_back(12);
  atrous.pad_begin.push_back(12);
  atrous.pad_end.push_back(12);
  atrous.in_spatial.push_back(16);
  atrous.out_spatial.push_back(16);
  EXPECT_DOUBLE_EQ(live_share(atrous), 0.25);
}

graph::TensorData random_tensor(std::vector<int64_t> dims, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<float> v(static_cast<size_t>(n));
  for (float& e : v) e = u(rng);
  return graph::TensorData::from_vector<float>(DType::kF32, std::move(dims), v);
}

// The Conv kernel (which cuts the window) against a plain loop over every tap.
graph::Graph atrous_conv(const graph::TensorData& w, const graph::TensorData& bias,
                         int64_t dilation) {
  graph::GraphBuilder b;
  graph::ValueId x = b.input("x", DType::kF32, {1, 8, 16, 16});
  graph::Attributes a;
  a.set("dilations", std::vector<int64_t>{dilation, dilation});
  a.set("pads", std::vector<int64_t>{dilation, dilation, dilation, dilation});
  b.output(b.node(graph::OpType::kConv, {x, b.constant("w", w), b.constant("b", bias)}, a));
  return b.build();
}

TEST(ConvLiveTaps, CutConvolutionComputesTheSameOutputs) {
  const graph::TensorData x = random_tensor({1, 8, 16, 16}, 7);
  const graph::TensorData w = random_tensor({6, 8, 3, 3}, 5);
  const graph::TensorData bias = random_tensor({6}, 6);
  const std::vector<double> xv = x.to_f64_vector(), wv = w.to_f64_vector(),
                            bv = bias.to_f64_vector();
  // Dilations 24 and 20 at their pads on 16x16 keep the centre tap only; 14 and 10 keep all
  // three taps (controls).
  for (int64_t d : {24, 20, 14, 10}) {
    graph::Graph g = atrous_conv(w, bias, d);
    ASSERT_TRUE(graph::infer_shapes(g).is_ok());
    auto got = test::run_graph(g, {{"x", x}});
    ASSERT_TRUE(got.is_ok()) << got.status().to_string();
    const std::vector<double> y = (*got)[0].to_f64_vector();
    ASSERT_EQ(y.size(), 6u * 16 * 16);
    double worst = 0;
    for (int64_t m = 0; m < 6; ++m)
      for (int64_t oy = 0; oy < 16; ++oy)
        for (int64_t ox = 0; ox < 16; ++ox) {
          double sum = bv[static_cast<size_t>(m)];
          for (int64_t c = 0; c < 8; ++c)
            for (int64_t ky = 0; ky < 3; ++ky)
              for (int64_t kx = 0; kx < 3; ++kx) {
                const int64_t iy = oy - d + ky * d, ix = ox - d + kx * d;
                if (iy < 0 || iy >= 16 || ix < 0 || ix >= 16) continue;
                sum += xv[static_cast<size_t>((c * 16 + iy) * 16 + ix)] *
                       wv[static_cast<size_t>(((m * 8 + c) * 3 + ky) * 3 + kx)];
              }
          worst = std::max(worst, std::abs(sum - y[static_cast<size_t>((m * 16 + oy) * 16 + ox)]));
        }
    EXPECT_LT(worst, 1e-4) << "dilation " << d;
  }
}

}  // namespace
}  // namespace amp::kernels
