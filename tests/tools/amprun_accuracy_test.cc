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
  // Outputs within [-1, 1] keep plain atol: the same 0.0015 fails there.
  const Accuracy b = compare_outputs("probs", f32({0.9f, 0.04f}), f32({0.9f, 0.0415f}), 1e-2, 1e-3);
  EXPECT_FALSE(b.pass);
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
