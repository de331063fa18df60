// The softmax passes compiled per ISA (kernels/cpu/softmax_rows.h) against plain loops, and
// the f32 Softmax kernel, which runs them on rows of 16 or more, against the f64 kernel
// (NaN-propagating max, no vectorized passes) on rows holding NaN and infinities.
#include "kernels/cpu/softmax_rows.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernels/cpu/reduce_util.h"
#include "tests/test_util/kernel_harness.h"

namespace amp {
namespace {

using kernels::cpu::row_max;
using kernels::cpu::row_sum;

TEST(SoftmaxRows, MaxIgnoresNanAndSumKeepsTreeReduceOrder) {
  std::mt19937 rng(5);
  std::normal_distribution<float> dist(0.0f, 10.0f);
  for (int64_t n : {1, 7, 15, 16, 63, 64, 65, 127, 130, 500, 1000}) {
    std::vector<float> s(static_cast<size_t>(n));
    for (float& v : s) v = dist(rng);
    float want = -std::numeric_limits<float>::infinity();
    for (float v : s) want = std::max(want, v);
    EXPECT_EQ(row_max(s.data(), n), want) << "n " << n;
    // A NaN anywhere is ignored; the largest element may sit in the tail past 64 lanes.
    s[static_cast<size_t>(n / 2)] = std::nanf("");
    s[static_cast<size_t>(n - 1)] = want + 1.0f;
    EXPECT_EQ(row_max(s.data(), n), want + 1.0f) << "n " << n;
    s[static_cast<size_t>(n / 2)] = 1.0f;
    const float sum = kernels::cpu::tree_reduce<float>(
        0, n, 0.0f, [](float a, float b) { return a + b; }, [&](int64_t j) { return s[j]; });
    const float got = row_sum(s.data(), n);
    EXPECT_EQ(std::memcmp(&got, &sum, sizeof(float)), 0) << "n " << n;
  }
  const float none[] = {-INFINITY, -INFINITY};
  EXPECT_EQ(row_max(none, 2), -INFINITY);
}

std::vector<double> softmax(DType dt, int64_t rows, int64_t len, const std::vector<double>& x) {
  graph::Attributes attrs;
  attrs.set("axis", int64_t{-1});
  test::KernelRun r = test::run_kernel(
      {.op = graph::OpType::kSoftmax, .attrs = attrs, .op_version = 13},
      {test::host_tensor(dt, {rows, len}, x)}, {test::output_spec(dt, {rows, len})});
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  std::vector<double> y(x.size());
  if (!r.ok()) return y;
  for (size_t i = 0; i < y.size(); ++i) {
    if (dt == DType::kF32) {
      float v;
      std::memcpy(&v, r.outputs[0].bytes.data() + i * sizeof(float), sizeof(float));
      y[i] = v;
    } else {
      std::memcpy(&y[i], r.outputs[0].bytes.data() + i * sizeof(double), sizeof(double));
    }
  }
  return y;
}

// Rows of 40 (the vectorized passes) and 5 (inline): a NaN, +inf, every key -inf, all but one
// -inf, +inf beside -inf, and an ordinary row: f32 gives NaN exactly where f64 does, and
// otherwise the same probabilities.
TEST(SoftmaxRows, F32SoftmaxOnSpecialRowsMatchesF64) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  for (int64_t len : {40, 5}) {
    std::vector<double> x;
    auto row = [&](auto fill) {
      for (int64_t j = 0; j < len; ++j) x.push_back(fill(j));
    };
    row([&](int64_t j) { return j == 3 ? nan : 0.1 * static_cast<double>(j); });
    row([&](int64_t j) { return j == 2 ? inf : 0.1 * static_cast<double>(j); });
    row([&](int64_t) { return -inf; });
    row([&](int64_t j) { return j == len - 1 ? 2.0 : -inf; });
    row([&](int64_t j) { return j == 0 ? inf : -inf; });
    row([&](int64_t j) { return std::sin(static_cast<double>(j)) * 30.0; });
    const int64_t rows = static_cast<int64_t>(x.size()) / len;
    const std::vector<double> f32 = softmax(DType::kF32, rows, len, x);
    const std::vector<double> f64 = softmax(DType::kF64, rows, len, x);
    for (size_t i = 0; i < x.size(); ++i) {
      EXPECT_EQ(std::isnan(f32[i]), std::isnan(f64[i])) << "len " << len << " element " << i;
      if (!std::isnan(f64[i])) {
        EXPECT_NEAR(f32[i], f64[i], 1e-6) << "len " << len << " element " << i;
      }
    }
  }
}

}  // namespace
}  // namespace amp
