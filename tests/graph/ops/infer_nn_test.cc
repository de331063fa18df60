// Window-op numbers come from the examples in ONNX Operators.md (Conv, ConvTranspose,
// MaxPool, AveragePool).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/graph/ops/infer_test_util.h"

namespace amp::graph {
namespace {

using Ints = std::vector<int64_t>;

// --- Conv -----------------------------------------------------------------------------

TEST(InferConv, SpecExamples) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {1, 1, 5, 5});
  ValueId w = t.input(DType::kF32, {1, 1, 3, 3});
  ASSERT_OK(t.run(OpType::kConv, {x, w}, attrs({{"pads", Ints{1, 1, 1, 1}}})));
  EXPECT_EQ(t.shape(), "[1,1,5,5]");
  ASSERT_OK(t.run(OpType::kConv, {x, w}));
  EXPECT_EQ(t.shape(), "[1,1,3,3]");
  ASSERT_OK(t.run(OpType::kConv, {x, w},
                  attrs({{"auto_pad", std::string("SAME_LOWER")}, {"strides", Ints{2, 2}}})));
  EXPECT_EQ(t.shape(), "[1,1,3,3]");

  ValueId x7 = t.input(DType::kF32, {1, 1, 7, 5});
  ASSERT_OK(
      t.run(OpType::kConv, {x7, w}, attrs({{"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}})));
  EXPECT_EQ(t.shape(), "[1,1,4,3]");
  ASSERT_OK(t.run(OpType::kConv, {x7, w}, attrs({{"strides", Ints{2, 2}}})));
  EXPECT_EQ(t.shape(), "[1,1,3,2]");
  ASSERT_OK(
      t.run(OpType::kConv, {x7, w}, attrs({{"strides", Ints{2, 2}}, {"pads", Ints{1, 0, 1, 0}}})));
  EXPECT_EQ(t.shape(), "[1,1,4,2]");
}

TEST(InferConv, AutoPadAndDilations) {
  InferCase t;
  ValueId x = t.input(DType::kF16, {2, 1, 7, 8});
  ValueId w = t.input(DType::kF16, {4, 1, 3, 3});
  ASSERT_OK(t.run(OpType::kConv, {x, w},
                  attrs({{"auto_pad", std::string("SAME_UPPER")}, {"strides", Ints{2, 3}}})));
  EXPECT_EQ(t.dtype(), DType::kF16);
  EXPECT_EQ(t.shape(), "[2,4,4,3]");  // ceil(7/2), ceil(8/3)
  ASSERT_OK(t.run(OpType::kConv, {x, w},
                  attrs({{"auto_pad", std::string("VALID")}, {"strides", Ints{2, 2}}})));
  EXPECT_EQ(t.shape(), "[2,4,3,3]");  // (7-3)/2+1, (8-3)/2+1
  ASSERT_OK(t.run(OpType::kConv, {x, w}, attrs({{"dilations", Ints{2, 3}}})));
  EXPECT_EQ(t.shape(), "[2,4,3,2]");  // kernel extents 5 and 7
  // Zero pads next to auto_pad are accepted; real pads are not.
  ASSERT_OK(t.run(OpType::kConv, {x, w},
                  attrs({{"auto_pad", std::string("VALID")}, {"pads", Ints{0, 0, 0, 0}}})));
  EXPECT_TRUE(
      contains(t.error(OpType::kConv, {x, w},
                       attrs({{"auto_pad", std::string("VALID")}, {"pads", Ints{1, 1, 1, 1}}})),
               "cannot be used together with auto_pad"));
}

TEST(InferConv, GroupsBiasAndSymbolicDims) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {sym("N"), 4, sym("H"), 5});
  ValueId w = t.input(DType::kF32, {8, 2, 3, 3});
  ValueId b = t.input(DType::kF32, {8});
  ASSERT_OK(t.run(OpType::kConv, {x, w, b}, attrs({{"group", int64_t{2}}})));
  EXPECT_EQ(t.shape(), "[N,8,?,3]");
  ValueId w3 = t.input(DType::kF32, {8, 3, 3, 3});
  EXPECT_TRUE(contains(t.error(OpType::kConv, {x, w3}, attrs({{"group", int64_t{2}}})),
                       "input has 4 channels"));
  ValueId bad_b = t.input(DType::kF32, {4});
  EXPECT_TRUE(contains(t.error(OpType::kConv, {x, w, bad_b}, attrs({{"group", int64_t{2}}})),
                       "input 2 has shape [4], expected [8]"));
  ValueId w6 = t.input(DType::kF32, {6, 1, 3, 3});
  EXPECT_TRUE(contains(t.error(OpType::kConv, {x, w6}, attrs({{"group", int64_t{4}}})),
                       "output channels 6 are not a multiple of group 4"));
}

TEST(InferConv, Errors) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {1, 1, 2, 2});
  ValueId w = t.input(DType::kF32, {1, 1, 3, 3});
  EXPECT_TRUE(contains(t.error(OpType::kConv, {x, w}),
                       "kernel extent 3 is larger than the padded input 2 on spatial axis 0"));
  ASSERT_OK(t.run(OpType::kConv, {x, w}, attrs({{"pads", Ints{1, 1, 1, 1}}})));
  EXPECT_EQ(t.shape(), "[1,1,2,2]");
  EXPECT_TRUE(contains(t.error(OpType::kConv, {x, w}, attrs({{"strides", Ints{-1, 1}}})),
                       "attribute 'strides' [-1, 1] has an entry below 1"));
  EXPECT_TRUE(contains(t.error(OpType::kConv, {x, w}, attrs({{"group", int64_t{0}}})),
                       "attribute 'group' is 0"));
  EXPECT_TRUE(contains(t.error(OpType::kConv, {x, w}, attrs({{"pads", Ints{1, 1}}})),
                       "attribute 'pads' has 2 entries, expected 4"));
  EXPECT_TRUE(contains(t.error(OpType::kConv, {x, w}, attrs({{"kernel_shape", Ints{2, 2}}})),
                       "differs from the weight"));
  EXPECT_TRUE(contains(t.error(OpType::kConv, {x, w}, attrs({{"auto_pad", std::string("SAME")}})),
                       "'auto_pad' is 'SAME'"));
  EXPECT_TRUE(contains(t.error(OpType::kConv, {x, w}, attrs({{"pads", Ints{0, 0, INT64_MAX, 0}}})),
                       "overflows int64"));
  ValueId xi = t.input(DType::kI32, {1, 1, 4, 4});
  EXPECT_TRUE(contains(t.error(OpType::kConv, {xi, w}), "input 0 has dtype i32, expected a float"));
  ValueId x2 = t.input(DType::kF32, {1, 4});
  EXPECT_TRUE(contains(t.error(OpType::kConv, {x2, w}), "must have rank >= 3"));
  ValueId w5 = t.input(DType::kF32, {1, 1, 3, 3, 3});
  EXPECT_TRUE(contains(t.error(OpType::kConv, {x, w5}), "have different ranks"));
}

TEST(InferConv, UnknownInputShapeKeepsRankFromWeight) {
  InferCase t;
  ValueId x = t.unknown(DType::kF32);
  ValueId w = t.input(DType::kF32, {16, 3, 3, 3});
  ASSERT_OK(t.run(OpType::kConv, {x, w}));
  EXPECT_EQ(t.shape(), "[?,16,?,?]");
}

// --- ConvTranspose --------------------------------------------------------------------

TEST(InferConvTranspose, SpecExamples) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {1, 1, 3, 3});
  ValueId w = t.input(DType::kF32, {1, 2, 3, 3});
  ASSERT_OK(t.run(OpType::kConvTranspose, {x, w}));
  EXPECT_EQ(t.shape(), "[1,2,5,5]");
  ASSERT_OK(t.run(OpType::kConvTranspose, {x, w},
                  attrs({{"strides", Ints{3, 2}}, {"pads", Ints{1, 2, 1, 2}}})));
  EXPECT_EQ(t.shape(), "[1,2,7,3]");
  ASSERT_OK(t.run(OpType::kConvTranspose, {x, w},
                  attrs({{"strides", Ints{3, 2}}, {"output_shape", Ints{10, 8}}})));
  EXPECT_EQ(t.shape(), "[1,2,10,8]");
  // Some exporters write the whole [N, C, H, W] (ONNX Runtime takes both forms).
  ASSERT_OK(t.run(OpType::kConvTranspose, {x, w},
                  attrs({{"strides", Ints{3, 2}}, {"output_shape", Ints{1, 2, 10, 8}}})));
  EXPECT_EQ(t.shape(), "[1,2,10,8]");
  ASSERT_OK(t.run(OpType::kConvTranspose, {x, w},
                  attrs({{"strides", Ints{3, 2}}, {"output_padding", Ints{1, 1}}})));
  EXPECT_EQ(t.shape(), "[1,2,10,8]");
  ASSERT_OK(t.run(OpType::kConvTranspose, {x, w},
                  attrs({{"strides", Ints{2, 2}}, {"auto_pad", std::string("SAME_UPPER")}})));
  EXPECT_EQ(t.shape(), "[1,2,6,6]");
  ValueId w2 = t.input(DType::kF32, {1, 1, 2, 2});
  ASSERT_OK(t.run(OpType::kConvTranspose, {x, w2}, attrs({{"dilations", Ints{2, 2}}})));
  EXPECT_EQ(t.shape(), "[1,1,5,5]");
}

TEST(InferConvTranspose, OneAndThreeDimsAndGroups) {
  InferCase t;
  ValueId x1 = t.input(DType::kF32, {1, 1, 3});
  ValueId w1 = t.input(DType::kF32, {1, 2, 3});
  ASSERT_OK(t.run(OpType::kConvTranspose, {x1, w1}));
  EXPECT_EQ(t.shape(), "[1,2,5]");
  ValueId x3 = t.input(DType::kF32, {1, 1, 3, 4, 5});
  ValueId w3 = t.input(DType::kF32, {1, 2, 3, 3, 3});
  ASSERT_OK(t.run(OpType::kConvTranspose, {x3, w3}));
  EXPECT_EQ(t.shape(), "[1,2,5,6,7]");
  ValueId xg = t.input(DType::kF32, {sym("N"), 4, 3, sym("W")});
  ValueId wg = t.input(DType::kF32, {4, 2, 3, 3});
  ValueId b = t.input(DType::kF32, {4});
  ASSERT_OK(t.run(OpType::kConvTranspose, {xg, wg, b}, attrs({{"group", int64_t{2}}})));
  EXPECT_EQ(t.shape(), "[N,4,5,?]");
}

TEST(InferConvTranspose, Errors) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {1, 2, 3, 3});
  ValueId w = t.input(DType::kF32, {1, 2, 3, 3});
  EXPECT_TRUE(contains(t.error(OpType::kConvTranspose, {x, w}), "input has 2 channels"));
  ValueId x1 = t.input(DType::kF32, {1, 1, 3, 3});
  EXPECT_TRUE(contains(t.error(OpType::kConvTranspose, {x1, w},
                               attrs({{"strides", Ints{2, 2}}, {"output_padding", Ints{2, 0}}})),
                       "'output_padding' [2, 0] must be smaller"));
  EXPECT_TRUE(
      contains(t.error(OpType::kConvTranspose, {x1, w}, attrs({{"pads", Ints{4, 0, 4, 0}}})),
               "exceed the output"));
  EXPECT_TRUE(
      contains(t.error(OpType::kConvTranspose, {x1, w}, attrs({{"output_shape", Ints{10}}})),
               "'output_shape' has 1 entries, expected 2 (spatial) or 4"));
}

// --- Pools ----------------------------------------------------------------------------

TEST(InferPool, MaxPoolSpecExamples) {
  InferCase t;
  ValueId x32 = t.input(DType::kF32, {1, 3, 32, 32});
  ASSERT_OK(t.run(OpType::kMaxPool, {x32}, attrs({{"kernel_shape", Ints{2, 2}}})));
  EXPECT_EQ(t.shape(), "[1,3,31,31]");
  ASSERT_OK(t.run(OpType::kMaxPool, {x32},
                  attrs({{"kernel_shape", Ints{5, 5}}, {"strides", Ints{3, 3}}})));
  EXPECT_EQ(t.shape(), "[1,3,10,10]");
  ValueId x5 = t.input(DType::kF32, {1, 1, 5, 5});
  ASSERT_OK(t.run(OpType::kMaxPool, {x5},
                  attrs({{"kernel_shape", Ints{3, 3}},
                         {"strides", Ints{2, 2}},
                         {"auto_pad", std::string("SAME_UPPER")}})));
  EXPECT_EQ(t.shape(), "[1,1,3,3]");
  ValueId x4 = t.input(DType::kF32, {1, 1, 4, 4});
  ASSERT_OK(t.run(
      OpType::kMaxPool, {x4},
      attrs({{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"ceil_mode", int64_t{1}}})));
  EXPECT_EQ(t.shape(), "[1,1,2,2]");
  ASSERT_OK(t.run(OpType::kMaxPool, {x4},
                  attrs({{"kernel_shape", Ints{2, 2}}, {"dilations", Ints{2, 2}}})));
  EXPECT_EQ(t.shape(), "[1,1,2,2]");
  ValueId x28 = t.input(DType::kF32, {1, 3, 28, 28});
  ASSERT_OK(t.run(OpType::kMaxPool, {x28},
                  attrs({{"kernel_shape", Ints{3, 3}}, {"pads", Ints{2, 2, 2, 2}}})));
  EXPECT_EQ(t.shape(), "[1,3,30,30]");
  ValueId x1d = t.input(DType::kF32, {1, 3, 32});
  ASSERT_OK(t.run(OpType::kMaxPool, {x1d}, attrs({{"kernel_shape", Ints{2}}})));
  EXPECT_EQ(t.shape(), "[1,3,31]");
}

TEST(InferPool, MaxPoolIndicesOutput) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {sym("N"), 1, 5, 5});
  ASSERT_OK(t.run(OpType::kMaxPool, {x},
                  attrs({{"kernel_shape", Ints{5, 5}}, {"pads", Ints{2, 2, 2, 2}}}), 2));
  EXPECT_EQ(t.shape(0), "[N,1,5,5]");
  EXPECT_EQ(t.dtype(1), DType::kI64);
  EXPECT_EQ(t.shape(1), "[N,1,5,5]");
  ValueId q = t.input(DType::kU8, {1, 1, 4, 4});
  ASSERT_OK(t.run(OpType::kMaxPool, {q}, attrs({{"kernel_shape", Ints{2, 2}}})));
  EXPECT_EQ(t.dtype(), DType::kU8);
}

TEST(InferPool, CeilModeDropsWindowStartingInPadding) {
  InferCase t;
  // padded 7, kernel 2, stride 2: ceil gives 4 windows, but the 4th would start at 6,
  // past input + begin pad (5 + 1): 3, as in PyTorch and ONNX Runtime.
  ValueId x = t.input(DType::kF32, {1, 1, 5, 5});
  ASSERT_OK(t.run(OpType::kAveragePool, {x},
                  attrs({{"kernel_shape", Ints{2, 2}},
                         {"strides", Ints{2, 2}},
                         {"pads", Ints{1, 1, 1, 1}},
                         {"ceil_mode", int64_t{1}}})));
  EXPECT_EQ(t.shape(), "[1,1,3,3]");
}

TEST(InferPool, AveragePoolSpecExamples) {
  InferCase t;
  ValueId x5 = t.input(DType::kF32, {1, 1, 5, 5});
  ASSERT_OK(t.run(
      OpType::kAveragePool, {x5},
      attrs({{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}})));
  EXPECT_EQ(t.shape(), "[1,1,3,3]");
  ValueId x32 = t.input(DType::kF32, {1, 3, 32, 32});
  ASSERT_OK(t.run(OpType::kAveragePool, {x32},
                  attrs({{"kernel_shape", Ints{2, 2}}, {"auto_pad", std::string("SAME_LOWER")}})));
  EXPECT_EQ(t.shape(), "[1,3,32,32]");
  ASSERT_OK(t.run(OpType::kAveragePool, {x32},
                  attrs({{"kernel_shape", Ints{2, 2}}, {"auto_pad", std::string("VALID")}})));
  EXPECT_EQ(t.shape(), "[1,3,31,31]");
  ValueId x4 = t.input(DType::kF32, {1, 1, 4, 4});
  ASSERT_OK(t.run(
      OpType::kAveragePool, {x4},
      attrs({{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"ceil_mode", int64_t{1}}})));
  EXPECT_EQ(t.shape(), "[1,1,2,2]");
}

TEST(InferPool, Errors) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {1, 1, 4, 4});
  EXPECT_TRUE(contains(t.error(OpType::kMaxPool, {x}), "'kernel_shape' is required"));
  EXPECT_TRUE(contains(t.error(OpType::kMaxPool, {x}, attrs({{"kernel_shape", Ints{2}}})),
                       "'kernel_shape' has 1 entries for 2 spatial axes"));
  EXPECT_TRUE(contains(t.error(OpType::kMaxPool, {x}, attrs({{"kernel_shape", Ints{5, 5}}})),
                       "kernel extent 5 is larger than the padded input 4"));
  EXPECT_TRUE(contains(t.error(OpType::kAveragePool, {x},
                               attrs({{"kernel_shape", Ints{2, 2}}, {"ceil_mode", int64_t{2}}})),
                       "'ceil_mode' is 2, expected 0 or 1"));
  ValueId q = t.input(DType::kU8, {1, 1, 4, 4});
  EXPECT_TRUE(contains(t.error(OpType::kAveragePool, {q}, attrs({{"kernel_shape", Ints{2, 2}}})),
                       "expected a float type"));
}

TEST(InferPool, GlobalAveragePool) {
  InferCase t;
  ValueId x = t.input(DType::kF16, {sym("N"), 512, 7, sym("W")});
  ASSERT_OK(t.run(OpType::kGlobalAveragePool, {x}));
  EXPECT_EQ(t.dtype(), DType::kF16);
  EXPECT_EQ(t.shape(), "[N,512,1,1]");
}

// --- MatMul, Gemm ---------------------------------------------------------------------

TEST(InferMatMul, BatchedAndOneD) {
  InferCase t;
  ValueId a3 = t.input(DType::kF32, {2, 3, 4});
  ValueId b2 = t.input(DType::kF32, {4, 5});
  ValueId v = t.input(DType::kF32, {4});
  ASSERT_OK(t.run(OpType::kMatMul, {a3, b2}));
  EXPECT_EQ(t.shape(), "[2,3,5]");
  ASSERT_OK(t.run(OpType::kMatMul, {v, b2}));
  EXPECT_EQ(t.shape(), "[5]");
  ASSERT_OK(t.run(OpType::kMatMul, {a3, v}));
  EXPECT_EQ(t.shape(), "[2,3]");
  ASSERT_OK(t.run(OpType::kMatMul, {v, v}));
  EXPECT_EQ(t.shape(), "[]");
  ValueId a4 = t.input(DType::kF32, {sym("N"), 1, 3, sym("K")});
  ValueId b3 = t.input(DType::kF32, {5, sym("K"), 6});
  ASSERT_OK(t.run(OpType::kMatMul, {a4, b3}));
  EXPECT_EQ(t.shape(), "[N,5,3,6]");
}

TEST(InferMatMul, Errors) {
  InferCase t;
  ValueId a = t.input(DType::kF32, {3, 4});
  ValueId b = t.input(DType::kF32, {5, 6});
  EXPECT_TRUE(contains(t.error(OpType::kMatMul, {a, b}), "inner dims differ: [3,4] x [5,6]"));
  ValueId c = t.input(DType::kF32, {2, 3, 4});
  ValueId d = t.input(DType::kF32, {3, 4, 5});
  EXPECT_TRUE(contains(t.error(OpType::kMatMul, {c, d}), "cannot broadcast [2] with [3]"));
  ValueId s = t.input(DType::kF32, {});
  EXPECT_TRUE(contains(t.error(OpType::kMatMul, {s, a}), "rank >= 1"));
  ValueId h = t.input(DType::kF16, {4, 5});
  EXPECT_TRUE(contains(t.error(OpType::kMatMul, {a, h}), "input 1 has dtype f16, expected f32"));
}

TEST(InferGemm, Transposes) {
  InferCase t;
  ValueId a = t.input(DType::kF32, {4, 3});
  ValueId b = t.input(DType::kF32, {5, 4});
  ValueId c = t.input(DType::kF32, {5});
  ASSERT_OK(
      t.run(OpType::kGemm, {a, b, c}, attrs({{"transA", int64_t{1}}, {"transB", int64_t{1}}})));
  EXPECT_EQ(t.shape(), "[3,5]");
  ValueId b2 = t.input(DType::kF32, {3, 7});
  ASSERT_OK(t.run(OpType::kGemm, {t.input(DType::kF32, {sym("N"), 3}), b2}));
  EXPECT_EQ(t.shape(), "[N,7]");
  ValueId c31 = t.input(DType::kF32, {3, 1});
  ASSERT_OK(
      t.run(OpType::kGemm, {a, b, c31}, attrs({{"transA", int64_t{1}}, {"transB", int64_t{1}}})));
  EXPECT_EQ(t.shape(), "[3,5]");
}

TEST(InferGemm, Errors) {
  InferCase t;
  ValueId a = t.input(DType::kF32, {4, 3});
  ValueId b = t.input(DType::kF32, {5, 4});
  EXPECT_TRUE(contains(t.error(OpType::kGemm, {a, b}), "inner dims differ: [4,3] x [5,4]"));
  ValueId c = t.input(DType::kF32, {4, 5});
  EXPECT_TRUE(contains(
      t.error(OpType::kGemm, {a, b, c}, attrs({{"transA", int64_t{1}}, {"transB", int64_t{1}}})),
      "input 2 [4,5] does not broadcast to [3,5]"));
  ValueId v = t.input(DType::kF32, {4});
  EXPECT_TRUE(contains(t.error(OpType::kGemm, {v, b}), "input 0 must be 2-D"));
}

// --- Normalizations, Softmax ----------------------------------------------------------

TEST(InferNorm, BatchNormalizationInference) {
  InferCase t;
  ValueId x = t.input(DType::kF16, {sym("N"), 3, 8, 8});
  ValueId p = t.input(DType::kF32, {3});
  ASSERT_OK(t.run(OpType::kBatchNormalization, {x, p, p, p, p}));
  EXPECT_EQ(t.dtype(), DType::kF16);
  EXPECT_EQ(t.shape(), "[N,3,8,8]");
  ValueId p4 = t.input(DType::kF32, {4});
  EXPECT_TRUE(contains(t.error(OpType::kBatchNormalization, {x, p, p4, p, p}),
                       "input 2 has shape [4], expected [3]"));
}

TEST(InferNorm, BatchNormalizationTrainingIsUnsupported) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {2, 3, 8, 8});
  ValueId p = t.input(DType::kF32, {3});
  Status s = t.run(OpType::kBatchNormalization, {x, p, p, p, p}, {}, 3);
  EXPECT_EQ(s.code(), ErrorCode::kUnsupported);
  EXPECT_TRUE(contains(s.message(), "training mode")) << s.message();
  // The same node with its extra outputs unused is the inference form.
  t.graph().nodes.back().outputs[1] = kNoValue;
  t.graph().nodes.back().outputs[2] = kNoValue;
  EXPECT_OK(t.rerun());
  s = t.run(OpType::kBatchNormalization, {x, p, p, p, p}, attrs({{"training_mode", int64_t{1}}}));
  EXPECT_EQ(s.code(), ErrorCode::kUnsupported);
  EXPECT_TRUE(contains(s.message(), "training_mode=1")) << s.message();
}

TEST(InferNorm, InstanceNormalization) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {2, 3, sym("H"), 8});
  ValueId p = t.input(DType::kF32, {3});
  ASSERT_OK(t.run(OpType::kInstanceNormalization, {x, p, p}));
  EXPECT_EQ(t.shape(), "[2,3,H,8]");
  ValueId x2 = t.input(DType::kF32, {2, 3});
  EXPECT_TRUE(contains(t.error(OpType::kInstanceNormalization, {x2, p, p}), "rank >= 3"));
}

TEST(InferNorm, LayerNormalizationStats) {
  InferCase t;
  ValueId x = t.input(DType::kF16, {sym("B"), sym("S"), 768});
  ValueId g = t.input(DType::kF16, {768});
  ASSERT_OK(t.run(OpType::kLayerNormalization, {x, g, g}, {}, 3));
  EXPECT_EQ(t.dtype(0), DType::kF16);
  EXPECT_EQ(t.shape(0), "[B,S,768]");
  EXPECT_EQ(t.dtype(1), DType::kF32);
  EXPECT_EQ(t.shape(1), "[B,S,1]");
  EXPECT_EQ(t.dtype(2), DType::kF32);
  EXPECT_EQ(t.shape(2), "[B,S,1]");
  ValueId g2 = t.input(DType::kF16, {sym("S"), 768});
  ASSERT_OK(t.run(OpType::kLayerNormalization, {x, g2}, attrs({{"axis", int64_t{1}}}), 2));
  EXPECT_EQ(t.shape(1), "[B,1,1]");
  ValueId bad = t.input(DType::kF16, {5});
  EXPECT_TRUE(contains(t.error(OpType::kLayerNormalization, {x, bad}),
                       "input 1 [5] does not broadcast to the normalized shape [768]"));
  EXPECT_TRUE(contains(t.error(OpType::kLayerNormalization, {x, g}, attrs({{"axis", int64_t{3}}})),
                       "axis 3 is out of range for rank 3"));
  EXPECT_TRUE(
      contains(t.error(OpType::kLayerNormalization, {x, g}, attrs({{"stash_type", int64_t{7}}})),
               "'stash_type' is 7"));
}

TEST(InferNorm, SoftmaxAxes) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {sym("N"), 10});
  ASSERT_OK(t.run(OpType::kSoftmax, {x}));
  EXPECT_EQ(t.shape(), "[N,10]");
  ASSERT_OK(t.run(OpType::kLogSoftmax, {x}, attrs({{"axis", int64_t{-2}}})));
  EXPECT_TRUE(contains(t.error(OpType::kSoftmax, {x}, attrs({{"axis", int64_t{2}}})),
                       "axis 2 is out of range for rank 2"));
  ValueId i = t.input(DType::kI64, {4});
  EXPECT_TRUE(contains(t.error(OpType::kSoftmax, {i}), "expected a float type"));
  // Before opset 13 the default axis is 1, which a 1-D input still accepts.
  t.set_opset(11);
  ValueId v = t.input(DType::kF32, {10});
  EXPECT_OK(t.run(OpType::kSoftmax, {v}));
}

}  // namespace
}  // namespace amp::graph
