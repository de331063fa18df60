// kernels/cpu/vector_exp.h: exp and sigmoid over f32 arrays against the correctly rounded
// values (from double), on a dense sample of the fast range and at its edges.
#include "kernels/cpu/vector_exp.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
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

}  // namespace
}  // namespace amp::kernels::cpu
