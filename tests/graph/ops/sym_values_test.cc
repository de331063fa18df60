// Symbolic shape values (graph/ops/sym_values.h): the shapes dynamic exports compute at run
// time, from Shape through Gather / Slice / Concat / arithmetic into Reshape, Expand,
// ConstantOfShape and Range, keep their named dims.
#include "graph/ops/sym_values.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "tests/graph/ops/infer_test_util.h"

namespace amp::graph {
namespace {

// Shape(x)[start:end] as torch.export slices it.
ValueId shape_slice(InferCase& t, ValueId x, int64_t start, int64_t end) {
  EXPECT_OK(t.run(OpType::kShape, {x}));
  const ValueId s = t.out_id();
  EXPECT_OK(t.run(OpType::kSlice, {s, t.ints({start}), t.ints({end})}));
  return t.out_id();
}

TEST(SymValues, KvCacheConcatAndItsComputedReshapes) {
  InferCase t;
  const ValueId past = t.input(DType::kF32, {1, 4, sym("past"), 64});
  const ValueId now = t.input(DType::kF32, {1, 4, 1, 64});
  ASSERT_OK(t.run(OpType::kConcat, {past, now}, attrs({{"axis", int64_t{2}}})));
  EXPECT_EQ(t.shape(), "[1,4,past + 1,64]");
  const ValueId present = t.out_id();

  // repeat_kv: Expand(Unsqueeze(k, 2), Concat(Shape(k)[0:2], [2], Shape(k)[2:4])), then
  // Reshape(_, Concat([1], [8], Shape(k)[2:3], [64])).
  ASSERT_OK(t.run(OpType::kUnsqueeze, {present, t.ints({2})}));
  const ValueId unsq = t.out_id();
  const ValueId lead = shape_slice(t, present, 0, 2), tail = shape_slice(t, present, 2, 4);
  ASSERT_OK(t.run(OpType::kConcat, {lead, t.ints({2}), tail}, attrs({{"axis", int64_t{0}}})));
  const ValueId target5 = t.out_id();
  ASSERT_EQ(t.out().sym_value->size(), 5u);
  EXPECT_EQ((*t.out().sym_value)[3].to_string(), "past + 1");
  ASSERT_OK(t.run(OpType::kExpand, {unsq, target5}));
  EXPECT_EQ(t.shape(), "[1,4,2,past + 1,64]");
  const ValueId rep = t.out_id();
  const ValueId len = shape_slice(t, present, 2, 3);
  ASSERT_OK(t.run(OpType::kConcat, {t.ints({1}), t.ints({8}), len, t.ints({64})},
                  attrs({{"axis", int64_t{0}}})));
  ASSERT_OK(t.run(OpType::kReshape, {rep, t.out_id()}));
  EXPECT_EQ(t.shape(), "[1,8,past + 1,64]");
  const ValueId heads = t.out_id();
  // K^T as Reshape [B H, S, D] with a -1: the symbol solves through the element count.
  ASSERT_OK(
      t.run(OpType::kConcat, {t.ints({-1}), len, t.ints({64})}, attrs({{"axis", int64_t{0}}})));
  ASSERT_OK(t.run(OpType::kReshape, {heads, t.out_id()}));
  EXPECT_EQ(t.shape(), "[8,past + 1,64]");
}

TEST(SymValues, ArithmeticGatherRangeAndConstantOfShape) {
  InferCase t;
  const ValueId x = t.input(DType::kF32, {sym("batch"), sym("seq"), 768});
  ASSERT_OK(t.run(OpType::kShape, {x}));
  const ValueId shape = t.out_id();
  ASSERT_OK(t.run(OpType::kGather, {shape, t.scalar_i64(1)}, attrs({{"axis", int64_t{0}}})));
  const ValueId seq = t.out_id();  // a scalar
  ASSERT_TRUE(t.out().sym_value.has_value());
  ASSERT_OK(t.run(OpType::kAdd, {seq, t.scalar_i64(3)}));
  const ValueId limit = t.out_id();
  ASSERT_OK(t.run(OpType::kRange, {seq, limit, t.scalar_i64(1)}));
  EXPECT_EQ(t.shape(), "[3]");  // arange(seq, seq + 3)
  ASSERT_OK(t.run(OpType::kMul, {seq, t.scalar_i64(2)}));
  ASSERT_OK(t.run(OpType::kDiv, {t.out_id(), t.scalar_i64(2)}));
  ASSERT_OK(t.run(OpType::kUnsqueeze, {t.out_id(), t.ints({0})}));
  const ValueId seq1 = t.out_id();
  ASSERT_OK(t.run(OpType::kConcat, {seq1, seq1}, attrs({{"axis", int64_t{0}}})));
  ASSERT_OK(t.run(OpType::kConstantOfShape, {t.out_id()}));
  EXPECT_EQ(t.shape(), "[seq,seq]");  // a causal mask's [S, S]
  ASSERT_OK(t.run(OpType::kSize, {x}));
  EXPECT_EQ((*t.out().sym_value)[0].to_string(), "768*batch*seq");
  // Max of two different symbols, or an inexact Div, is an unknown element.
  ASSERT_OK(t.run(OpType::kDiv, {seq, t.scalar_i64(2)}));
  EXPECT_FALSE(t.out().sym_value.has_value());
  ASSERT_OK(t.run(OpType::kGather, {shape, t.ints({1, 0})}, attrs({{"axis", int64_t{0}}})));
  ASSERT_OK(t.run(OpType::kConcat, {t.out_id(), t.ints({-1})}, attrs({{"axis", int64_t{0}}})));
  ASSERT_OK(t.run(OpType::kReshape, {x, t.out_id()}));
  EXPECT_EQ(t.shape(), "[seq,batch,768]");
}

TEST(SymValues, NonIntegerOrLargeValuesCarryNothing) {
  InferCase t;
  const ValueId x = t.input(DType::kF32, {sym("n"), 4});
  ASSERT_OK(t.run(OpType::kShape, {x}));
  ASSERT_OK(t.run(OpType::kCast, {t.out_id()}, attrs({{"to", int64_t{1}}})));  // to float
  EXPECT_FALSE(t.out().sym_value.has_value());
  const ValueId wide = t.input(DType::kI64, {100});
  ASSERT_OK(t.run(OpType::kIdentity, {wide}));
  EXPECT_FALSE(t.out().sym_value.has_value());
  // A computed Reshape target nobody can name gives unnamed dims of the right rank.
  const ValueId opaque = t.input(DType::kI64, {3});
  ASSERT_OK(t.run(OpType::kReshape, {x, opaque}));
  EXPECT_EQ(t.shape(), "[?,?,?]");
}

TEST(SymValues, SlicesWithComputedBoundsAndTorchScriptsExpandTarget) {
  InferCase t;
  const ValueId x = t.input(DType::kF32, {sym("batch"), sym("seq")});
  const ValueId table = t.input(DType::kI64, {1, 512});
  const ValueId seq = shape_slice(t, x, 1, 2);
  // position_ids[:, 0:seq] of a 512-long table: seq, taking the bound as within the dim.
  ASSERT_OK(t.run(OpType::kSlice, {table, t.ints({0}), seq, t.ints({1})}));
  EXPECT_EQ(t.shape(), "[1,seq]");
  // x[:, 1:], x[:, :-1] and x[:, -1:] of a symbolic dim.
  ASSERT_OK(t.run(OpType::kSlice, {x, t.ints({1}), t.ints({INT64_MAX}), t.ints({1})}));
  EXPECT_EQ(t.shape(), "[batch,seq - 1]");
  ASSERT_OK(t.run(OpType::kSlice, {x, t.ints({0}), t.ints({-1}), t.ints({1})}));
  EXPECT_EQ(t.shape(), "[batch,seq - 1]");
  ASSERT_OK(t.run(OpType::kSlice, {x, t.ints({-1}), t.ints({INT64_MAX}), t.ints({1})}));
  EXPECT_EQ(t.shape(), "[batch,1]");
  // Where(Equal(shape, -1), 1, shape): a dims polynomial is never -1.
  ASSERT_OK(t.run(OpType::kShape, {x}));
  const ValueId shape = t.out_id();
  ASSERT_OK(t.run(OpType::kEqual, {shape, t.ints({-1, -1})}));
  ASSERT_OK(t.run(OpType::kWhere, {t.out_id(), t.ints({1, 1}), shape}));
  ASSERT_OK(t.run(OpType::kExpand, {t.input(DType::kF32, {1, 1}), t.out_id()}));
  EXPECT_EQ(t.shape(), "[batch,seq]");
  // Flatten of two symbolic dims is their product.
  ASSERT_OK(t.run(OpType::kFlatten, {x}, attrs({{"axis", int64_t{2}}})));
  EXPECT_EQ(t.shape(), "[batch*seq,1]");
}

}  // namespace
}  // namespace amp::graph
