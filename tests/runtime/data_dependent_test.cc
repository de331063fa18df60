// Models whose sizes are known only while running (NonZero, Compress, NonMaxSuppression):
// the plan is cut after the data-dependent node and the rest is planned for the size the
// kernel reports (runtime/plan_split.h). Checked end to end through the Engine: downstream
// ops see the real size, several counts on one engine (the continuation cache), an empty
// selection, two cuts in a row, independent selections sharing one cut, and contexts on
// several threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "amp/engine.h"
#include "graph/ir/graph_builder.h"
#include "graph/ops/shape_inference.h"
#include "graph/serialize/amp_writer.h"
#include "runtime/plan_split.h"
#include "tests/test_util/scratch_dir.h"

namespace amp {
namespace {

namespace fs = std::filesystem;
using graph::OpType;

class DataDependentTest : public ::testing::Test {
 protected:
  std::string save(const graph::Graph& g, const std::string& name) {
    const std::string path = (dir_ / name).string();
    EXPECT_TRUE(graph::write_amp_file(g, path).is_ok());
    return path;
  }
  test::ScratchDir scratch_{"amp_dd_test"};
  const fs::path dir_ = scratch_.path();
};

// x [8] -> the positive entries, doubled (NonZero -> Squeeze -> Gather -> Mul), and their
// count through Shape (folded once the count is known).
graph::Graph positives_model() {
  graph::GraphBuilder gb;
  auto x = gb.input("x", DType::kF32, graph::Shape({8}));
  auto zero = gb.constant("zero", graph::TensorData::scalar_f32(0.0f));
  auto two = gb.constant("two", graph::TensorData::scalar_f32(2.0f));
  auto pos = gb.node(OpType::kGreater, {x, zero});
  auto idx = gb.node(OpType::kNonZero, {pos});
  auto axes = gb.constant("axes", graph::TensorData::vector_i64({0}));
  auto flat = gb.node(OpType::kSqueeze, {idx, axes});
  auto vals = gb.node(OpType::kGather, {x, flat});
  auto y = gb.node(OpType::kMul, {vals, two});
  gb.rename(y, "y");
  gb.output(y);
  auto n = gb.node(OpType::kShape, {y});
  gb.rename(n, "count");
  gb.output(n);
  return gb.build();
}

TEST_F(DataDependentTest, DownstreamOpsSeeTheRealCountForEveryInput) {
  Engine engine = Engine::load(save(positives_model(), "pos.amp"), {});
  const std::vector<std::vector<float>> inputs = {{1, -2, 3, -4, 5, -6, 7, -8},
                                                  {-1, -1, -1, -1, -1, -1, -1, -1},
                                                  {1, 2, 3, 4, 5, 6, 7, 8},
                                                  {1, -2, 3, -4, 5, -6, 7, -8}};
  for (const std::vector<float>& x : inputs) {
    std::vector<float> want;
    for (float v : x)
      if (v > 0) want.push_back(2 * v);
    auto out = engine.run({{"x", Tensor::from(x, {8})}});
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{static_cast<int64_t>(want.size())}));
    EXPECT_EQ(out[0].to_vector<float>(), want);
    EXPECT_EQ(out[1].to_vector<int64_t>(),
              (std::vector<int64_t>{static_cast<int64_t>(want.size())}));
  }
}

// x [5, 3], keep [5] bool -> Compress(axis 0) -> Relu, then the kept rows whose first
// element exceeds 1 (a second cut: Compress on a computed condition).
TEST_F(DataDependentTest, TwoCutsInARow) {
  graph::GraphBuilder gb;
  auto x = gb.input("x", DType::kF32, graph::Shape({5, 3}));
  auto keep = gb.input("keep", DType::kBool, graph::Shape({5}));
  graph::Attributes axis0;
  axis0.set("axis", int64_t{0});
  auto rows = gb.node(OpType::kCompress, {x, keep}, axis0);
  auto r = gb.node(OpType::kRelu, {rows});
  auto starts = gb.constant("s", graph::TensorData::vector_i64({0}));
  auto ends = gb.constant("e", graph::TensorData::vector_i64({1}));
  auto axes = gb.constant("a", graph::TensorData::vector_i64({1}));
  auto first = gb.node(OpType::kSlice, {r, starts, ends, axes});
  auto sq_axes = gb.constant("sa", graph::TensorData::vector_i64({1}));
  auto col = gb.node(OpType::kSqueeze, {first, sq_axes});
  auto one = gb.constant("one", graph::TensorData::scalar_f32(1.0f));
  auto big = gb.node(OpType::kGreater, {col, one});
  auto sel = gb.node(OpType::kCompress, {r, big}, axis0);
  gb.rename(sel, "y");
  gb.output(sel);
  Engine engine = Engine::load(save(gb.build(), "two_cuts.amp"), {});
  const std::vector<float> x_data = {2, 0, 1, 0.5f, 9, 9, -3, 1, 1, 4, -1, 0, 1.5f, 2, 2};
  auto run = [&](std::vector<uint8_t> k) {
    Tensor kt = Tensor::empty(DType::kBool, {5});
    std::copy(k.begin(), k.end(), static_cast<uint8_t*>(kt.raw_data()));
    return engine.run({{"x", Tensor::from(x_data, {5, 3})}, {"keep", std::move(kt)}});
  };
  auto a = run({1, 1, 1, 1, 1});  // rows 0, 3, 4 start above 1
  EXPECT_EQ(a[0].shape(), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(a[0].to_vector<float>(), (std::vector<float>{2, 0, 1, 4, 0, 0, 1.5f, 2, 2}));
  auto b = run({0, 1, 1, 0, 0});  // rows 1 and 2: none starts above 1
  EXPECT_EQ(b[0].shape(), (std::vector<int64_t>{0, 3}));
  auto c = run({1, 0, 0, 0, 1});
  EXPECT_EQ(c[0].to_vector<float>(), (std::vector<float>{2, 0, 1, 1.5f, 2, 2}));
}

// A detector's per-class selection as torchvision exports it: per class, the scores above a
// threshold (NonZero), then the top min(count, 2) of them (TopK with a computed K), and the
// classes' tops concatenated. The NonZeros share one prefix (runtime/plan_split.h), so the
// Ks fold when the rest is bound: one cut instead of one per NonZero and one per TopK.
graph::Graph per_class_top_model(int classes) {
  graph::GraphBuilder gb;
  auto scores = gb.input("scores", DType::kF32, graph::Shape({6, classes}));
  auto thr = gb.constant("thr", graph::TensorData::scalar_f32(0.5f));
  auto kmax = gb.constant("kmax", graph::TensorData::vector_i64({2}));
  auto axes = gb.constant("axes", graph::TensorData::vector_i64({0}));
  graph::Attributes axis1;
  axis1.set("axis", int64_t{1});
  std::vector<graph::ValueId> tops;
  for (int c = 0; c < classes; ++c) {
    auto ci = gb.constant("c" + std::to_string(c), graph::TensorData::scalar_i64(c));
    auto col = gb.node(OpType::kGather, {scores, ci}, axis1);
    auto idx = gb.node(OpType::kNonZero, {gb.node(OpType::kGreater, {col, thr})});
    auto vals = gb.node(OpType::kGather, {col, gb.node(OpType::kSqueeze, {idx, axes})});
    auto k = gb.node(OpType::kMin, {gb.node(OpType::kShape, {vals}), kmax});
    tops.push_back(gb.node_multi(OpType::kTopK, {vals, k}, 2)[0]);
  }
  graph::Attributes axis0;
  axis0.set("axis", int64_t{0});
  auto all = gb.node(OpType::kConcat, tops, axis0);
  gb.rename(all, "tops");
  gb.output(all);
  return gb.build();
}

TEST_F(DataDependentTest, PerClassSelectionsShareOneCut) {
  // The split itself: all three NonZeros join the first prefix.
  graph::Graph g = per_class_top_model(3);
  ASSERT_TRUE(graph::infer_shapes(g).is_ok());
  auto split = runtime::split_at_data_dependent(g);
  ASSERT_TRUE(split.is_ok()) << split.status().to_string();
  ASSERT_TRUE(split->has_value());
  EXPECT_EQ((*split)->dynamic.size(), 3u);
  for (const graph::Node& n : (*split)->rest.nodes) EXPECT_NE(n.op, OpType::kNonZero);
  for (const graph::Node& n : g.nodes) EXPECT_NE(n.op, OpType::kTopK);

  // End to end, against the rule computed here, for inputs whose counts differ per class
  // and per run (0, 1, 2 and more above the threshold).
  Engine engine = Engine::load(save(per_class_top_model(3), "per_class.amp"), {});
  const std::vector<std::vector<float>> inputs = {
      {0.9f, 0.1f, 0.6f, 0.2f, 0.3f, 0.7f, 0.8f, 0.9f, 0.1f, 0.1f, 0.2f, 0.3f, 0.6f, 0.4f, 0.2f,
       0.55f, 0.1f, 0.95f},
      {0.1f, 0.1f, 0.1f, 0.2f, 0.3f, 0.4f, 0.1f, 0.2f, 0.3f, 0.1f, 0.2f, 0.3f, 0.6f, 0.9f, 0.7f,
       0.1f, 0.1f, 0.1f},
      {0.6f, 0.6f, 0.6f, 0.7f, 0.7f, 0.7f, 0.8f, 0.8f, 0.8f, 0.9f, 0.9f, 0.9f, 0.55f, 0.55f, 0.55f,
       0.65f, 0.65f, 0.65f}};
  for (const std::vector<float>& x : inputs) {
    std::vector<float> want;
    for (int c = 0; c < 3; ++c) {
      std::vector<float> above;
      for (int r = 0; r < 6; ++r)
        if (x[static_cast<size_t>(r * 3 + c)] > 0.5f)
          above.push_back(x[static_cast<size_t>(r * 3 + c)]);
      std::sort(above.begin(), above.end(), std::greater<float>());
      const auto kept = static_cast<std::ptrdiff_t>(std::min<size_t>(above.size(), 2));
      want.insert(want.end(), above.begin(), above.begin() + kept);
    }
    auto out = engine.run({{"scores", Tensor::from(x, {6, 3})}});
    EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{static_cast<int64_t>(want.size())}));
    EXPECT_EQ(out[0].to_vector<float>(), want);
  }
}

// Shapes that depend on values computed at run time: a padding mask from sequence lengths
// (Range up to ReduceMax(lengths), as speech models build it) and TopK with a computed K.
// The plan is cut before the node whose shape waits for the value; the rest binds it.
TEST_F(DataDependentTest, ShapesFromComputedValues) {
  graph::GraphBuilder gb;
  auto lengths = gb.input("lengths", DType::kI64, graph::Shape({2}));
  auto x = gb.input("x", DType::kF32, graph::Shape({8}));
  graph::Attributes drop;
  drop.set("keepdims", int64_t{0});
  auto longest = gb.node(OpType::kReduceMax, {lengths}, drop);  // scalar
  auto zero = gb.constant("zero", graph::TensorData::scalar_i64(0));
  auto one = gb.constant("one", graph::TensorData::scalar_i64(1));
  auto steps = gb.node(OpType::kRange, {zero, longest, one});  // [L]
  auto col =
      gb.node(OpType::kUnsqueeze, {lengths, gb.constant("a1", graph::TensorData::vector_i64({1}))});
  auto mask = gb.node(OpType::kLess, {steps, col});  // [2, L]
  graph::Attributes to_f;
  to_f.set("to", int64_t{1});
  auto y = gb.node(OpType::kCast, {mask}, to_f);
  gb.rename(y, "mask");
  gb.output(y);
  auto k =
      gb.node(OpType::kUnsqueeze, {longest, gb.constant("a0", graph::TensorData::vector_i64({0}))});
  auto top = gb.node_multi(OpType::kTopK, {x, k}, 2);
  gb.rename(top[0], "top");
  gb.output(top[0]);
  Engine engine = Engine::load(save(gb.build(), "lengths.amp"), {});
  const std::vector<float> xs = {3, 1, 4, 1, 5, 9, 2, 6};
  auto out = engine.run(
      {{"lengths", Tensor::from(std::vector<int64_t>{3, 5}, {2})}, {"x", Tensor::from(xs, {8})}});
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 5}));
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{1, 1, 1, 0, 0, 1, 1, 1, 1, 1}));
  EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{9, 6, 5, 4, 3}));
  out = engine.run(
      {{"lengths", Tensor::from(std::vector<int64_t>{2, 1}, {2})}, {"x", Tensor::from(xs, {8})}});
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{1, 1, 1, 0}));
  EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{9, 6}));
}

TEST_F(DataDependentTest, ContextsOnSeveralThreadsShareTheCutPlans) {
  Engine engine = Engine::load(save(positives_model(), "pos_mt.amp"), {});
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      ExecutionContext ctx = engine.create_context();
      for (int i = 0; i < 50; ++i) {
        std::vector<float> x(8);
        for (int k = 0; k < 8; ++k)
          x[static_cast<size_t>(k)] = ((k + i + t) % 3 == 0) ? 1.0f + k : -1.0f;
        std::vector<float> want;
        for (float v : x)
          if (v > 0) want.push_back(2 * v);
        auto out = ctx.run({{"x", Tensor::from(x, {8})}});
        if (out[0].to_vector<float>() != want) ++failures[static_cast<size_t>(t)];
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(failures, (std::vector<int>{0, 0, 0, 0}));
}

}  // namespace
}  // namespace amp
