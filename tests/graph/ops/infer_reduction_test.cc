#include <gtest/gtest.h>

#include <vector>

#include "tests/graph/ops/infer_test_util.h"

namespace amp::graph {
namespace {

TEST(InferReduce, AxesAndKeepdims) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {2, sym("N"), 4});
  ASSERT_OK(t.run(OpType::kReduceMean, {x, t.ints({1})}));
  EXPECT_EQ(t.shape(), "[2,1,4]");
  ASSERT_OK(t.run(OpType::kReduceSum, {x, t.ints({1})}, attrs({{"keepdims", int64_t{0}}})));
  EXPECT_EQ(t.shape(), "[2,4]");
  ASSERT_OK(t.run(OpType::kReduceMax, {x, t.ints({-1, 0})}, attrs({{"keepdims", int64_t{0}}})));
  EXPECT_EQ(t.shape(), "[N]");
}

TEST(InferReduce, NoAxesReducesAllUnlessNoop) {
  InferCase t;
  ValueId x = t.input(DType::kF16, {2, 3, 4});
  ASSERT_OK(t.run(OpType::kReduceMin, {x}));
  EXPECT_EQ(t.dtype(), DType::kF16);
  EXPECT_EQ(t.shape(), "[1,1,1]");
  ASSERT_OK(t.run(OpType::kReduceMean, {x}, attrs({{"keepdims", int64_t{0}}})));
  EXPECT_EQ(t.shape(), "[]");
  ASSERT_OK(t.run(OpType::kReduceSum, {x}, attrs({{"noop_with_empty_axes", int64_t{1}}})));
  EXPECT_EQ(t.shape(), "[2,3,4]");
  // An empty axes constant is the same as no axes.
  ASSERT_OK(
      t.run(OpType::kReduceSum, {x, t.ints({})}, attrs({{"noop_with_empty_axes", int64_t{1}}})));
  EXPECT_EQ(t.shape(), "[2,3,4]");
  ASSERT_OK(t.run(OpType::kReduceSum, {x, t.ints({})}));
  EXPECT_EQ(t.shape(), "[1,1,1]");
}

TEST(InferReduce, RuntimeAxes) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {2, 1, 4});
  ValueId axes = t.input(DType::kI64, {2});
  ASSERT_OK(t.run(OpType::kReduceMean, {x, axes}));
  EXPECT_EQ(t.shape(), "[?,1,?]");
  ASSERT_OK(t.run(OpType::kReduceMean, {x, axes}, attrs({{"keepdims", int64_t{0}}})));
  EXPECT_EQ(t.shape(), "[?]");
}

TEST(InferReduce, Errors) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {2, 3});
  EXPECT_TRUE(contains(t.error(OpType::kReduceMean, {x, t.ints({2})}),
                       "axes entry 2 is out of range for rank 2"));
  EXPECT_TRUE(contains(t.error(OpType::kReduceMean, {x, t.ints({0, -2})}), "names axis 0 twice"));
  EXPECT_TRUE(contains(t.error(OpType::kReduceMean, {x}, attrs({{"keepdims", int64_t{3}}})),
                       "'keepdims' is 3, expected 0 or 1"));
  ValueId b = t.input(DType::kBool, {2});
  EXPECT_OK(t.run(OpType::kReduceMax, {b}));
  EXPECT_TRUE(contains(t.error(OpType::kReduceSum, {b}),
                       "input 0 has dtype bool, expected a numeric type"));
  ValueId f = t.floats({0});
  EXPECT_TRUE(contains(t.error(OpType::kReduceSum, {x, f}), "input 1 has dtype f32, expected i64"));
}

TEST(InferArgMax, AxisKeepdimsAndIndexDtype) {
  InferCase t;
  ValueId x = t.input(DType::kF16, {sym("N"), 5, 7});
  ASSERT_OK(t.run(OpType::kArgMax, {x}, attrs({{"axis", int64_t{1}}})));
  EXPECT_EQ(t.dtype(), DType::kI64);
  EXPECT_EQ(t.shape(), "[N,1,7]");
  ASSERT_OK(t.run(OpType::kArgMax, {x}, attrs({{"axis", int64_t{-1}}, {"keepdims", int64_t{0}}})));
  EXPECT_EQ(t.shape(), "[N,5]");
  EXPECT_TRUE(contains(t.error(OpType::kArgMax, {x}, attrs({{"axis", int64_t{3}}})),
                       "axis 3 is out of range for rank 3"));
}

}  // namespace
}  // namespace amp::graph
