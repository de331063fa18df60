// Runs whose tensors hold no elements: a batch of zero, an empty sequence, a constant that
// folds to nothing. ONNX allows them and servers pass them on; each must run and give
// empty outputs of the right shape, never reach a kernel that divides by a zero count
// (runtime/empty_step.h).
#include <gtest/gtest.h>

#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "amp/engine.h"
#include "graph/ir/graph_builder.h"
#include "tests/test_util/scratch_dir.h"
#include "tests/test_util/test_models.h"

namespace amp {
namespace {

using graph::Dim;
using graph::GraphBuilder;
using graph::OpType;
using graph::Shape;
using graph::TensorData;

constexpr int64_t kHeads = 2, kSeq = 3, kHeadDim = 4;

Options cpu(Precision p = Precision::kFp32) {
  Options o;
  o.backend = BackendKind::kCpu;
  o.threads = 1;
  o.precision = p;
  o.emulate_low_precision = p != Precision::kFp32;
  o.precision_timing = PrecisionTimingMode::kOff;
  return o;
}

// y = Attention(q, k, v) over [batch, heads, seq, head_dim] with a symbolic batch and
// sequence, plus y2 = Attention of three constants with a batch of zero, which folds when
// the plan is built.
graph::Graph attention_model() {
  GraphBuilder b;
  const Shape s({Dim::symbolic("batch"), Dim(kHeads), Dim::symbolic("seq"), Dim(kHeadDim)});
  const auto q = b.input("q", DType::kF32, s);
  const auto k = b.input("k", DType::kF32, s);
  const auto v = b.input("v", DType::kF32, s);
  b.output(b.node(OpType::kAttention, {q, k, v}, {}, "attention"));
  auto empty = [&](const char* name) {
    return b.constant(name,
                      TensorData::from_vector<float>(DType::kF32, {0, kHeads, kSeq, kHeadDim}, {}));
  };
  b.output(b.node(OpType::kAttention, {empty("cq"), empty("ck"), empty("cv")}, {}, "folded"));
  return b.build();
}

Tensor ones(std::vector<int64_t> shape) {
  Tensor t = Tensor::empty(DType::kF32, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = 1.0f;
  return t;
}

std::vector<NamedTensor> qkv(int64_t batch, int64_t seq) {
  return {{"q", ones({batch, kHeads, seq, kHeadDim})},
          {"k", ones({batch, kHeads, seq, kHeadDim})},
          {"v", ones({batch, kHeads, seq, kHeadDim})}};
}

TEST(EmptyTensors, AttentionAtBatchZeroAndOverAnEmptySequence) {
  for (Precision p : {Precision::kFp32, Precision::kFp16, Precision::kBf16}) {
    SCOPED_TRACE(precision_name(p));
    Engine engine = test::load_on_cpu(attention_model(), cpu(p));
    ExecutionContext ctx = engine.create_context();
    for (auto [batch, seq] : {std::pair<int64_t, int64_t>{0, kSeq}, {2, 0}, {0, 0}}) {
      const std::vector<Tensor> out = ctx.run(qkv(batch, seq));
      ASSERT_EQ(out.size(), 2u);
      EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{batch, kHeads, seq, kHeadDim}));
      EXPECT_EQ(out[1].shape(), (std::vector<int64_t>{0, kHeads, kSeq, kHeadDim}));
    }
    // The same context still computes after its empty plans: softmax over equal keys.
    const std::vector<Tensor> out = ctx.run(qkv(1, kSeq));
    ASSERT_EQ(out[0].numel(), kHeads * kSeq * kHeadDim);
    for (int64_t i = 0; i < out[0].numel(); ++i) EXPECT_FLOAT_EQ(out[0].data<float>()[i], 1.0f);
  }
}

// Each step with only empty outputs runs no kernel of its op, and says so in a profile.
TEST(EmptyTensors, AStepWithOnlyEmptyOutputsRunsNothing) {
  Engine engine = test::load_on_cpu(attention_model(), cpu());
  ExecutionContext ctx = engine.create_context();
  ctx.set_profiling(true);
  ctx.run(qkv(0, kSeq));
  bool saw_attention = false;
  for (const NodeProfile& n : ctx.last_run_profile().nodes)
    if (n.name == "attention") {
      saw_attention = true;
      EXPECT_EQ(n.implementation, "nothing to compute: empty outputs");
    }
  EXPECT_TRUE(saw_attention);
  ctx.run(qkv(1, kSeq));
  for (const NodeProfile& n : ctx.last_run_profile().nodes)
    if (n.name == "attention") {
      EXPECT_NE(n.implementation, "nothing to compute: empty outputs");
    }
}

// Nodes whose outputs are not empty although an input is: products and reductions over an
// empty axis give the empty sum's and the empty max's values (as ONNX Runtime does), and
// a Concat skips its empty part. x [2, n], w [n, 3], n = 0.
TEST(EmptyTensors, ProductsAndReductionsOverAnEmptyAxis) {
  GraphBuilder b;
  const auto x = b.input("x", DType::kF32, Shape({Dim(2), Dim::symbolic("n")}));
  const auto w = b.input("w", DType::kF32, Shape({Dim::symbolic("n"), Dim(3)}));
  b.output(b.node(OpType::kMatMul, {x, w}, {}, "matmul"));
  const auto bias = b.constant("bias", TensorData::from_vector<float>(DType::kF32, {3}, {1, 2, 3}));
  b.output(b.node(OpType::kGemm, {x, w, bias}, {}, "gemm"));
  graph::Attributes flat;
  flat.set("keepdims", int64_t{0});
  b.output(b.node(OpType::kReduceSum, {x}, flat, "sum"));
  b.output(b.node(OpType::kReduceMax, {x}, flat, "max"));
  graph::Attributes axis1;
  axis1.set("axis", int64_t{1});
  const auto ones3 =
      b.constant("ones", TensorData::from_vector<float>(DType::kF32, {2, 1}, {5, 6}));
  b.output(b.node(OpType::kConcat, {x, ones3}, axis1, "concat"));
  Engine engine = test::load_on_cpu(b.build(), cpu());
  const std::vector<Tensor> out = engine.run(
      {{"x", Tensor::empty(DType::kF32, {2, 0})}, {"w", Tensor::empty(DType::kF32, {0, 3})}});
  ASSERT_EQ(out.size(), 5u);
  auto values = [](const Tensor& t) {
    return std::vector<float>(t.data<float>(), t.data<float>() + t.numel());
  };
  EXPECT_EQ(values(out[0]), std::vector<float>(6, 0.0f));
  EXPECT_EQ(values(out[1]), (std::vector<float>{1, 2, 3, 1, 2, 3}));
  EXPECT_EQ(out[2].shape(), std::vector<int64_t>{});
  EXPECT_EQ(values(out[2]), std::vector<float>{0.0f});
  EXPECT_EQ(values(out[3]), std::vector<float>{-std::numeric_limits<float>::infinity()});
  EXPECT_EQ(out[4].shape(), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(values(out[4]), (std::vector<float>{5, 6}));
}

TEST(EmptyTensors, ACnnAtBatchZero) {
  const test::ScratchDir dir("amp_empty");
  Engine engine = Engine::load(test::write_small_cnn(dir.path()), cpu());
  const std::vector<Tensor> out = engine.run({{"x", Tensor::empty(DType::kF32, {0, 3, 16, 16})}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{0, 10}));
}

}  // namespace
}  // namespace amp
