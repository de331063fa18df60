// The NaN-propagating row max compiled per ISA (kernels/cpu/row_max.h) against a plain loop,
// and GlobalMaxPool / ReduceMax over innermost axes, which run it on f32 rows, against the
// same ops in f16 (the generic path) on rows holding NaN and infinities.
#include "kernels/cpu/row_max.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "tests/test_util/kernel_harness.h"

namespace amp {
namespace {

using kernels::cpu::row_max_propagating;

float plain_max(const std::vector<float>& s) {
  float m = -std::numeric_limits<float>::infinity();
  for (float v : s) {
    if (std::isnan(v)) return v;
    m = std::max(m, v);
  }
  return m;
}

TEST(RowMax, PropagatesNanFromAnyPositionAndComparesInfinities) {
  std::mt19937 rng(7);
  std::normal_distribution<float> dist(0.0f, 10.0f);
  const float inf = std::numeric_limits<float>::infinity();
  for (int64_t n : {1, 7, 63, 64, 65, 127, 130, 508, 1000}) {
    std::vector<float> s(static_cast<size_t>(n));
    for (float& v : s) v = dist(rng);
    EXPECT_EQ(row_max_propagating(s.data(), n), plain_max(s)) << "n " << n;
    // The largest element in the tail past the 64 lanes.
    s.back() = plain_max(s) + 1.0f;
    EXPECT_EQ(row_max_propagating(s.data(), n), s.back()) << "n " << n;
    // Infinities without a NaN (they poison the lanes' check, the scan finds no NaN).
    s[static_cast<size_t>(n / 3)] = -inf;
    EXPECT_EQ(row_max_propagating(s.data(), n), n == 1 ? -inf : s.back()) << "n " << n;
    s[static_cast<size_t>(n / 2)] = inf;
    EXPECT_EQ(row_max_propagating(s.data(), n), inf) << "n " << n;
    // A NaN first, in the middle, last.
    for (int64_t at : {int64_t{0}, n / 2, n - 1}) {
      std::vector<float> t = s;
      t[static_cast<size_t>(at)] = std::nanf("");
      EXPECT_TRUE(std::isnan(row_max_propagating(t.data(), n))) << "n " << n << " at " << at;
    }
  }
  const double all_low[] = {-INFINITY, -INFINITY, -1e308};
  EXPECT_EQ(row_max_propagating(all_low, 3), -1e308);
}

std::vector<float> run_f32_and_f16(graph::OpType op, const std::vector<int64_t>& in_dims,
                                   const std::vector<int64_t>& out_dims,
                                   const std::vector<double>& x, std::vector<int64_t> axes,
                                   std::vector<float>& from_f16) {
  std::vector<float> f32;
  for (DType dt : {DType::kF32, DType::kF16}) {
    std::vector<test::HostTensor> inputs = {test::host_tensor(dt, in_dims, x)};
    graph::Attributes attrs;
    int version = 1;
    if (op == graph::OpType::kReduceMax) {
      inputs.push_back(test::host_tensor(DType::kI64, {static_cast<int64_t>(axes.size())},
                                         std::vector<double>(axes.begin(), axes.end())));
      version = 18;
    }
    test::KernelRun r = test::run_kernel({.op = op, .attrs = attrs, .op_version = version}, inputs,
                                         {test::output_spec(dt, out_dims)});
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    if (!r.ok()) return f32;
    const std::vector<double> values = test::tensor_values(r.outputs[0]);
    (dt == DType::kF32 ? f32 : from_f16).assign(values.begin(), values.end());
  }
  return f32;
}

// Planes of 300 (lanes and a tail): a NaN, +inf, all -inf, -inf beside a number, and
// ordinary values exactly representable in f16: f32 (vectorized) and f16 (generic) agree,
// NaN where the other has NaN.
TEST(RowMax, GlobalMaxPoolAndReduceMaxMatchTheGenericPath) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  const int64_t len = 300;
  std::vector<double> x;
  auto row = [&](auto fill) {
    for (int64_t j = 0; j < len; ++j) x.push_back(fill(j));
  };
  row([&](int64_t j) { return j == 77 ? nan : 0.25 * static_cast<double>(j % 40); });
  row([&](int64_t j) { return j == 299 ? inf : -0.5 * static_cast<double>(j % 9); });
  row([&](int64_t) { return -inf; });
  row([&](int64_t j) { return j == 150 ? -3.0 : -inf; });
  row([&](int64_t j) { return std::round(std::sin(static_cast<double>(j)) * 64.0) / 4.0; });
  row([&](int64_t j) { return j == 299 ? nan : 1.0; });
  const int64_t planes = static_cast<int64_t>(x.size()) / len;
  for (graph::OpType op : {graph::OpType::kGlobalMaxPool, graph::OpType::kReduceMax}) {
    std::vector<float> f16;
    const bool pool = op == graph::OpType::kGlobalMaxPool;
    const std::vector<float> f32 =
        pool ? run_f32_and_f16(op, {1, planes, len}, {1, planes, 1}, x, {}, f16)
             : run_f32_and_f16(op, {planes, 3, 100}, {planes, 1, 1}, x, {1, 2}, f16);
    ASSERT_EQ(f32.size(), static_cast<size_t>(planes));
    ASSERT_EQ(f16.size(), f32.size());
    for (size_t p = 0; p < f32.size(); ++p) {
      EXPECT_EQ(std::isnan(f32[p]), std::isnan(f16[p])) << "plane " << p;
      if (!std::isnan(f16[p])) {
        EXPECT_EQ(f32[p], f16[p]) << "plane " << p;
      }
    }
  }
}

}  // namespace
}  // namespace amp
