// Shape inference of Attention and RotaryEmbedding, and the new ops' bad attributes: every
// malformed node is rejected at load with an error that names the problem.
#include <gtest/gtest.h>

#include <vector>

#include "tests/graph/ops/infer_test_util.h"

namespace amp::graph {
namespace {

TEST(InferAttention, ShapesWithPastAndGroupedHeads) {
  InferCase t;
  ValueId q = t.input(DType::kF32, {2, 8, 3, 16});
  ValueId k = t.input(DType::kF32, {2, 2, 3, 16});
  ValueId v = t.input(DType::kF32, {2, 2, 3, 32});
  ValueId pk = t.input(DType::kF32, {2, 2, 5, 16});
  ValueId pv = t.input(DType::kF32, {2, 2, 5, 32});
  ASSERT_OK(t.run(OpType::kAttention, {q, k, v, kNoValue, pk, pv}));
  EXPECT_EQ(t.shape(), "[2,8,3,32]");
}

TEST(InferAttention, RejectsMalformedNodes) {
  InferCase t;
  ValueId q3 = t.input(DType::kF32, {2, 3, 64});
  ValueId q = t.input(DType::kF32, {2, 6, 3, 16});
  ValueId k = t.input(DType::kF32, {2, 4, 3, 16});
  ValueId v = t.input(DType::kF32, {2, 4, 3, 16});
  EXPECT_TRUE(contains(t.error(OpType::kAttention, {q3, q3, q3}), "q_num_heads"));
  EXPECT_TRUE(contains(t.error(OpType::kAttention, {q, k, v}), "not a multiple"));
  // K and V are read at Q's batch: a smaller batch would be read past its end.
  ValueId q2 = t.input(DType::kF32, {2, 2, 8, 16});
  ValueId kv1 = t.input(DType::kF32, {1, 2, 8, 16});
  EXPECT_TRUE(contains(t.error(OpType::kAttention, {q2, kv1, q2}), "Q has batch 2 but K has 1"));
  EXPECT_TRUE(contains(t.error(OpType::kAttention, {q2, q2, kv1}), "Q has batch 2 but V has 1"));
  EXPECT_TRUE(
      contains(t.error(OpType::kAttention, {q, q, q}, attrs({{"softcap", -1.0f}})), "softcap"));
  EXPECT_TRUE(contains(
      t.error(OpType::kAttention, {q, q, q}, attrs({{"qk_matmul_output_mode", int64_t{7}}})),
      "qk_matmul_output_mode"));
}

TEST(InferRotaryEmbedding, RejectsMalformedNodes) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {1, 2, 3, 8});
  ValueId cache = t.input(DType::kF32, {1, 3, 4});
  ASSERT_OK(t.run(OpType::kRotaryEmbedding, {x, cache, cache}));
  EXPECT_EQ(t.shape(), "[1,2,3,8]");
  EXPECT_TRUE(contains(t.error(OpType::kRotaryEmbedding, {x, cache, cache},
                               attrs({{"rotary_embedding_dim", int64_t{5}}})),
                       "must be even"));
  ValueId x3 = t.input(DType::kF32, {1, 3, 16});
  EXPECT_TRUE(contains(t.error(OpType::kRotaryEmbedding, {x3, cache, cache}), "num_heads"));
}

TEST(InferNewOps, RejectBadAttributesAndShapes) {
  InferCase t;
  ValueId x = t.input(DType::kF32, {2, 3});
  ValueId v = t.input(DType::kF32, {4});
  EXPECT_TRUE(contains(t.error(OpType::kCelu, {x}, attrs({{"alpha", 0.0f}})), "alpha"));
  EXPECT_TRUE(contains(t.error(OpType::kTrilu, {v}), "rank >= 2"));
  ValueId slope = t.input(DType::kF32, {5, 2, 3});
  EXPECT_TRUE(contains(t.error(OpType::kPRelu, {x, slope}), "does not broadcast"));
}

}  // namespace
}  // namespace amp::graph
