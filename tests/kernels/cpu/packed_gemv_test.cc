// kernels/cpu/packed_gemv.h: the AVX2 vector-matrix product against a double-precision one,
// at every edge of its 64-column panels (1 to 130 columns, a last panel of 1 or 63), K from
// 1 to 300, B transposed or not, starting from zero or accumulating into y; nothing past
// column N is written. run_rows (MatMul's few-row products): 1 to 4 rows, with and without a
// bias, every fused activation, on one and two threads.
#include "kernels/cpu/packed_gemv.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "graph/ops/fused_activation.h"
#include "kernels/common/elementwise_functors.h"
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

void check_rows(int64_t rows, int64_t k, int64_t n, bool bias, const graph::FusedActivation& act,
                int threads, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> x(rows * k), b(k * n), c(n), y(rows * n + 3, 7.0f);
  for (float& v : x) v = u(rng);
  for (float& v : b) v = u(rng);
  for (float& v : c) v = u(rng);
  PackedGemv g;
  g.prepare(k, n, b.data(), n, 1);
  g.run_rows(x.data(), rows, bias ? c.data() : nullptr, act, y.data(), threads);
  const std::string what = "rows=" + std::to_string(rows) + " k=" + std::to_string(k) +
                           " n=" + std::to_string(n) + " bias=" + std::to_string(bias) +
                           " activation=" + std::to_string(static_cast<int>(act.kind)) +
                           " threads=" + std::to_string(threads);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < n; ++j) {
      double acc = bias ? c[j] : 0.0, mag = std::fabs(acc);
      for (int64_t p = 0; p < k; ++p) {
        const double t = static_cast<double>(x[r * k + p]) * b[p * n + j];
        acc += t;
        mag += std::fabs(t);
      }
      // The product to f32 rounding of its terms, then the activation (slopes <= ~1.1).
      EXPECT_NEAR(y[r * n + j], ew::apply_activation(act, static_cast<float>(acc)),
                  3e-6 * mag + 1e-5)
          << what << ": y[" << r << ", " << j << "]";
    }
  for (int64_t j = rows * n; j < rows * n + 3; ++j) EXPECT_EQ(y[j], 7.0f) << what << ": past y";
}

TEST(PackedGemv, RowsMatchTheProductWithBiasAndEveryActivation) {
  if (!test::cpu_runs_avx2_fma()) GTEST_SKIP() << "this CPU has no AVX2 + FMA (the kernel's ISA)";
  uint32_t seed = 100;
  // Widths at the edges of a panel and of AVX-512's two-panel shares; K past a multiple of 4.
  for (int64_t rows : {1, 2, 3, 4})
    for (int64_t n : {1, 17, 64, 100, 128, 129, 200})
      for (int64_t k : {1, 5, 70})
        for (bool bias : {false, true})
          check_rows(rows, k, n, bias, {graph::ActivationKind::kNone}, 1, ++seed);
  for (const graph::FusedActivation& act : test::every_fused_activation())
    check_rows(3, 33, 130, true, act, 1, ++seed);
  // Two threads split the shares once each holds ~64K weights: 300 x 1000 gives 4 or 8.
  for (int64_t rows : {1, 2, 4}) check_rows(rows, 300, 1000, true, {}, 2, ++seed);
}

}  // namespace
}  // namespace amp::kernels::cpu
