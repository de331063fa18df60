// kernels/cpu/packed_gemm.h and its epilogue (kernels/cpu/vector_activation.h): the AVX2
// kernel against a double-precision product on shapes that reach every edge of its
// blocking (strips of 1-6 rows, rows in several blocks, K slices of 256, panels
// narrower than 16 columns, of 8 or fewer, B walked slice by slice or panel by panel), with
// and without a bias, each activation, one and two
// threads. The kernel runs on any CPU with AVX2 and FMA (AVX-512 ones included: MatMul only picks
// it where AVX-512 is absent, dnnl_test.cc); where AVX-512 is visible its strips are the
// AVX-512 kernel's (gemm_strip_avx512.h), which the suite's AsOnAnAvx2Cpu run hides.
#include "kernels/cpu/packed_gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "kernels/common/elementwise_functors.h"
#include "kernels/cpu/gemm_strip_avx2.h"
#include "kernels/cpu/gemm_strip_avx512.h"
#include "kernels/cpu/vector_activation.h"
#include "tests/test_util/avx2_kernel_cases.h"

namespace amp::kernels::cpu {
namespace {

using graph::ActivationKind;
using graph::FusedActivation;

struct Case {
  int64_t rows, k, n;
  bool bias = true;
  bool transposed_b = false;
  int threads = 1;
  FusedActivation act;
};

void check(const Case& c, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> x(c.rows * c.k), b(c.k * c.n), bias(c.n);
  for (float& v : x) v = u(rng);
  for (float& v : b) v = u(rng);
  for (float& v : bias) v = u(rng);
  // B's element (k, j): at k * n + j, or transposed (stored [N, K]) at j * k + k.
  const int64_t stride_k = c.transposed_b ? 1 : c.n, stride_n = c.transposed_b ? c.k : 1;
  PackedGemm g;
  g.prepare(c.k, c.n, b.data(), stride_k, stride_n, c.act);
  std::vector<float> y(c.rows * c.n, std::nanf(""));
  g.run(x.data(), c.rows, c.bias ? bias.data() : nullptr, y.data(), c.threads);
  const std::string what = "rows=" + std::to_string(c.rows) + " k=" + std::to_string(c.k) +
                           " n=" + std::to_string(c.n) + " bias=" + std::to_string(c.bias) +
                           " transposed=" + std::to_string(c.transposed_b) +
                           " threads=" + std::to_string(c.threads) +
                           " act=" + std::to_string(static_cast<int>(c.act.kind));
  int reported = 0;
  for (int64_t r = 0; r < c.rows; ++r)
    for (int64_t j = 0; j < c.n; ++j) {
      double acc = c.bias ? bias[j] : 0.0, mag = std::fabs(acc);
      for (int64_t p = 0; p < c.k; ++p) {
        const double t = static_cast<double>(x[r * c.k + p]) * b[p * stride_k + j * stride_n];
        acc += t;
        mag += std::fabs(t);
      }
      // The product to f32 rounding of its terms, then the activation (slopes <= ~1.1).
      const float want = ew::apply_activation(c.act, static_cast<float>(acc));
      const double tol = 2e-6 * mag + 1e-5 * std::fabs(want) + 1e-6;
      const float got = y[r * c.n + j];
      if (!(std::fabs(got - want) <= tol) && reported++ < 5)
        ADD_FAILURE() << what << ": y[" << r << ", " << j << "] = " << got << ", want " << want;
    }
}

TEST(PackedGemm, MatchesTheProductAtEveryBlockingEdge) {
  if (!test::cpu_runs_avx2_fma()) GTEST_SKIP() << "this CPU has no AVX2 + FMA (the kernel's ISA)";
  const std::vector<Case> cases = {
      // Strips: 1-13 rows (6 + 6 + 1 -> 5 + 4 + 4), one row, an exact strip.
      {1, 7, 16},
      {2, 9, 33},
      {3, 64, 16},
      {4, 20, 17},
      {5, 31, 48},
      {6, 16, 16},
      {7, 40, 31},
      {11, 33, 64},
      {13, 70, 100},
      {32, 384, 96},
      // K slices of 256: just below, at, just past, several.
      {9, 255, 40},
      {9, 256, 40},
      {9, 257, 40},
      {8, 600, 24},
      // Rows in one block or several (blocks of 96 to 256 rows, by L2: 300 rows are two or
      // more, cut evenly), with K slices; narrow N (one masked panel).
      {100, 50, 20},
      {197, 64, 3},
      {40, 12, 1},
      {300, 270, 40},
      {520, 20, 17, true, false, 2},
      // A last panel of exactly 8 columns, or fewer, runs one register column (NV = 1).
      {7, 40, 24},
      {5, 33, 8},
      {6, 70, 29},
      // No bias, B transposed (Gemm transB), two threads.
      {12, 100, 72, false},
      {12, 100, 72, true, true},
      {33, 300, 200, true, false, 2},
      {33, 300, 200, false, true, 2},
      // A y wider than half of L2 (up to 2 MiB) walks B panel by panel (panel_outer): K in
      // two slices, a last panel of 4 columns, one thread or two (each over 1 MiB of y).
      {128, 300, 2100},
      {256, 300, 2100, true, false, 2},
      {130, 257, 2052, false, true},
  };
  uint32_t seed = 1;
  for (const Case& c : cases) check(c, ++seed);
}

TEST(PackedGemm, EachActivationOnTheWholeOutput) {
  if (!test::cpu_runs_avx2_fma()) GTEST_SKIP() << "this CPU has no AVX2 + FMA (the kernel's ISA)";
  uint32_t seed = 100;
  for (const FusedActivation& act : test::every_fused_activation()) {
    check({21, 90, 50, true, false, 1, act}, ++seed);
    check({50, 64, 300, true, false, 2, act}, ++seed);  // two threads, each its own columns
  }
}

// run_serial (the Winograd convolution's products): rows of x and y further apart than K
// and N, no bias or activation; what lies between y's rows is left as it was.
TEST(PackedGemm, RunSerialReadsAndWritesStridedRows) {
  if (!test::cpu_runs_avx2_fma()) GTEST_SKIP() << "this CPU has no AVX2 + FMA (the kernel's ISA)";
  for (const auto& [rows, k, n] :
       {std::tuple<int64_t, int64_t, int64_t>{9, 40, 20}, {12, 300, 16}, {5, 16, 40}}) {
    const int64_t ldx = k + 5, ldy = n + 3;
    std::mt19937 rng(static_cast<uint32_t>(rows * k + n));
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> x(rows * ldx), b(k * n);
    for (float& v : x) v = u(rng);
    for (float& v : b) v = u(rng);
    PackedGemm g;
    g.prepare(k, n, b.data(), n, 1, {ActivationKind::kRelu});  // run_serial skips it
    std::vector<float> y(rows * ldy, 7.0f);
    g.run_serial(x.data(), ldx, rows, y.data(), ldy);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0, mag = 0;
        for (int64_t p = 0; p < k; ++p) {
          acc += static_cast<double>(x[r * ldx + p]) * b[p * n + j];
          mag += std::fabs(static_cast<double>(x[r * ldx + p]) * b[p * n + j]);
        }
        ASSERT_NEAR(y[r * ldy + j], acc, 2e-6 * mag + 1e-6) << r << ", " << j;
      }
      for (int64_t j = n; j < ldy; ++j) ASSERT_EQ(y[r * ldy + j], 7.0f) << r << ", " << j;
    }
  }
}

// run_serial over whole panels [j0, j1) (the recurrent layers' threads each take their
// units): starting from the bias, or adding to y's values; columns outside the range, and
// between rows, are left as they were.
TEST(PackedGemm, RunSerialOverAColumnRangeWithBiasOrAccumulating) {
  if (!test::cpu_runs_avx2_fma()) GTEST_SKIP() << "this CPU has no AVX2 + FMA (the kernel's ISA)";
  const int64_t rows = 4, k = 70, n = 150, ldy = n + 2;  // 10 panels, the last of 6 columns
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> x(rows * k), b(k * n), bias(n), start(rows * ldy);
  for (float& v : x) v = u(rng);
  for (float& v : b) v = u(rng);
  for (float& v : bias) v = u(rng);
  for (float& v : start) v = u(rng);
  PackedGemm g;
  g.prepare(k, n, b.data(), n, 1, {});
  for (const auto& [j0, j1] : {std::pair<int64_t, int64_t>{0, n}, {16, 64}, {64, n}, {48, 64}})
    for (bool accumulate : {false, true}) {
      std::vector<float> y = start;
      g.run_serial(x.data(), k, rows, y.data(), ldy, j0, j1, bias.data(), accumulate);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < ldy; ++j) {
          const float before = start[r * ldy + j];
          if (j < j0 || j >= j1) {
            ASSERT_EQ(y[r * ldy + j], before)
                << "outside [" << j0 << ", " << j1 << "): " << r << ", " << j;
            continue;
          }
          double acc = accumulate ? before : bias[j], mag = std::fabs(acc);
          for (int64_t p = 0; p < k; ++p) {
            acc += static_cast<double>(x[r * k + p]) * b[p * n + j];
            mag += std::fabs(static_cast<double>(x[r * k + p]) * b[p * n + j]);
          }
          ASSERT_NEAR(y[r * ldy + j], acc, 2e-6 * mag + 1e-6)
              << "[" << j0 << ", " << j1 << ") accumulate=" << accumulate << ": " << r << ", " << j;
        }
    }
}

// The AVX-512 strip kernel sums in the AVX2 kernel's order (one FMA a step over k, from the
// same start): the two agree bit for bit on every row count, panel count and width.
TEST(GemmStripAvx512, BitEqualToTheAvx2Kernel) {
  if (!cpu_has_avx512f()) GTEST_SKIP() << "this CPU has no AVX-512F (or it is hidden)";
  const int64_t kc = 37, panel = kc * kStripColumns;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> x(kStripRows * kc), b(kAvx512StripPanels * panel), bias(48), c0(6 * 48);
  for (float& v : x) v = u(rng);
  for (float& v : b) v = u(rng);
  for (float& v : bias) v = u(rng);
  for (float& v : c0) v = u(rng);
  for (int64_t rows = 1; rows <= kStripRows; ++rows)
    for (int panels = 1; panels <= kAvx512StripPanels; ++panels)
      for (int64_t width : {16 * panels - 16 + 1, 16 * panels - 3, 16 * panels})
        for (bool first : {true, false}) {
          std::vector<float> wide = c0, narrow = c0;
          gemm_strip_avx512(rows, x.data(), kc, b.data(), panel, panels, kc, wide.data(), 48,
                            bias.data(), first, width);
          for (int v = 0; v < panels; ++v)
            gemm_strip_avx2(rows, x.data(), kc, b.data() + v * panel, kStripColumns, kc,
                            narrow.data() + 16 * v, 48, bias.data() + 16 * v, first,
                            std::min<int64_t>(16, width - 16 * v), /*b_rows_padded=*/true);
          for (size_t i = 0; i < wide.size(); ++i)
            ASSERT_EQ(wide[i], narrow[i])
                << "rows=" << rows << " panels=" << panels << " width=" << width
                << " first=" << first << ": element " << i;
        }
}

// Panels packed from a model constant are shared by every PackedGemm that packs the same
// bytes of the same owner the same way (an engine's plans for several input shapes), never
// across owners or strides; without an owner each keeps its own. Packing needs no AVX2.
TEST(PackedGemm, PanelsOfOneConstantAreShared) {
  const int64_t k = 40, n = 20;
  auto owner = std::make_shared<std::vector<float>>(k * n, 0.5f);
  auto held = [&](const std::shared_ptr<const void>& o, int64_t stride_k, int64_t stride_n) {
    auto g = std::make_shared<PackedGemm>();
    g->prepare(k, n, owner->data(), stride_k, stride_n, {}, o);
    return g;
  };
  const auto a = held(owner, n, 1), b = held(owner, n, 1);
  EXPECT_EQ(a->held_constant().id, b->held_constant().id);
  // 2 panels of 16 columns x 40 rows.
  EXPECT_EQ(a->held_constant().bytes, size_t{2 * 16 * 40 * sizeof(float)});
  EXPECT_NE(held(owner, 1, k)->held_constant().id, a->held_constant().id);  // transposed
  EXPECT_NE(held(nullptr, n, 1)->held_constant().id, a->held_constant().id);
  std::shared_ptr<std::vector<float>> alias(std::make_shared<int>(0), owner.get());
  EXPECT_NE(held(alias, n, 1)->held_constant().id, a->held_constant().id);
}

// The epilogue on its own: each kind against apply_activation (Relu, LeakyRelu, Clip bit
// for bit, the others, Tanh included, within an ulp or a few), over values past every kink
// and into the exp's slow ranges.
TEST(VectorActivation, MatchesApplyActivation) {
  std::vector<float> x;
  for (float v = -30.0f; v <= 30.0f; v += 0.01f) x.push_back(v);
  x.push_back(0.0f);
  for (const FusedActivation& act : test::every_fused_activation()) {
    std::vector<float> y = x;
    activate_f32(act, y.data(), static_cast<int64_t>(y.size()));
    const bool exact = act.kind == ActivationKind::kNone || act.kind == ActivationKind::kRelu ||
                       act.kind == ActivationKind::kLeakyRelu || act.kind == ActivationKind::kClip;
    const bool linear_pieces =
        act.kind == ActivationKind::kHardSigmoid || act.kind == ActivationKind::kHardSwish;
    int reported = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      const float want = ew::apply_activation(act, x[i]);
      // HardSigmoid / HardSwish: alpha x + beta may become one fused multiply-add in the
      // vector loop (one rounding instead of two: an ulp of beta). exp-based: a few ulp, and
      // the f32 rounding of exp's argument in the tails.
      const double tol = exact           ? 0.0
                         : linear_pieces ? 1e-6 * std::fabs(want) + 4e-7
                                         : 1e-6 * std::fabs(want) * (1 + x[i] * x[i]) + 1e-37;
      if (!(std::fabs(y[i] - want) <= tol) && reported++ < 5)
        ADD_FAILURE() << "kind " << static_cast<int>(act.kind) << " at " << x[i] << ": " << y[i]
                      << ", want " << want;
    }
  }
}

}  // namespace
}  // namespace amp::kernels::cpu
