// Shape inference of this wave's indexed, scan, normalization, sampling and recurrent ops:
// the shapes exporters produce, and every malformed node rejected at load with an error that
// names the problem (never a kernel reading out of bounds later).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/graph/ops/infer_test_util.h"

namespace amp::graph {
namespace {

TEST(InferIndexing, GatherAndScatterShapes) {
  InferCase t;
  ValueId data = t.input(DType::kF32, {3, 4, 5});
  ValueId idx = t.input(DType::kI64, {3, 2, 5});
  ASSERT_OK(t.run(OpType::kGatherElements, {data, idx}, attrs({{"axis", int64_t{1}}})));
  EXPECT_EQ(t.shape(), "[3,2,5]");
  ASSERT_OK(t.run(OpType::kScatterElements, {data, idx, t.input(DType::kF32, {3, 2, 5})},
                  attrs({{"axis", int64_t{1}}, {"reduction", std::string("add")}})));
  EXPECT_EQ(t.shape(), "[3,4,5]");
  // Torchvision's RoI pooling as exported: indices of unknown dims, updates [?,256,7,7].
  ValueId unknown_idx = t.input(DType::kI64, {Dim(), Dim(), Dim(), Dim()});
  ValueId pooled = t.input(DType::kF32, {Dim::symbolic("rois"), 256, 7, 7});
  ASSERT_OK(t.run(OpType::kScatterElements,
                  {t.input(DType::kF32, {Dim(), 256, 7, 7}), unknown_idx, pooled}));
  EXPECT_EQ(t.shape(), "[?,256,7,7]");
  ValueId tuples = t.input(DType::kI64, {3, 7, 2});
  ASSERT_OK(t.run(OpType::kGatherND, {data, tuples}, attrs({{"batch_dims", int64_t{1}}})));
  EXPECT_EQ(t.shape(), "[3,7]");
  ValueId nd = t.input(DType::kI64, {6, 2});
  ASSERT_OK(t.run(OpType::kScatterND, {data, nd, t.input(DType::kF32, {6, 5})}));
  EXPECT_EQ(t.shape(), "[3,4,5]");
}

TEST(InferIndexing, RejectsMalformedNodes) {
  InferCase t;
  ValueId data = t.input(DType::kF32, {3, 4});
  EXPECT_TRUE(contains(t.error(OpType::kGatherElements, {data, t.ints({0, 1})}), "rank"));
  EXPECT_TRUE(contains(
      t.error(OpType::kGatherElements,
              {data, t.constant(TensorData::from_vector<int64_t>(DType::kI64, {1, 1}, {9}))}),
      "out of range"));
  ValueId idx = t.input(DType::kI64, {3, 4});
  EXPECT_TRUE(contains(t.error(OpType::kScatterElements, {data, idx, t.input(DType::kF32, {3, 4})},
                               attrs({{"reduction", std::string("avg")}})),
                       "reduction"));
  EXPECT_TRUE(contains(t.error(OpType::kScatterElements, {data, idx, t.input(DType::kF32, {3, 5})}),
                       "must have the shape of input 1"));
  EXPECT_TRUE(
      contains(t.error(OpType::kScatterElements, {data, idx, t.input(DType::kF32, {Dim(), 5})}),
               "must have the shape of input 1"));
  EXPECT_TRUE(
      contains(t.error(OpType::kGatherND, {data, t.input(DType::kI64, {2, 3})}), "expected 1..2"));
  EXPECT_TRUE(contains(t.error(OpType::kScatterND,
                               {data, t.input(DType::kI64, {5, 1}), t.input(DType::kF32, {5, 3})}),
                       "must be"));
  EXPECT_TRUE(contains(
      t.error(OpType::kOneHot, {t.ints({1, 2}), t.scalar_i64(0), t.floats({0, 1})}), "depth"));
  EXPECT_TRUE(contains(t.error(OpType::kReverseSequence, {data, t.ints({1, 2, 3, 4, 5})}),
                       "lengths for a batch of"));
}

TEST(InferIndexing, OneHotTopKAndCumSum) {
  InferCase t;
  ValueId idx = t.input(DType::kI64, {2, 3});
  ASSERT_OK(t.run(OpType::kOneHot, {idx, t.scalar_i64(10), t.floats({0, 1})},
                  attrs({{"axis", int64_t{1}}})));
  EXPECT_EQ(t.shape(), "[2,10,3]");
  ValueId x = t.input(DType::kF32, {4, 9});
  ASSERT_OK(t.run(OpType::kTopK, {x, t.ints({3})}, {}, 2));
  EXPECT_EQ(t.shape(0), "[4,3]");
  EXPECT_EQ(t.dtype(1), DType::kI64);
  EXPECT_TRUE(contains(t.error(OpType::kTopK, {x, t.ints({10})}, {}, 2), "exceeds"));
  EXPECT_TRUE(contains(t.error(OpType::kCumSum, {x, t.constant(TensorData::scalar_i64(2))}),
                       "out of range"));
}

TEST(InferIndexing, NormalizationsAndEinsum) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {2, 6, 4, 4});
  ValueId scale = t.input(DType::kF32, {6});
  EXPECT_TRUE(contains(
      t.error(OpType::kGroupNormalization, {x, scale, scale}, attrs({{"num_groups", int64_t{4}}})),
      "does not divide"));
  EXPECT_TRUE(contains(t.error(OpType::kLpNormalization, {x}, attrs({{"p", int64_t{3}}})), "'p'"));
  EXPECT_TRUE(contains(t.error(OpType::kLRN, {x}), "size"));
  ValueId a = t.input(DType::kF32, {2, 3, 4});
  ValueId b = t.input(DType::kF32, {2, 4, 5});
  ASSERT_OK(t.run(OpType::kEinsum, {a, b}, attrs({{"equation", std::string("bij,bjk->bik")}})));
  EXPECT_EQ(t.shape(), "[2,3,5]");
  ASSERT_OK(t.run(OpType::kEinsum, {a}, attrs({{"equation", std::string("...ij")}})));
  EXPECT_EQ(t.shape(), "[2,3,4]");
  EXPECT_TRUE(
      contains(t.error(OpType::kEinsum, {a, b}, attrs({{"equation", std::string("bij,bkj->bik")}})),
               "sizes"));
  EXPECT_TRUE(contains(t.error(OpType::kEinsum, {a}, attrs({{"equation", std::string("i1j")}})),
                       "expected letters"));
}

TEST(InferRecurrent, LayoutsAndBadShapes) {
  InferCase t;
  // layout 1: X [batch, seq, input]; Y [batch, seq, dirs, hidden].
  ValueId x = t.input(DType::kF32, {2, 7, 3});
  ValueId w = t.input(DType::kF32, {2, 16, 3});
  ValueId r = t.input(DType::kF32, {2, 16, 4});
  ASSERT_OK(t.run(OpType::kLSTM, {x, w, r},
                  attrs({{"hidden_size", int64_t{4}},
                         {"direction", std::string("bidirectional")},
                         {"layout", int64_t{1}}}),
                  3));
  EXPECT_EQ(t.shape(0), "[2,7,2,4]");
  EXPECT_EQ(t.shape(2), "[2,2,4]");
  EXPECT_TRUE(contains(t.error(OpType::kLSTM, {x, w, r}, attrs({{"hidden_size", int64_t{4}}}), 3),
                       "input 1 has shape"));
  EXPECT_TRUE(contains(t.error(OpType::kGRU, {x, w, r},
                               attrs({{"hidden_size", int64_t{4}},
                                      {"activations", std::vector<std::string>{"Swish", "Tanh"}}})),
                       "Swish"));
}

TEST(InferSampling, GridSampleAndRoiAlign) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {1, 3, 8, 8});
  ASSERT_OK(t.run(OpType::kGridSample, {x, t.input(DType::kF32, {1, 5, 6, 2})}));
  EXPECT_EQ(t.shape(), "[1,3,5,6]");
  EXPECT_TRUE(
      contains(t.error(OpType::kGridSample, {x, t.input(DType::kF32, {1, 5, 6, 3})}), "must be"));
  ASSERT_OK(t.run(OpType::kRoiAlign, {x, t.input(DType::kF32, {4, 4}), t.input(DType::kI64, {4})},
                  attrs({{"output_height", int64_t{2}}, {"output_width", int64_t{3}}})));
  EXPECT_EQ(t.shape(), "[4,3,2,3]");
}

TEST(InferDataDependent, CountedDimsStayUnknownAndBadInputsAreRejected) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {3, 4});
  ASSERT_OK(t.run(OpType::kNonZero, {x}));
  EXPECT_EQ(t.shape(), "[2,?]");
  EXPECT_EQ(t.dtype(), DType::kI64);
  ValueId cond = t.input(DType::kBool, {3});
  ASSERT_OK(t.run(OpType::kCompress, {x, cond}, attrs({{"axis", int64_t{0}}})));
  EXPECT_EQ(t.shape(), "[?,4]");
  ASSERT_OK(t.run(OpType::kCompress, {x, cond}));
  EXPECT_EQ(t.shape(), "[?]");
  EXPECT_TRUE(contains(t.error(OpType::kCompress, {x, t.input(DType::kI64, {3})}), "input 1"));
  ValueId boxes = t.input(DType::kF32, {2, 5, 4});
  ASSERT_OK(t.run(OpType::kNonMaxSuppression, {boxes, t.input(DType::kF32, {2, 3, 5})}));
  EXPECT_EQ(t.shape(), "[?,3]");
  EXPECT_TRUE(contains(
      t.error(OpType::kNonMaxSuppression, {boxes, t.input(DType::kF32, {2, 3, 6})}), "do not fit"));
  EXPECT_TRUE(contains(t.error(OpType::kNonMaxSuppression,
                               {t.input(DType::kF32, {2, 5, 3}), t.input(DType::kF32, {2, 3, 5})}),
                       "[batches, boxes, 4]"));
}

}  // namespace
}  // namespace amp::graph
