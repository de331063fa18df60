// kernels/cpu/packed_gemv.h: the AVX2 vector-matrix product against a double-precision one,
// at every edge of its 64-column panels (1 to 130 columns, a last panel of 1 or 63), K from
// 1 to 300, B transposed or not, starting from zero or accumulating into y; nothing past
// column N is written.
#include "kernels/cpu/packed_gemv.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "tests/test_util/avx2_kernel_cases.h"

namespace amp::kernels::cpu {
namespace {

void check(int64_t k, int64_t n, bool transposed, bool accumulate, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> x(k), b(k * n), y0(n + 3);
  for (float& v : x) v = u(rng);
  for (float& v : b) v = u(rng);
  for (float& v : y0) v = u(rng);
  const int64_t stride_k = transposed ? 1 : n, stride_n = transposed ? k : 1;
  PackedGemv g;
  g.prepare(k, n, b.data(), stride_k, stride_n);
  std::vector<float> y = y0;
  g.run(x.data(), y.data(), accumulate);
  const std::string what = "k=" + std::to_string(k) + " n=" + std::to_string(n) +
                           " transposed=" + std::to_string(transposed) +
                           " accumulate=" + std::to_string(accumulate);
  for (int64_t j = 0; j < n; ++j) {
    double acc = accumulate ? y0[j] : 0.0, mag = std::fabs(acc);
    for (int64_t p = 0; p < k; ++p) {
      const double t = static_cast<double>(x[p]) * b[p * stride_k + j * stride_n];
      acc += t;
      mag += std::fabs(t);
    }
    EXPECT_NEAR(y[j], acc, 2e-6 * mag + 1e-6) << what << ": y[" << j << "]";
  }
  for (int64_t j = n; j < n + 3; ++j) EXPECT_EQ(y[j], y0[j]) << what << ": wrote past N";
}

TEST(PackedGemv, MatchesTheProductAtEveryPanelEdge) {
  if (!test::cpu_runs_avx2_fma()) GTEST_SKIP() << "this CPU has no AVX2 + FMA (the kernel's ISA)";
  uint32_t seed = 1;
  for (int64_t n : {1, 8, 63, 64, 65, 127, 130})
    for (int64_t k : {1, 7, 64, 300})
      for (bool transposed : {false, true})
        for (bool accumulate : {false, true}) check(k, n, transposed, accumulate, ++seed);
}

}  // namespace
}  // namespace amp::kernels::cpu
