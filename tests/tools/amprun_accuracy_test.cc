// amprun's accuracy judgement (tools/amprun/accuracy.h): what passes and what fails.
#include "tools/amprun/accuracy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "amp/tensor.h"

namespace amprun {
namespace {

amp::Tensor f32(const std::vector<float>& v) {
  return amp::Tensor::from(v, {1, static_cast<int64_t>(v.size())});
}

TEST(AmprunAccuracy, AtolScalesWithTheOutputsLargestMagnitude) {
  // Logits of a low-precision run: 0.0015 off on a near-zero element of an output reaching
  // 12 is within atol 1e-3 in units of that scale (12e-3), though not of plain 1e-3.
  const Accuracy a = compare_outputs("logits", f32({12.0f, 0.04f, -3.0f}),
                                     f32({12.01f, 0.0415f, -3.02f}), 1e-2, 1e-3);
  EXPECT_TRUE(a.pass);
  EXPECT_NEAR(a.max_abs_err, 0.02, 1e-4);
  EXPECT_DOUBLE_EQ(a.scale, 12.0);
  // The same 0.0015 fails an output reaching only 0.9.
  const Accuracy b = compare_outputs("probs", f32({0.9f, 0.04f}), f32({0.9f, 0.0415f}), 1e-2, 1e-3);
  EXPECT_FALSE(b.pass);
}

TEST(AmprunAccuracy, TheVerdictDoesNotDependOnTheOutputsUnits) {
  // Floating-point error is relative: the same relative errors pass or fail alike at every
  // scale, small logits included (no floor at 1).
  const std::vector<float> e = {2.0f, -0.5f, 0.01f, 1.0f};
  const std::vector<float> ok = {2.002f, -0.501f, 0.0115f, 0.999f};  // atol: 0.002
  const std::vector<float> bad = {2.002f, -0.501f, 0.0250f, 0.999f};
  for (const float unit : {1e-4f, 1.0f, 1e4f}) {
    auto scaled = [unit](std::vector<float> v) {
      for (float& x : v) x *= unit;
      return f32(v);
    };
    EXPECT_TRUE(compare_outputs("y", scaled(e), scaled(ok), 1e-2, 1e-3).pass) << unit;
    EXPECT_FALSE(compare_outputs("y", scaled(e), scaled(bad), 1e-2, 1e-3).pass) << unit;
  }
  // An output whose values all flushed to zero in low precision fails however small they
  // were; an all-zero output must come back all zero.
  EXPECT_FALSE(compare_outputs("y", f32({4e-14f, -2e-14f}), f32({0.0f, 0.0f}), 1e-2, 1e-3).pass);
  EXPECT_TRUE(compare_outputs("y", f32({0.0f, 0.0f}), f32({0.0f, 0.0f}), 1e-2, 1e-3).pass);
  EXPECT_FALSE(compare_outputs("y", f32({0.0f, 0.0f}), f32({0.0f, 1e-9f}), 1e-2, 1e-3).pass);
}

TEST(AmprunAccuracy, DefaultTolerancesAreUnitsOfEachTypesRounding) {
  const Tolerance fp16 = default_tolerance(amp::Precision::kFp16);
  const Tolerance bf16 = default_tolerance(amp::Precision::kBf16);
  EXPECT_DOUBLE_EQ(fp16.atol, 8 * 0x1p-11);
  EXPECT_DOUBLE_EQ(fp16.rtol, 16 * 0x1p-11);
  EXPECT_DOUBLE_EQ(bf16.atol, 8 * 0x1p-8);
  EXPECT_DOUBLE_EQ(default_tolerance(amp::Precision::kAuto).atol, bf16.atol);
  EXPECT_DOUBLE_EQ(default_tolerance(amp::Precision::kFp32).rtol, 1e-3);
  // Logits like GPT-2's in fp16 (largest 2.83): the worst element measured 2.5 units of
  // fp16 rounding of that scale beyond 8 of its own value. That passes; an error of 20
  // units (fp16 accumulation or normalization) fails.
  const float scale = 2.83f, u = 0x1p-11f;
  const float x = 0.05f;
  const Accuracy healthy =
      compare_outputs("logits", f32({scale, x}), f32({scale, x + 2.5f * u * scale + 8 * u * x}),
                      fp16.rtol, fp16.atol);
  EXPECT_TRUE(healthy.pass);
  const Accuracy broken = compare_outputs("logits", f32({scale, x}),
                                          f32({scale, x + 20 * u * scale}), fp16.rtol, fp16.atol);
  EXPECT_FALSE(broken.pass);
}

TEST(AmprunAccuracy, NanMismatchAndShapeMismatchFail) {
  const Accuracy nan = compare_outputs("y", f32({1.0f, NAN}), f32({1.0f, 2.0f}), 1e-2, 1e-3);
  EXPECT_FALSE(nan.pass);
  EXPECT_NE(nan.problem.find("NaN"), std::string::npos);
  const Accuracy shape = compare_outputs("y", f32({1.0f, 2.0f}), f32({1.0f}), 1e-2, 1e-3);
  EXPECT_FALSE(shape.pass);
  EXPECT_NE(shape.problem.find("shape"), std::string::npos);
  // A NaN in the reference does not widen the scale.
  const Accuracy same = compare_outputs("y", f32({NAN, 0.5f}), f32({NAN, 0.5f}), 1e-2, 1e-3);
  EXPECT_TRUE(same.pass);
  EXPECT_EQ(same.nonfinite_both, 1);
  EXPECT_EQ(same.elements, 2);
}

TEST(AmprunAccuracy, CountsTheElementsNonFiniteInBoth) {
  // An output NaN or Inf everywhere in both runs agrees everywhere and measures nothing:
  // the count lets the report say so next to its "pass" and cosine 1.
  const Accuracy all =
      compare_outputs("y", f32({NAN, INFINITY, NAN}), f32({NAN, INFINITY, NAN}), 1e-2, 1e-3);
  EXPECT_TRUE(all.pass);
  EXPECT_EQ(all.nonfinite_both, 3);
  EXPECT_EQ(all.elements, 3);
  const Accuracy finite = compare_outputs("y", f32({1.0f, 2.0f}), f32({1.0f, 2.0f}), 1e-2, 1e-3);
  EXPECT_EQ(finite.nonfinite_both, 0);
}

}  // namespace
}  // namespace amprun
