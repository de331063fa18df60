#include <gtest/gtest.h>

#include "tests/graph/ops/infer_test_util.h"

namespace amp::graph {
namespace {

TEST(InferElementwise, UnaryKeepsDtypeAndShape) {
  InferCase t;
  ValueId x = t.input(DType::kF16, {sym("N"), 3, 8});
  ASSERT_OK(t.run(OpType::kSigmoid, {x}));
  EXPECT_EQ(t.dtype(), DType::kF16);
  EXPECT_EQ(t.shape(), "[N,3,8]");
}

TEST(InferElementwise, UnknownShapeStaysUnknownWithDtype) {
  InferCase t;
  ValueId x = t.unknown(DType::kF32);
  ASSERT_OK(t.run(OpType::kRelu, {x}));
  EXPECT_EQ(t.dtype(), DType::kF32);
  EXPECT_EQ(t.shape(), "none");
}

TEST(InferElementwise, FloatOnlyOpRejectsIntegers) {
  InferCase t;
  ValueId x = t.input(DType::kI64, {4});
  Status s = t.run(OpType::kExp, {x});
  EXPECT_EQ(s.code(), ErrorCode::kInvalidModel);
  EXPECT_TRUE(contains(s.message(), "input 0 has dtype i64, expected a float type")) << s.message();
  // The caller prefixes the node.
  EXPECT_TRUE(contains(s.message(), "(Exp)")) << s.message();
}

TEST(InferElementwise, IntegerFriendlyUnaryOps) {
  InferCase t;
  ValueId x = t.input(DType::kI32, {2});
  EXPECT_OK(t.run(OpType::kAbs, {x}));
  EXPECT_OK(t.run(OpType::kNeg, {x}));
  EXPECT_OK(t.run(OpType::kRelu, {x}));
  ValueId u = t.input(DType::kU8, {2});
  EXPECT_TRUE(contains(t.error(OpType::kNeg, {u}), "expected a signed numeric type"));
  ValueId b = t.input(DType::kBool, {2});
  ASSERT_OK(t.run(OpType::kNot, {b}));
  EXPECT_EQ(t.dtype(), DType::kBool);
  EXPECT_TRUE(contains(t.error(OpType::kNot, {x}), "expected bool"));
}

// Mod's fmod is validated where the model is read: 0 or 1, and 1 for float inputs (ONNX).
TEST(InferElementwise, ModRejectsABadFmod) {
  InferCase t;
  ValueId a = t.input(DType::kI32, {2, 3});
  ValueId b = t.input(DType::kI32, {3});
  ASSERT_OK(t.run(OpType::kMod, {a, b}));
  EXPECT_EQ(t.shape(), "[2,3]");
  ASSERT_OK(t.run(OpType::kMod, {a, b}, attrs({{"fmod", int64_t{1}}})));
  EXPECT_TRUE(contains(t.error(OpType::kMod, {a, b}, attrs({{"fmod", int64_t{2}}})),
                       "attribute 'fmod' must be 0 or 1"));
  ValueId x = t.input(DType::kF32, {3});
  EXPECT_TRUE(
      contains(t.error(OpType::kMod, {x, x}), "attribute 'fmod' must be 1 for float inputs"));
  ASSERT_OK(t.run(OpType::kMod, {x, x}, attrs({{"fmod", int64_t{1}}})));
  EXPECT_EQ(t.dtype(), DType::kF32);
}

TEST(InferElementwise, BroadcastStatic) {
  InferCase t;
  ValueId a = t.input(DType::kF32, {2, 1, 4});
  ValueId b = t.input(DType::kF32, {3, 1});
  ASSERT_OK(t.run(OpType::kAdd, {a, b}));
  EXPECT_EQ(t.shape(), "[2,3,4]");
}

TEST(InferElementwise, BroadcastScalarAndEmpty) {
  InferCase t;
  ValueId a = t.input(DType::kF32, {});
  ValueId b = t.input(DType::kF32, {0, 3});
  ASSERT_OK(t.run(OpType::kMul, {a, b}));
  EXPECT_EQ(t.shape(), "[0,3]");
}

TEST(InferElementwise, BroadcastSymbolicDims) {
  InferCase t;
  // N with N keeps N; N with 1 keeps N; N with static 5 gives 5; N with M is unknown.
  ValueId a = t.input(DType::kF32, {sym("N"), sym("N"), sym("N"), sym("N"), 1});
  ValueId b = t.input(DType::kF32, {sym("N"), 1, 5, sym("M"), sym("S")});
  ASSERT_OK(t.run(OpType::kSub, {a, b}));
  EXPECT_EQ(t.shape(), "[N,N,5,?,S]");
}

TEST(InferElementwise, BroadcastIncompatible) {
  InferCase t;
  ValueId a = t.input(DType::kF32, {2, 3});
  ValueId b = t.input(DType::kF32, {4});
  std::string e = t.error(OpType::kDiv, {a, b});
  EXPECT_TRUE(contains(e, "cannot broadcast [2,3] with [4]")) << e;
}

TEST(InferElementwise, BinaryNeedsSameDtype) {
  InferCase t;
  ValueId a = t.input(DType::kF32, {2});
  ValueId b = t.input(DType::kF16, {2});
  std::string e = t.error(OpType::kAdd, {a, b});
  EXPECT_TRUE(contains(e, "input 1 has dtype f16, expected f32 (the dtype of input 0)")) << e;
}

TEST(InferElementwise, BinaryWithUnknownShape) {
  InferCase t;
  ValueId a = t.input(DType::kF32, {2});
  ValueId b = t.unknown(DType::kF32);
  ASSERT_OK(t.run(OpType::kAdd, {a, b}));
  EXPECT_EQ(t.shape(), "none");
}

TEST(InferElementwise, ComparisonsGiveBool) {
  InferCase t;
  ValueId a = t.input(DType::kF32, {sym("N"), 1});
  ValueId b = t.input(DType::kF32, {4});
  ASSERT_OK(t.run(OpType::kGreater, {a, b}));
  EXPECT_EQ(t.dtype(), DType::kBool);
  EXPECT_EQ(t.shape(), "[N,4]");
  ValueId p = t.input(DType::kBool, {4});
  ASSERT_OK(t.run(OpType::kEqual, {p, p}));
  EXPECT_EQ(t.dtype(), DType::kBool);
  EXPECT_TRUE(contains(t.error(OpType::kLess, {p, p}), "expected a numeric type"));
}

TEST(InferElementwise, AndNeedsBool) {
  InferCase t;
  ValueId a = t.input(DType::kBool, {3});
  ValueId b = t.input(DType::kBool, {1});
  ASSERT_OK(t.run(OpType::kAnd, {a, b}));
  EXPECT_EQ(t.dtype(), DType::kBool);
  EXPECT_EQ(t.shape(), "[3]");
  ValueId f = t.input(DType::kF32, {3});
  EXPECT_TRUE(contains(t.error(OpType::kAnd, {f, f}), "input 0 has dtype f32, expected bool"));
}

TEST(InferElementwise, PowKeepsBaseDtype) {
  InferCase t;
  ValueId x = t.input(DType::kF16, {2, 3});
  ValueId e = t.input(DType::kF32, {});
  ASSERT_OK(t.run(OpType::kPow, {x, e}));
  EXPECT_EQ(t.dtype(), DType::kF16);
  EXPECT_EQ(t.shape(), "[2,3]");
  ValueId i = t.input(DType::kI64, {3});
  ASSERT_OK(t.run(OpType::kPow, {i, e}));
  EXPECT_EQ(t.dtype(), DType::kI64);
}

TEST(InferElementwise, VariadicMaxMin) {
  InferCase t;
  ValueId a = t.input(DType::kF32, {sym("N"), 1, 1});
  ValueId b = t.input(DType::kF32, {3, 1});
  ValueId c = t.input(DType::kF32, {4});
  ASSERT_OK(t.run(OpType::kMax, {a, b, c}));
  EXPECT_EQ(t.shape(), "[N,3,4]");
  ASSERT_OK(t.run(OpType::kMin, {c}));
  EXPECT_EQ(t.shape(), "[4]");
  ValueId d = t.input(DType::kI32, {4});
  EXPECT_TRUE(contains(t.error(OpType::kMin, {a, d}), "input 1 has dtype i32"));
}

TEST(InferElementwise, WhereBroadcastsThree) {
  InferCase t;
  ValueId c = t.input(DType::kBool, {sym("B"), 1, 4});
  ValueId x = t.input(DType::kF16, {3, 1});
  ValueId y = t.input(DType::kF16, {});
  ASSERT_OK(t.run(OpType::kWhere, {c, x, y}));
  EXPECT_EQ(t.dtype(), DType::kF16);
  EXPECT_EQ(t.shape(), "[B,3,4]");
  EXPECT_TRUE(contains(t.error(OpType::kWhere, {x, x, y}), "input 0 has dtype f16, expected bool"));
  ValueId z = t.input(DType::kF32, {});
  EXPECT_TRUE(contains(t.error(OpType::kWhere, {c, x, z}), "input 2 has dtype f32, expected f16"));
}

TEST(InferElementwise, CastUsesOnnxDtypeNumbers) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {sym("N"), 2});
  ASSERT_OK(t.run(OpType::kCast, {x}, attrs({{"to", int64_t{10}}})));
  EXPECT_EQ(t.dtype(), DType::kF16);
  EXPECT_EQ(t.shape(), "[N,2]");
  ASSERT_OK(t.run(OpType::kCast, {x}, attrs({{"to", int64_t{7}}})));
  EXPECT_EQ(t.dtype(), DType::kI64);
}

TEST(InferElementwise, CastErrors) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {2});
  Status s = t.run(OpType::kCast, {x}, attrs({{"to", int64_t{8}}}));  // string
  EXPECT_EQ(s.code(), ErrorCode::kUnsupported);
  EXPECT_TRUE(contains(s.message(), "Cast to ONNX dtype 8 is not supported")) << s.message();
  EXPECT_TRUE(contains(t.error(OpType::kCast, {x}), "attribute 'to' is required"));
  EXPECT_TRUE(
      contains(t.error(OpType::kCast, {x}, attrs({{"to", int64_t{-3}}})), "not an ONNX dtype"));
  EXPECT_TRUE(contains(t.error(OpType::kCast, {x}, attrs({{"to", std::string("f16")}})),
                       "attribute 'to' should be int but is string"));
}

TEST(InferElementwise, ClipBounds) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {2, 3});
  ValueId lo = t.scalar_f32(0.0f);
  ValueId hi = t.floats({6.0f});  // shape [1]: accepted as a scalar
  ASSERT_OK(t.run(OpType::kClip, {x, lo, hi}));
  EXPECT_EQ(t.shape(), "[2,3]");
  ASSERT_OK(t.run(OpType::kClip, {x, kNoValue, hi}));
  ValueId wide = t.floats({1.0f, 2.0f});
  EXPECT_TRUE(
      contains(t.error(OpType::kClip, {x, wide}), "input 1 must be a scalar, got shape [2]"));
  ValueId ilo = t.scalar_i64(0);
  EXPECT_TRUE(contains(t.error(OpType::kClip, {x, ilo}), "input 1 has dtype i64, expected f32"));
}

TEST(InferElementwise, ActivationsAndGelu) {
  InferCase t;
  ValueId x = t.input(DType::kBF16, {sym("T"), 64});
  for (OpType op : {OpType::kHardSigmoid, OpType::kHardSwish, OpType::kLeakyRelu, OpType::kTanh,
                    OpType::kErf, OpType::kSqrt, OpType::kReciprocal, OpType::kLog}) {
    ASSERT_OK(t.run(op, {x}));
    EXPECT_EQ(t.dtype(), DType::kBF16);
    EXPECT_EQ(t.shape(), "[T,64]");
  }
  ASSERT_OK(t.run(OpType::kGelu, {x}, attrs({{"approximate", std::string("tanh")}})));
  EXPECT_TRUE(contains(t.error(OpType::kGelu, {x}, attrs({{"approximate", std::string("fast")}})),
                       "'approximate' is 'fast'"));
}

TEST(InferElementwise, ArityIsChecked) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {2});
  EXPECT_TRUE(contains(t.error(OpType::kAdd, {x}), "has 1 inputs, expected 2 to 2"));
  EXPECT_TRUE(contains(t.error(OpType::kRelu, {x}, {}, 2), "has 2 outputs"));
}

TEST(InferElementwise, AbsentRequiredInput) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {2});
  EXPECT_TRUE(contains(t.error(OpType::kMul, {x, kNoValue}), "input 1 is required but absent"));
}

}  // namespace
}  // namespace amp::graph
