#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "tests/graph/ops/infer_test_util.h"

namespace amp::graph {
namespace {

constexpr int64_t kMaxI64 = std::numeric_limits<int64_t>::max();
constexpr int64_t kMinI64 = std::numeric_limits<int64_t>::min();

// --- Reshape -------------------------------------------------------------------------

TEST(InferReshape, ZeroCopiesAndMinusOneInfers) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {2, 3, 4});
  ASSERT_OK(t.run(OpType::kReshape, {x, t.ints({0, -1})}));
  EXPECT_EQ(t.shape(), "[2,12]");
  ASSERT_OK(t.run(OpType::kReshape, {x, t.ints({4, -1, 3})}));
  EXPECT_EQ(t.shape(), "[4,2,3]");
  ASSERT_OK(t.run(OpType::kReshape, {x, t.ints({-1})}));
  EXPECT_EQ(t.shape(), "[24]");
}

TEST(InferReshape, SymbolsCancelByName) {
  InferCase t;
  ValueId x = t.input(DType::kF16, {sym("N"), sym("S"), 768});
  ASSERT_OK(t.run(OpType::kReshape, {x, t.ints({0, 0, 12, -1})}));
  EXPECT_EQ(t.dtype(), DType::kF16);
  EXPECT_EQ(t.shape(), "[N,S,12,64]");
  // Back again: -1 is the one remaining symbol.
  ValueId y = t.input(DType::kF32, {sym("N"), 12, 64});
  ASSERT_OK(t.run(OpType::kReshape, {y, t.ints({-1, 768})}));
  EXPECT_EQ(t.shape(), "[N,768]");
  // A symbol that does not cancel names the -1 by the product it leaves.
  ASSERT_OK(t.run(OpType::kReshape, {y, t.ints({-1})}));
  EXPECT_EQ(t.shape(), "[768*N]");
  ValueId z = t.input(DType::kF32, {sym("N"), Dim(), 64});
  ASSERT_OK(t.run(OpType::kReshape, {z, t.ints({-1})}));
  EXPECT_EQ(t.shape(), "[?]");  // an unnamed dim leaves it unknown
}

TEST(InferReshape, AllowZero) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {0, 3});
  ASSERT_OK(t.run(OpType::kReshape, {x, t.ints({3, 0})}, attrs({{"allowzero", int64_t{1}}})));
  EXPECT_EQ(t.shape(), "[3,0]");
  // Without allowzero the 0 copies input dim 1 (3): 0 elements cannot become 9.
  EXPECT_TRUE(contains(t.error(OpType::kReshape, {x, t.ints({3, 0})}), "element counts differ"));
  EXPECT_TRUE(
      contains(t.error(OpType::kReshape, {x, t.ints({0, -1})}, attrs({{"allowzero", int64_t{1}}})),
               "both 0 and -1"));
}

TEST(InferReshape, AllowZeroIgnoredBeforeOpset14) {
  InferCase t;
  t.set_opset(13);
  ValueId x = t.input(DType::kF32, {2, 3});
  ASSERT_OK(t.run(OpType::kReshape, {x, t.ints({0, 3})}, attrs({{"allowzero", int64_t{1}}})));
  EXPECT_EQ(t.shape(), "[2,3]");
}

TEST(InferReshape, Errors) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {2, 3});
  EXPECT_TRUE(
      contains(t.error(OpType::kReshape, {x, t.ints({4, 2})}), "cannot reshape [2,3] to [4,2]"));
  EXPECT_TRUE(contains(t.error(OpType::kReshape, {x, t.ints({-1, -1})}), "more than one -1"));
  EXPECT_TRUE(contains(t.error(OpType::kReshape, {x, t.ints({4, -1})}),
                       "6 elements are not a multiple of 4"));
  EXPECT_TRUE(contains(t.error(OpType::kReshape, {x, t.ints({-2, 3})}), "shape entry 0 is -2"));
  EXPECT_TRUE(contains(t.error(OpType::kReshape, {x, t.ints({1, 1, 0, 6})}), "input has rank 2"));
  ValueId f = t.floats({2.0f, 3.0f});
  EXPECT_TRUE(contains(t.error(OpType::kReshape, {x, f}), "input 1 has dtype f32, expected i64"));
}

TEST(InferReshape, RuntimeShapeGivesRankOnly) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {2, 3});
  ValueId s = t.input(DType::kI64, {3});
  ASSERT_OK(t.run(OpType::kReshape, {x, s}));
  EXPECT_EQ(t.shape(), "[?,?,?]");
  ValueId s2 = t.input(DType::kI64, {sym("R")});
  ASSERT_OK(t.run(OpType::kReshape, {x, s2}));
  EXPECT_EQ(t.shape(), "none");
}

// --- Flatten, Squeeze, Unsqueeze, Transpose -------------------------------------------

TEST(InferFlatten, Axes) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {2, 3, 4, 5});
  ASSERT_OK(t.run(OpType::kFlatten, {x}, attrs({{"axis", int64_t{2}}})));
  EXPECT_EQ(t.shape(), "[6,20]");
  ASSERT_OK(t.run(OpType::kFlatten, {x}, attrs({{"axis", int64_t{0}}})));
  EXPECT_EQ(t.shape(), "[1,120]");
  ASSERT_OK(t.run(OpType::kFlatten, {x}, attrs({{"axis", int64_t{-1}}})));
  EXPECT_EQ(t.shape(), "[24,5]");
  ValueId n = t.input(DType::kF32, {sym("N"), 3, 4});
  ASSERT_OK(t.run(OpType::kFlatten, {n}));
  EXPECT_EQ(t.shape(), "[N,12]");
  EXPECT_TRUE(contains(t.error(OpType::kFlatten, {x}, attrs({{"axis", int64_t{5}}})),
                       "axis 5 is out of range for rank 4"));
  ValueId u = t.unknown(DType::kF32);
  ASSERT_OK(t.run(OpType::kFlatten, {u}));
  EXPECT_EQ(t.shape(), "[?,?]");
}

TEST(InferFlatten, NegativeAxisNeedsOpset11) {
  InferCase t;
  t.set_opset(9);
  ValueId x = t.input(DType::kF32, {2, 3});
  EXPECT_TRUE(
      contains(t.error(OpType::kFlatten, {x}, attrs({{"axis", int64_t{-1}}})), "needs opset 11"));
}

TEST(InferSqueeze, WithAndWithoutAxes) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {1, 3, 1, sym("N")});
  ASSERT_OK(t.run(OpType::kSqueeze, {x, t.ints({0, -2})}));
  EXPECT_EQ(t.shape(), "[3,N]");
  ValueId y = t.input(DType::kF32, {1, 3, 1});
  ASSERT_OK(t.run(OpType::kSqueeze, {y}));
  EXPECT_EQ(t.shape(), "[3]");
  // A symbolic dim might be 1: without axes the rank is unknown.
  ASSERT_OK(t.run(OpType::kSqueeze, {x}));
  EXPECT_EQ(t.shape(), "none");
  EXPECT_TRUE(
      contains(t.error(OpType::kSqueeze, {x, t.ints({1})}), "cannot squeeze axis 1 of size 3"));
  EXPECT_TRUE(contains(t.error(OpType::kSqueeze, {x, t.ints({4})}),
                       "axes entry 4 is out of range for rank 4"));
}

TEST(InferUnsqueeze, AxesIndexTheOutput) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {3, sym("N")});
  ASSERT_OK(t.run(OpType::kUnsqueeze, {x, t.ints({0, -1})}));
  EXPECT_EQ(t.shape(), "[1,3,N,1]");
  ValueId s = t.input(DType::kF32, {});
  ASSERT_OK(t.run(OpType::kUnsqueeze, {s, t.ints({0})}));
  EXPECT_EQ(t.shape(), "[1]");
  EXPECT_TRUE(contains(t.error(OpType::kUnsqueeze, {x, t.ints({1, 1})}), "names axis 1 twice"));
  ValueId a = t.input(DType::kI64, {2});
  ASSERT_OK(t.run(OpType::kUnsqueeze, {x, a}));
  EXPECT_EQ(t.shape(), "[?,?,?,?]");
}

TEST(InferTranspose, PermAndDefault) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {sym("N"), 3, 4});
  ASSERT_OK(t.run(OpType::kTranspose, {x}, attrs({{"perm", std::vector<int64_t>{2, 0, 1}}})));
  EXPECT_EQ(t.shape(), "[4,N,3]");
  ASSERT_OK(t.run(OpType::kTranspose, {x}));
  EXPECT_EQ(t.shape(), "[4,3,N]");
  EXPECT_TRUE(
      contains(t.error(OpType::kTranspose, {x}, attrs({{"perm", std::vector<int64_t>{0, 0, 1}}})),
               "is not a permutation of 0..2"));
  EXPECT_TRUE(
      contains(t.error(OpType::kTranspose, {x}, attrs({{"perm", std::vector<int64_t>{1, 0}}})),
               "has 2 entries for rank 3"));
}

// --- Concat, Split --------------------------------------------------------------------

TEST(InferConcat, AddsTheAxisAndMergesOthers) {
  InferCase t;
  ValueId a = t.input(DType::kF32, {sym("N"), 3, 4});
  ValueId b = t.input(DType::kF32, {sym("N"), 5, 4});
  ASSERT_OK(t.run(OpType::kConcat, {a, b}, attrs({{"axis", int64_t{1}}})));
  EXPECT_EQ(t.shape(), "[N,8,4]");
  ASSERT_OK(t.run(OpType::kConcat, {a, b, a}, attrs({{"axis", int64_t{-2}}})));
  EXPECT_EQ(t.shape(), "[N,11,4]");
  ValueId c = t.input(DType::kF32, {2, 3, 4});
  ASSERT_OK(t.run(OpType::kConcat, {a, c}, attrs({{"axis", int64_t{0}}})));
  EXPECT_EQ(t.shape(), "[N + 2,3,4]");  // a symbolic sum (graph/ir/sym_int.h)
  ValueId u = t.input(DType::kF32, {Dim(), 3, 4});
  ASSERT_OK(t.run(OpType::kConcat, {a, u}, attrs({{"axis", int64_t{0}}})));
  EXPECT_EQ(t.shape(), "[?,3,4]");  // an unnamed part leaves the sum unknown
}

TEST(InferConcat, Errors) {
  InferCase t;
  ValueId a = t.input(DType::kF32, {2, 3});
  ValueId b = t.input(DType::kF32, {3, 3});
  ValueId c = t.input(DType::kF32, {2});
  ValueId h = t.input(DType::kF16, {2, 3});
  EXPECT_TRUE(contains(t.error(OpType::kConcat, {a, b}, attrs({{"axis", int64_t{1}}})),
                       "input 1 has shape [3,3], which differs from [2,3] off axis 1"));
  EXPECT_TRUE(contains(t.error(OpType::kConcat, {a, c}, attrs({{"axis", int64_t{0}}})),
                       "input 1 has rank 1, expected 2"));
  EXPECT_TRUE(contains(t.error(OpType::kConcat, {a, b}), "attribute 'axis' is required"));
  EXPECT_TRUE(contains(t.error(OpType::kConcat, {a, h}, attrs({{"axis", int64_t{0}}})),
                       "input 1 has dtype f16, expected f32"));
  EXPECT_TRUE(contains(t.error(OpType::kConcat, {a, b}, attrs({{"axis", int64_t{2}}})),
                       "axis 2 is out of range for rank 2"));
}

TEST(InferSplit, EqualPartsByOutputCount) {
  InferCase t;
  t.set_opset(13);
  ValueId x = t.input(DType::kF32, {6, sym("N")});
  ASSERT_OK(t.run(OpType::kSplit, {x}, {}, 3));
  for (size_t k = 0; k < 3; ++k) EXPECT_EQ(t.shape(k), "[2,N]");
  EXPECT_TRUE(contains(t.error(OpType::kSplit, {x}, {}, 4), "uneven splits need opset 18"));
}

TEST(InferSplit, Opset18UnevenLastChunkSmaller) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {2, 10});
  ASSERT_OK(
      t.run(OpType::kSplit, {x}, attrs({{"axis", int64_t{1}}, {"num_outputs", int64_t{4}}}), 4));
  EXPECT_EQ(t.shape(0), "[2,3]");
  EXPECT_EQ(t.shape(1), "[2,3]");
  EXPECT_EQ(t.shape(2), "[2,3]");
  EXPECT_EQ(t.shape(3), "[2,1]");
  ASSERT_OK(
      t.run(OpType::kSplit, {x}, attrs({{"axis", int64_t{-1}}, {"num_outputs", int64_t{3}}}), 3));
  EXPECT_EQ(t.shape(0), "[2,4]");
  EXPECT_EQ(t.shape(2), "[2,2]");
  EXPECT_TRUE(contains(t.error(OpType::kSplit, {x}, attrs({{"num_outputs", int64_t{3}}}), 2),
                       "'num_outputs' is 3 but the node has 2 outputs"));
  EXPECT_TRUE(contains(t.error(OpType::kSplit, {x}, {}, 2), "neither the 'split' input"));
}

TEST(InferSplit, ExplicitSizes) {
  InferCase t;
  ValueId x = t.input(DType::kI64, {6, 4});
  ASSERT_OK(t.run(OpType::kSplit, {x, t.ints({2, 4})}, {}, 2));
  EXPECT_EQ(t.dtype(1), DType::kI64);
  EXPECT_EQ(t.shape(0), "[2,4]");
  EXPECT_EQ(t.shape(1), "[4,4]");
  EXPECT_TRUE(contains(t.error(OpType::kSplit, {x, t.ints({2, 3})}, {}, 2),
                       "sums to 5 but axis 0 has size 6"));
  EXPECT_TRUE(contains(t.error(OpType::kSplit, {x, t.ints({2, 2, 2})}, {}, 2),
                       "'split' has 3 entries but the node has 2 outputs"));
}

// --- Slice ----------------------------------------------------------------------------

TEST(InferSlice, ClampsAndSteps) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {10, 20, 30});
  // axis 0: [1, 10) -> 9; axis 2: [25, 29) step 2 -> 2.
  ASSERT_OK(t.run(OpType::kSlice,
                  {x, t.ints({1, -5}), t.ints({1000, -1}), t.ints({0, 2}), t.ints({1, 2})}));
  EXPECT_EQ(t.shape(), "[9,20,2]");
  // Without axes the first len(starts) axes are sliced.
  ASSERT_OK(t.run(OpType::kSlice, {x, t.ints({0, 5}), t.ints({3, 5})}));
  EXPECT_EQ(t.shape(), "[3,0,30]");
}

TEST(InferSlice, NegativeSteps) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {10});
  // Full reverse: start -1 (9), end INT64_MIN (clamped to -1).
  ASSERT_OK(t.run(OpType::kSlice, {x, t.ints({-1}), t.ints({kMinI64}), t.ints({0}), t.ints({-1})}));
  EXPECT_EQ(t.shape(), "[10]");
  // 8, 5, 2
  ASSERT_OK(t.run(OpType::kSlice, {x, t.ints({8}), t.ints({1}), t.ints({0}), t.ints({-3})}));
  EXPECT_EQ(t.shape(), "[3]");
  // start 20 clamps to 9; end 0 excluded: 9..1
  ASSERT_OK(t.run(OpType::kSlice, {x, t.ints({20}), t.ints({0}), t.ints({0}), t.ints({-1})}));
  EXPECT_EQ(t.shape(), "[9]");
  ASSERT_OK(t.run(OpType::kSlice, {x, t.ints({2}), t.ints({5}), t.ints({0}), t.ints({-1})}));
  EXPECT_EQ(t.shape(), "[0]");
  ASSERT_OK(
      t.run(OpType::kSlice, {x, t.ints({9}), t.ints({kMinI64}), t.ints({0}), t.ints({kMinI64})}));
  EXPECT_EQ(t.shape(), "[1]");
  EXPECT_TRUE(
      contains(t.error(OpType::kSlice, {x, t.ints({0}), t.ints({5}), t.ints({0}), t.ints({0})}),
               "'steps' entry 0 is 0"));
}

TEST(InferSlice, SymbolicDims) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {sym("N"), 8, sym("T")});
  ASSERT_OK(t.run(OpType::kSlice, {x, t.ints({0, 2, 1}), t.ints({kMaxI64, 6, kMaxI64})}));
  EXPECT_EQ(t.shape(), "[N,4,T - 1]");  // T - 1 as a SymInt (graph/ir/sym_int.h)
  // Run-time starts: the sliced axes are unknown, the others kept.
  ValueId s = t.input(DType::kI64, {1});
  ASSERT_OK(t.run(OpType::kSlice, {x, s, t.ints({4}), t.ints({1})}));
  EXPECT_EQ(t.shape(), "[N,?,T]");
}

// "To the end" written as a bound no dim of this tensor can reach: jax2tf's 1e9 on a batch
// axis whose other dims hold 512 x 256 floats (the tensor cap allows at most 2^19 rows) is
// the whole axis, not a static length of 1e9 (Magika's file-type model failed to load). On a
// 1-D tensor 1e9 stays a bound within the dim.
TEST(InferSlice, AnEndBeyondAnyPossibleDimIsTheEnd) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {sym("N"), 512, 256, 1});
  const int64_t e9 = 1000000000;
  ASSERT_OK(t.run(OpType::kSlice,
                  {x, t.ints({0, 0, 0, 0}), t.ints({e9, e9, e9, e9}), t.ints({0, 2, 1, 3})}));
  EXPECT_EQ(t.shape(), "[N,512,256,1]");
  ASSERT_OK(t.run(OpType::kSlice, {x, t.ints({1}), t.ints({e9}), t.ints({0})}));
  EXPECT_EQ(t.shape(), "[N - 1,512,256,1]");
  ASSERT_OK(t.run(OpType::kSlice, {x, t.ints({-1}), t.ints({-e9}), t.ints({0}), t.ints({-1})}));
  EXPECT_EQ(t.shape(), "[N,512,256,1]");
  ValueId flat = t.input(DType::kF32, {sym("L")});
  ASSERT_OK(t.run(OpType::kSlice, {flat, t.ints({0}), t.ints({e9})}));
  EXPECT_EQ(t.shape(), "[1000000000]");
}

TEST(InferSlice, Errors) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {4, 4});
  EXPECT_TRUE(contains(t.error(OpType::kSlice, {x, t.ints({0, 0}), t.ints({1})}),
                       "'ends' has 1 entries but 'starts' has 2"));
  EXPECT_TRUE(
      contains(t.error(OpType::kSlice, {x, t.ints({0, 0}), t.ints({1, 1}), t.ints({1, -1})}),
               "names axis 1 twice"));
  EXPECT_TRUE(contains(t.error(OpType::kSlice, {x, t.ints({0}), t.ints({1}), t.ints({2})}),
                       "out of range for rank 2"));
}

// --- Gather, Expand, Tile -------------------------------------------------------------

TEST(InferGather, IndicesShapeReplacesTheAxis) {
  InferCase t;
  ValueId x = t.input(DType::kF16, {5, 4, 3});
  ValueId idx = t.input(DType::kI64, {2, 6});
  ASSERT_OK(t.run(OpType::kGather, {x, idx}, attrs({{"axis", int64_t{1}}})));
  EXPECT_EQ(t.dtype(), DType::kF16);
  EXPECT_EQ(t.shape(), "[5,2,6,3]");
  ASSERT_OK(t.run(OpType::kGather, {x, t.scalar_i64(-1)}));
  EXPECT_EQ(t.shape(), "[4,3]");
  EXPECT_TRUE(contains(t.error(OpType::kGather, {x, t.ints({0, 5})}),
                       "index 5 is out of range for axis 0 of size 5"));
  ValueId f = t.input(DType::kF32, {2});
  EXPECT_TRUE(contains(t.error(OpType::kGather, {x, f}), "expected i32 or i64"));
}

TEST(InferExpand, BroadcastsBothWays) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {3, 1});
  ASSERT_OK(t.run(OpType::kExpand, {x, t.ints({2, 1, 4})}));
  EXPECT_EQ(t.shape(), "[2,3,4]");
  ValueId n = t.input(DType::kF32, {sym("N"), 1});
  ASSERT_OK(t.run(OpType::kExpand, {n, t.ints({1, 5})}));
  EXPECT_EQ(t.shape(), "[N,5]");
  EXPECT_TRUE(
      contains(t.error(OpType::kExpand, {x, t.ints({4, 4})}), "cannot broadcast [3,1] with [4,4]"));
  ValueId s = t.input(DType::kI64, {3});
  ASSERT_OK(t.run(OpType::kExpand, {x, s}));
  EXPECT_EQ(t.shape(), "[?,3,?]");
}

TEST(InferTile, Repeats) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {2, sym("N"), 3});
  ASSERT_OK(t.run(OpType::kTile, {x, t.ints({3, 1, 0})}));
  EXPECT_EQ(t.shape(), "[6,N,0]");
  EXPECT_TRUE(
      contains(t.error(OpType::kTile, {x, t.ints({3})}), "'repeats' has 1 entries for rank 3"));
  EXPECT_TRUE(contains(t.error(OpType::kTile, {x, t.ints({1, 1, -1})}), "negative"));
  ValueId big = t.input(DType::kF32, {kMaxI64 / 2});
  EXPECT_TRUE(contains(t.error(OpType::kTile, {big, t.ints({3})}), "overflows int64"));
}

// --- Pad, DepthToSpace, Identity ------------------------------------------------------

TEST(InferPad, ConstantModeAndCrop) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {1, 3, 4, 4});
  ASSERT_OK(t.run(OpType::kPad, {x, t.ints({0, 0, 1, 2, 0, 0, 3, 4}), t.scalar_f32(0.5f)}));
  EXPECT_EQ(t.shape(), "[1,3,8,10]");
  ASSERT_OK(t.run(OpType::kPad, {x, t.ints({0, 0, -1, -1, 0, 0, -1, -1})}));
  EXPECT_EQ(t.shape(), "[1,3,2,2]");
  EXPECT_TRUE(contains(t.error(OpType::kPad, {x, t.ints({0, 0, -3, 0, 0, 0, -3, 0})}),
                       "crop more than axis 2 of size 4"));
}

TEST(InferPad, AxesInputAndModes) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {sym("N"), 3, 4, 4});
  ASSERT_OK(t.run(OpType::kPad, {x, t.ints({1, 2, 1, 2}), kNoValue, t.ints({2, -1})},
                  attrs({{"mode", std::string("reflect")}})));
  EXPECT_EQ(t.shape(), "[N,3,6,8]");
  ASSERT_OK(t.run(OpType::kPad, {x, t.ints({1, 1}), kNoValue, t.ints({0})},
                  attrs({{"mode", std::string("edge")}})));
  EXPECT_EQ(t.shape(), "[?,3,4,4]");
  // Reflect pads longer than the axis repeat the reflection, as numpy.pad does.
  ASSERT_OK(t.run(OpType::kPad, {x, t.ints({4, 0}), kNoValue, t.ints({3})},
                  attrs({{"mode", std::string("reflect")}})));
  EXPECT_EQ(t.shape(), "[N,3,4,8]");
  Status s = t.run(OpType::kPad, {x, t.ints({0, 0, 0, 0, 0, 0, 0, 0})},
                   attrs({{"mode", std::string("circular")}}));
  EXPECT_EQ(s.code(), ErrorCode::kUnsupported);
  EXPECT_TRUE(contains(s.message(), "Pad mode 'circular' is not supported")) << s.message();
  EXPECT_TRUE(
      contains(t.error(OpType::kPad, {x, t.ints({1, 1})}), "'pads' has 2 entries, expected 8"));
  EXPECT_TRUE(contains(t.error(OpType::kPad, {x, t.ints({0, 0, 0, 0, 0, 0, 0, kMaxI64})}),
                       "overflows int64"));
  ValueId pads = t.input(DType::kI64, {8});
  ASSERT_OK(t.run(OpType::kPad, {x, pads}));
  EXPECT_EQ(t.shape(), "[?,?,?,?]");
}

TEST(InferPad, ValueMustMatchDtype) {
  InferCase t;
  ValueId x = t.input(DType::kF16, {4});
  EXPECT_TRUE(contains(t.error(OpType::kPad, {x, t.ints({1, 1}), t.scalar_f32(0.0f)}),
                       "input 2 has dtype f32, expected f16"));
}

TEST(InferDepthToSpace, Blocksize) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {1, 8, 2, 3});
  ASSERT_OK(t.run(OpType::kDepthToSpace, {x}, attrs({{"blocksize", int64_t{2}}})));
  EXPECT_EQ(t.shape(), "[1,2,4,6]");
  ValueId y = t.input(DType::kF32, {1, 6, 2, 3});
  EXPECT_TRUE(contains(t.error(OpType::kDepthToSpace, {y}, attrs({{"blocksize", int64_t{2}}})),
                       "channels 6 are not a multiple of blocksize^2 = 4"));
  EXPECT_TRUE(contains(t.error(OpType::kDepthToSpace, {x}, attrs({{"blocksize", int64_t{0}}})),
                       "'blocksize' is 0"));
  EXPECT_TRUE(contains(t.error(OpType::kDepthToSpace, {x},
                               attrs({{"blocksize", int64_t{2}}, {"mode", std::string("XYZ")}})),
                       "expected DCR or CRD"));
}

TEST(InferIdentity, PassesThrough) {
  InferCase t;
  ValueId x = t.input(DType::kBool, {sym("N")});
  ASSERT_OK(t.run(OpType::kIdentity, {x}));
  EXPECT_EQ(t.dtype(), DType::kBool);
  EXPECT_EQ(t.shape(), "[N]");
}

// --- Resize ---------------------------------------------------------------------------

TEST(InferResize, ScalesFloorTheProduct) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {sym("N"), 3, 4, 4});
  ASSERT_OK(t.run(OpType::kResize, {x, kNoValue, t.floats({1, 1, 2, 2})}));
  EXPECT_EQ(t.shape(), "[N,3,8,8]");
  ASSERT_OK(t.run(OpType::kResize, {x, kNoValue, t.floats({1, 1, 0.5f, 0.6f})}));
  EXPECT_EQ(t.shape(), "[N,3,2,2]");  // floor(2.4) = 2
  // An empty roi and scales are "not given", as exporters write them.
  ASSERT_OK(t.run(OpType::kResize, {x, t.floats({}), t.floats({}), t.ints({1, 3, 7, 9})}));
  EXPECT_EQ(t.shape(), "[1,3,7,9]");
}

TEST(InferResize, AxesAttribute) {
  InferCase t;
  t.set_opset(19);
  ValueId x = t.input(DType::kF32, {1, 3, 4, 6});
  ASSERT_OK(t.run(OpType::kResize, {x, kNoValue, t.floats({3, 0.5f})},
                  attrs({{"axes", std::vector<int64_t>{-2, 3}}})));
  EXPECT_EQ(t.shape(), "[1,3,12,3]");
  EXPECT_TRUE(contains(t.error(OpType::kResize, {x, kNoValue, t.floats({2})},
                               attrs({{"axes", std::vector<int64_t>{2, 3}}})),
                       "1 entries for 2 resized axes"));
}

TEST(InferResize, KeepAspectRatio) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {1, 3, 4, 8});
  // sizes/in = 1.5, 0.75: not_larger takes 0.75, not_smaller 1.5.
  ASSERT_OK(t.run(OpType::kResize, {x, kNoValue, kNoValue, t.ints({6, 6})},
                  attrs({{"axes", std::vector<int64_t>{2, 3}},
                         {"keep_aspect_ratio_policy", std::string("not_larger")}})));
  EXPECT_EQ(t.shape(), "[1,3,3,6]");
  ASSERT_OK(t.run(OpType::kResize, {x, kNoValue, kNoValue, t.ints({6, 6})},
                  attrs({{"axes", std::vector<int64_t>{2, 3}},
                         {"keep_aspect_ratio_policy", std::string("not_smaller")}})));
  EXPECT_EQ(t.shape(), "[1,3,6,12]");
  EXPECT_TRUE(contains(t.error(OpType::kResize, {x, kNoValue, t.floats({1, 1, 2, 2})},
                               attrs({{"keep_aspect_ratio_policy", std::string("not_larger")}})),
                       "cannot be combined"));
}

TEST(InferResize, Errors) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {1, 3, 4, 4});
  EXPECT_TRUE(contains(
      t.error(OpType::kResize, {x, kNoValue, t.floats({1, 1, 2, 2}), t.ints({1, 3, 8, 8})}),
      "exactly one of 'scales'"));
  EXPECT_TRUE(contains(t.error(OpType::kResize, {x}), "exactly one of 'scales'"));
  EXPECT_TRUE(contains(t.error(OpType::kResize, {x, kNoValue, t.floats({1, 1, 0, 2})}),
                       "must be positive"));
  EXPECT_TRUE(contains(t.error(OpType::kResize, {x, kNoValue, t.floats({1, 1, 2, 2})},
                               attrs({{"mode", std::string("bilinear")}})),
                       "'mode' is 'bilinear'"));
}

TEST(InferResize, UnknownInputShape) {
  InferCase t;
  ValueId x = t.unknown(DType::kF32);
  ASSERT_OK(t.run(OpType::kResize, {x, kNoValue, kNoValue, t.ints({1, 3, 8, 8})}));
  EXPECT_EQ(t.shape(), "[1,3,8,8]");
  ASSERT_OK(t.run(OpType::kResize, {x, kNoValue, t.floats({1, 1, 2, 2})}));
  EXPECT_EQ(t.shape(), "[?,?,?,?]");
}

TEST(InferResize, RuntimeScalesKeepRank) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {sym("N"), 3, 4, 4});
  ValueId s = t.input(DType::kF32, {4});
  ASSERT_OK(t.run(OpType::kResize, {x, kNoValue, s}));
  EXPECT_EQ(t.shape(), "[?,?,?,?]");
}

}  // namespace
}  // namespace amp::graph
