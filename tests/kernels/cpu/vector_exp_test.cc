// kernels/cpu/vector_exp.h: exp, sigmoid, Swish, the GELUs and tanh over f32 arrays against the
// correctly rounded values (from double), on a dense sample of the fast range and at its
// edges.
#include "kernels/cpu/vector_exp.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <vector>

namespace amp::kernels::cpu {
namespace {

// Distance in units in the last place between two finite floats of one sign.
int64_t ulps(float a, float b) {
  return std::llabs(static_cast<int64_t>(std::bit_cast<int32_t>(a)) -
                    static_cast<int64_t>(std::bit_cast<int32_t>(b)));
}

TEST(VectorExp, WithinTwoUlpOverTheFastRange) {
  // 2^21 evenly spaced points over [kMinFast, kMaxFast], plus every float in [-1, 1] near 0
  // where exp(r) ~ 1 + r stresses the polynomial's low terms.
  std::vector<float> x;
  const int64_t steps = int64_t{1} << 21;
  for (int64_t i = 0; i <= steps; ++i)
    x.push_back(kMinFast +
                (kMaxFast - kMinFast) * static_cast<float>(i) / static_cast<float>(steps));
  for (float v = 1e-8f; v < 1.0f; v *= 1.001f) {
    x.push_back(v);
    x.push_back(-v);
  }
  x.push_back(0.0f);
  x.push_back(-0.0f);
  std::vector<float> y(x.size());
  exp_f32(x.data(), y.data(), static_cast<int64_t>(x.size()));
  int64_t worst = 0;
  float worst_x = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const float want = static_cast<float>(std::exp(static_cast<double>(x[i])));
    const int64_t d = ulps(y[i], want);
    if (d > worst) {
      worst = d;
      worst_x = x[i];
    }
  }
  EXPECT_LE(worst, 2) << "at x = " << worst_x;
}

TEST(VectorExp, EdgesAndSpecialsAsStdExp) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Subnormal results, overflow, the fast range's ends and just past them, specials; spread
  // over two blocks so a block with an outlier and one without both run.
  std::vector<float> x = {-104.0f, -100.0f, -87.5f, -87.0f, -86.99f, 88.0f, 88.5f, 88.8f,
                          89.0f,   1000.0f, inf,    -inf,   nan,     0.0f,  1.0f,  -1.0f};
  x.resize(600, 0.5f);
  x[400] = -100.0f;
  // Around -104, where results turn +0 without std::exp, and a padding mask's score.
  for (float v : {-103.9f, -103.98f, -104.01f, -1e4f, -3.4028235e38f}) x.push_back(v);
  std::vector<float> y(x.size());
  exp_f32(x.data(), y.data(), static_cast<int64_t>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    const float want = std::exp(x[i]);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(y[i])) << "x = " << x[i];
    } else if (x[i] < kMinFast || x[i] > kMaxFast || std::isinf(want)) {
      EXPECT_EQ(y[i], want) << "x = " << x[i];  // std::exp's own value
    } else {
      EXPECT_LE(ulps(y[i], want), 2) << "x = " << x[i];
    }
  }
  // In place.
  std::vector<float> z = x;
  exp_f32(z.data(), z.data(), static_cast<int64_t>(z.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(y[i])) {
      EXPECT_TRUE(std::isnan(z[i]));
    } else {
      EXPECT_EQ(z[i], y[i]) << "x = " << x[i];
    }
  }
}

TEST(VectorExp, SigmoidMatchesItsDefinition) {
  std::vector<float> x;
  for (float v = -120.0f; v <= 120.0f; v += 0.01f) x.push_back(v);
  x.push_back(std::numeric_limits<float>::infinity());
  x.push_back(-std::numeric_limits<float>::infinity());
  x.push_back(std::numeric_limits<float>::quiet_NaN());
  std::vector<float> y(x.size());
  sigmoid_f32(x.data(), y.data(), static_cast<int64_t>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i])) {
      EXPECT_TRUE(std::isnan(y[i]));
      continue;
    }
    // The functor's fp32 formula (exp(-x) overflows to inf below x = -88.7: 0, as before).
    const float want = 1.0f / (1.0f + std::exp(-x[i]));
    EXPECT_NEAR(y[i], want, 3e-7 * want) << "x = " << x[i];
  }
}

// x over [-20, 20] densely (both sides of GELU's fast-range bound at -13), tiny and huge
// values, the specials; in blocks with and without elements that take the slow path.
std::vector<float> activation_inputs() {
  std::vector<float> x;
  for (float v = -20.0f; v <= 20.0f; v += 0.001f) x.push_back(v);
  for (float v = 1e-30f; v < 1e30f; v *= 1.5f) {
    x.push_back(v);
    x.push_back(-v);
  }
  x.push_back(std::numeric_limits<float>::infinity());
  x.push_back(-std::numeric_limits<float>::infinity());
  x.push_back(std::numeric_limits<float>::quiet_NaN());
  x.push_back(0.0f);
  return x;
}

// Runs fn over x out of place and in place and checks both against want(x) in double:
// |got - want| <= rel(x) |want| + 1e-37; NaN where want is NaN. rel grows with the size of
// exp's argument where the formula computes one in f32: its rounding (half an ulp of
// |arg|) is a relative error of the result (the functors' f32 formulas have it too).
template <typename Fn, typename Want, typename Rel>
void expect_activation(Fn fn, Want want, Rel rel, const char* what) {
  const std::vector<float> x = activation_inputs();
  std::vector<float> y(x.size()), z = x;
  fn(x.data(), y.data(), static_cast<int64_t>(x.size()));
  fn(z.data(), z.data(), static_cast<int64_t>(z.size()));
  int reported = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double w = want(static_cast<double>(x[i]));
    const bool ok = std::isnan(w) ? std::isnan(y[i])
                    : std::isinf(w)
                        ? y[i] == w
                        : std::fabs(y[i] - w) <=
                              rel(std::fabs(static_cast<double>(x[i]))) * std::fabs(w) + 1e-37;
    if (!ok && reported++ < 5)
      ADD_FAILURE() << what << "(" << x[i] << ") = " << y[i] << ", want " << w;
    const bool same = std::isnan(y[i]) ? std::isnan(z[i]) : z[i] == y[i];
    if (!same && reported++ < 5) ADD_FAILURE() << what << " in place differs at x = " << x[i];
  }
}

TEST(VectorExp, SwishMatchesItsDefinition) {
  // -inf: NaN, as the functor's -inf * Sigmoid(-inf) = -inf * 0.
  expect_activation(
      swish_f32,
      [](double x) { return std::isinf(x) && x < 0 ? std::nan("") : x / (1 + std::exp(-x)); },
      [](double ax) { return 4e-7 + 6e-8 * ax; }, "swish");
}

TEST(VectorExp, GeluErfMatchesItsDefinitionInRelativeTerms) {
  // Relative on both sides of 0: the negative tail (0.5 x erfc(|x| / sqrt 2)) is the part a
  // 1 + erf formula gets wrong. -inf gives NaN like the functor (-inf * erfc(inf) = -inf * 0).
  // exp's argument is about -x^2 / 2.
  expect_activation(
      gelu_erf_f32,
      [](double x) {
        if (std::isinf(x) && x < 0) return std::nan("");
        return 0.5 * x * std::erfc(-x / std::sqrt(2.0));
      },
      [](double ax) { return 1e-6 + 1.5e-7 * ax * ax; }, "gelu_erf");
}

TEST(VectorExp, GeluTanhMatchesItsDefinition) {
  // exp's argument is 2 sqrt(2/pi) (x + 0.044715 x^3).
  expect_activation(
      gelu_tanh_f32,
      [](double x) {
        if (std::isinf(x)) return x > 0 ? x : std::nan("");
        const double u = std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x);
        return x / (1 + std::exp(-2 * u));
      },
      [](double ax) { return 1e-6 + 2.5e-7 * (ax + 0.044715 * ax * ax * ax); }, "gelu_tanh");
}

TEST(VectorExp, TanhWithinTwoUlpOfTheCorrectlyRoundedValue) {
  // Dense over [-12, 12] (past 9.01 the result is 1 in f32), every power of two down to the
  // smallest subnormal (tanh(x) = x there), both sides of the branch at 0.625, specials.
  std::vector<float> x;
  for (float v = -12.0f; v <= 12.0f; v += 1.0f / 4096) x.push_back(v);
  for (float v = 1.0f; v > 0.0f; v *= 0.5f) {
    x.push_back(v);
    x.push_back(-v);
  }
  for (float v : {0.62499994f, 0.625f, 0.62500006f, -0.625f, 0.0f, -0.0f, 50.0f, -1e30f})
    x.push_back(v);
  std::vector<float> y(x.size());
  tanh_f32(x.data(), y.data(), static_cast<int64_t>(x.size()));
  int64_t worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const float want = static_cast<float>(std::tanh(static_cast<double>(x[i])));
    ASSERT_EQ(std::signbit(y[i]), std::signbit(want)) << "x = " << x[i];
    worst = std::max(worst, ulps(y[i], want));
    ASSERT_LE(ulps(y[i], want), 2) << "x = " << x[i] << ": " << y[i] << " against " << want;
  }
  std::printf("[tanh_f32] worst %lld ulp over %zu points\n", static_cast<long long>(worst),
              x.size());
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> specials = {inf, -inf, std::numeric_limits<float>::quiet_NaN()};
  tanh_f32(specials.data(), specials.data(), 3);  // in place
  EXPECT_EQ(specials[0], 1.0f);
  EXPECT_EQ(specials[1], -1.0f);
  EXPECT_TRUE(std::isnan(specials[2]));
}

}  // namespace
}  // namespace amp::kernels::cpu
