#include <gtest/gtest.h>

#include <vector>

#include "tests/graph/ops/infer_test_util.h"

namespace amp::graph {
namespace {

TEST(InferShapeOp, StartAndEnd) {
  InferCase t;
  ValueId x = t.input(DType::kF16, {sym("N"), 3, 4});
  ASSERT_OK(t.run(OpType::kShape, {x}));
  EXPECT_EQ(t.dtype(), DType::kI64);
  EXPECT_EQ(t.shape(), "[3]");
  ASSERT_OK(t.run(OpType::kShape, {x}, attrs({{"start", int64_t{1}}})));
  EXPECT_EQ(t.shape(), "[2]");
  ASSERT_OK(t.run(OpType::kShape, {x}, attrs({{"start", int64_t{-1}}})));
  EXPECT_EQ(t.shape(), "[1]");
  ASSERT_OK(t.run(OpType::kShape, {x}, attrs({{"start", int64_t{-10}}, {"end", int64_t{-1}}})));
  EXPECT_EQ(t.shape(), "[2]");
  ASSERT_OK(t.run(OpType::kShape, {x}, attrs({{"start", int64_t{2}}, {"end", int64_t{1}}})));
  EXPECT_EQ(t.shape(), "[0]");
  ValueId u = t.unknown(DType::kF32);
  ASSERT_OK(t.run(OpType::kShape, {u}));
  EXPECT_EQ(t.shape(), "[?]");
}

TEST(InferShapeOp, StartIgnoredBeforeOpset15) {
  InferCase t;
  t.set_opset(13);
  ValueId x = t.input(DType::kF32, {2, 3, 4});
  ASSERT_OK(t.run(OpType::kShape, {x}, attrs({{"start", int64_t{1}}})));
  EXPECT_EQ(t.shape(), "[3]");
}

TEST(InferShapeOp, SizeIsScalar) {
  InferCase t;
  ValueId x = t.input(DType::kBool, {sym("N"), 3});
  ASSERT_OK(t.run(OpType::kSize, {x}));
  EXPECT_EQ(t.dtype(), DType::kI64);
  EXPECT_EQ(t.shape(), "[]");
}

TEST(InferConstant, ValueAttributes) {
  InferCase t;
  ASSERT_OK(
      t.run(OpType::kConstant, {},
            attrs({{"value", TensorData::from_vector<float>(DType::kF32, {2, 2}, {1, 2, 3, 4})}})));
  EXPECT_EQ(t.dtype(), DType::kF32);
  EXPECT_EQ(t.shape(), "[2,2]");
  ASSERT_OK(t.run(OpType::kConstant, {}, attrs({{"value_ints", std::vector<int64_t>{1, 2, 3}}})));
  EXPECT_EQ(t.dtype(), DType::kI64);
  EXPECT_EQ(t.shape(), "[3]");
  ASSERT_OK(t.run(OpType::kConstant, {}, attrs({{"value_float", 1.5f}})));
  EXPECT_EQ(t.dtype(), DType::kF32);
  EXPECT_EQ(t.shape(), "[]");
  EXPECT_TRUE(contains(t.error(OpType::kConstant, {}), "exactly one of"));
  EXPECT_TRUE(contains(
      t.error(OpType::kConstant, {}, attrs({{"value_int", int64_t{1}}, {"value_float", 1.0f}})),
      "it has 2"));
  Status s = t.run(OpType::kConstant, {}, attrs({{"value_string", std::string("x")}}));
  EXPECT_EQ(s.code(), ErrorCode::kUnsupported);
  ValueId x = t.input(DType::kF32, {1});
  EXPECT_TRUE(contains(t.error(OpType::kConstant, {x}, attrs({{"value_int", int64_t{1}}})),
                       "has 1 inputs, expected 0 to 0"));
}

TEST(InferConstantOfShape, ShapeAndValueDtype) {
  InferCase t;
  ASSERT_OK(t.run(OpType::kConstantOfShape, {t.ints({2, 3})}));
  EXPECT_EQ(t.dtype(), DType::kF32);
  EXPECT_EQ(t.shape(), "[2,3]");
  ASSERT_OK(t.run(OpType::kConstantOfShape, {t.ints({4})},
                  attrs({{"value", TensorData::vector_i64({7})}})));
  EXPECT_EQ(t.dtype(), DType::kI64);
  EXPECT_EQ(t.shape(), "[4]");
  ASSERT_OK(t.run(OpType::kConstantOfShape, {t.ints({})}));
  EXPECT_EQ(t.shape(), "[]");
  ValueId s = t.input(DType::kI64, {3});
  ASSERT_OK(t.run(OpType::kConstantOfShape, {s}));
  EXPECT_EQ(t.shape(), "[?,?,?]");
  ValueId r = t.input(DType::kI64, {sym("R")});
  ASSERT_OK(t.run(OpType::kConstantOfShape, {r}));
  EXPECT_EQ(t.shape(), "none");
}

TEST(InferConstantOfShape, Errors) {
  InferCase t;
  EXPECT_TRUE(contains(t.error(OpType::kConstantOfShape, {t.ints({2, -1})}), "negative dim"));
  EXPECT_TRUE(contains(t.error(OpType::kConstantOfShape, {t.ints({2})},
                               attrs({{"value", TensorData::vector_i64({1, 2})}})),
                       "must hold one element"));
  EXPECT_TRUE(
      contains(t.error(OpType::kConstantOfShape, {t.ints({INT64_MAX, 4})}), "overflows int64"));
  EXPECT_TRUE(contains(t.error(OpType::kConstantOfShape, {t.floats({2})}),
                       "input 0 has dtype f32, expected i64"));
}

TEST(InferRange, ConstantLength) {
  InferCase t;
  ASSERT_OK(t.run(OpType::kRange, {t.scalar_i64(0), t.scalar_i64(10), t.scalar_i64(3)}));
  EXPECT_EQ(t.dtype(), DType::kI64);
  EXPECT_EQ(t.shape(), "[4]");  // 0 3 6 9
  ASSERT_OK(t.run(OpType::kRange, {t.scalar_i64(10), t.scalar_i64(0), t.scalar_i64(-3)}));
  EXPECT_EQ(t.shape(), "[4]");  // 10 7 4 1
  ASSERT_OK(t.run(OpType::kRange, {t.scalar_i64(0), t.scalar_i64(10), t.scalar_i64(-1)}));
  EXPECT_EQ(t.shape(), "[0]");
  ASSERT_OK(t.run(OpType::kRange,
                  {t.scalar_i64(INT64_MIN), t.scalar_i64(INT64_MAX), t.scalar_i64(INT64_MAX)}));
  EXPECT_EQ(t.shape(), "[3]");
  ASSERT_OK(t.run(OpType::kRange, {t.scalar_f32(0.0f), t.scalar_f32(1.0f), t.scalar_f32(0.3f)}));
  EXPECT_EQ(t.dtype(), DType::kF32);
  EXPECT_EQ(t.shape(), "[4]");
}

TEST(InferRange, RuntimeAndErrors) {
  InferCase t;
  ValueId start = t.input(DType::kI64, {});
  ASSERT_OK(t.run(OpType::kRange, {start, t.scalar_i64(10), t.scalar_i64(1)}));
  EXPECT_EQ(t.shape(), "[?]");
  EXPECT_TRUE(contains(t.error(OpType::kRange, {t.scalar_i64(0), t.scalar_i64(1), t.scalar_i64(0)}),
                       "delta is 0"));
  EXPECT_TRUE(contains(t.error(OpType::kRange, {t.scalar_i64(0), t.scalar_f32(1), t.scalar_i64(1)}),
                       "input 1 has dtype f32, expected i64"));
  EXPECT_TRUE(contains(t.error(OpType::kRange, {t.ints({0, 1}), t.scalar_i64(1), t.scalar_i64(1)}),
                       "input 0 must be a scalar"));
  ValueId b = t.input(DType::kBool, {});
  EXPECT_TRUE(
      contains(t.error(OpType::kRange, {b, b, b}), "expected a float type, i16, i32 or i64"));
}

}  // namespace
}  // namespace amp::graph
