// ValueMemo (runtime/value_memo.h): a run of a plan that differs from a recorded one only
// from some node on skips the steps before it, and its outputs are bit-equal to a run
// without the memo; fingerprints follow what decides a value and nothing else.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "graph/ir/graph_builder.h"
#include "graph/ops/shape_inference.h"
#include "graph/passes/amp/amp_planner.h"
#include "runtime/backend/backend_factory.h"
#include "runtime/calibration.h"
#include "runtime/value_memo.h"

namespace amp {
namespace {

graph::TensorData weights(int64_t rows, int64_t cols, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-0.5f, 0.5f);
  std::vector<float> v(static_cast<size_t>(rows * cols));
  for (float& x : v) x = u(rng);
  return graph::TensorData::from_vector<float>(DType::kF32, {rows, cols}, v);
}

// x -> mm1 -> add1 -> relu1 -> mm2 -> tanh2 -> mm3 -> out, with a 64x64 weight (a large
// constant, fingerprinted by its storage) and 64x16 ones (hashed by their bytes).
graph::Graph chain() {
  graph::GraphBuilder b;
  const graph::ValueId x =
      b.input("x", DType::kF32, graph::Shape({graph::Dim::symbolic("N"), graph::Dim(64)}));
  graph::ValueId y =
      b.node(graph::OpType::kMatMul, {x, b.constant("w1", weights(64, 64, 1))}, {}, "mm1");
  y = b.node(graph::OpType::kAdd, {y, b.constant("b1", weights(1, 64, 2))}, {}, "add1");
  y = b.node(graph::OpType::kRelu, {y}, {}, "relu1");
  y = b.node(graph::OpType::kMatMul, {y, b.constant("w2", weights(64, 16, 3))}, {}, "mm2");
  y = b.node(graph::OpType::kTanh, {y}, {}, "tanh2");
  y = b.node(graph::OpType::kMatMul, {y, b.constant("w3", weights(16, 16, 4))}, {}, "mm3");
  b.output(y);
  graph::Graph g = b.build();
  EXPECT_TRUE(graph::infer_shapes(g).is_ok());
  return g;
}

// The fp16 plan of `source` with `pins` kept fp32, its converted weights shared through
// `cache` as the accuracy search shares them (valid while `source` lives).
graph::Graph planned(const graph::Graph& source, const std::vector<std::string>& pins,
                     const std::shared_ptr<graph::ConvertedWeights>& cache) {
  graph::Graph g = source;
  graph::AmpPolicy policy;
  policy.weight_cache = cache;
  for (const std::string& p : pins) policy.node_hints[p] = {DType::kF32, "test"};
  EXPECT_TRUE(graph::plan_mixed_precision(g, policy).is_ok());
  return g;
}

class ValueMemoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int k = 0; k < 2; ++k) {
      std::vector<float> v(3 * 64);
      for (size_t i = 0; i < v.size(); ++i) v[i] = 0.01f * static_cast<float>((i * 7 + k) % 97);
      inputs_.push_back(Tensor::from(v, {3, 64}));
    }
    for (const Tensor& t : inputs_) samples_.push_back({&t});
    auto r = runtime::CpuGraphRunner::create(1);
    ASSERT_TRUE(r.is_ok());
    runner_ = std::move(*r);
  }
  std::vector<float> run(const graph::Graph& g, runtime::ValueMemo* memo, bool record) {
    auto out = runner_->run_samples(g, samples_, nullptr, memo, record);
    EXPECT_TRUE(out.is_ok()) << out.status().to_string();
    std::vector<float> all;
    for (const auto& sample : *out)
      for (const Tensor& t : sample) {
        const std::vector<float> v = t.to_float_vector();
        all.insert(all.end(), v.begin(), v.end());
      }
    return all;
  }
  std::vector<Tensor> inputs_;
  std::vector<runtime::CalibrationSample> samples_;
  std::unique_ptr<runtime::CpuGraphRunner> runner_;
  const graph::Graph source_ = chain();
  std::shared_ptr<graph::ConvertedWeights> cache_ = std::make_shared<graph::ConvertedWeights>();
};

TEST_F(ValueMemoTest, ATailChangeReusesTheFrontAndMatchesAFreshRun) {
  const graph::Graph all_low = planned(source_, {}, cache_);
  const graph::Graph tail_pinned = planned(source_, {"mm3"}, cache_);
  ASSERT_NE(run(all_low, nullptr, false), run(tail_pinned, nullptr, false));

  runtime::ValueMemo memo;
  const std::vector<float> recorded = run(all_low, &memo, true);
  EXPECT_EQ(recorded, run(all_low, nullptr, false));
  EXPECT_EQ(memo.steps_skipped(), 0);
  const int64_t steps = memo.steps_run();
  EXPECT_GT(memo.bytes(), 0u);

  // The same plan again: every step is known.
  EXPECT_EQ(run(all_low, &memo, false), recorded);
  EXPECT_EQ(memo.steps_skipped(), steps);
  EXPECT_EQ(memo.steps_run(), steps);

  // mm3 pinned: everything up to its input cast is reused; mm3 and after run.
  const int64_t skipped_before = memo.steps_skipped(), run_before = memo.steps_run();
  EXPECT_EQ(run(tail_pinned, &memo, false), run(tail_pinned, nullptr, false));
  EXPECT_GE(memo.steps_skipped() - skipped_before, 5);  // mm1, add1, relu1, mm2, tanh2
  EXPECT_GE(memo.steps_run() - run_before, 1);
}

// Samples of different shapes run one by one, each with its own plan and tag: a value kept
// for one sample is never restored into another's run.
TEST_F(ValueMemoTest, SamplesOfDifferentShapesKeepTheirOwnValues) {
  std::vector<Tensor> inputs;
  for (int64_t rows : {3, 5, 3}) {
    std::vector<float> v(static_cast<size_t>(rows * 64));
    for (size_t i = 0; i < v.size(); ++i) v[i] = 0.02f * static_cast<float>((i * 5 + rows) % 89);
    inputs.push_back(Tensor::from(v, {rows, 64}));
  }
  inputs[2] = Tensor::from(std::vector<float>(3 * 64, 0.5f), {3, 64});  // same shape as [0]
  samples_.clear();
  for (const Tensor& t : inputs) samples_.push_back({&t});
  runtime::ValueMemo memo;
  run(planned(source_, {}, cache_), &memo, true);
  const graph::Graph tail_pinned = planned(source_, {"mm3"}, cache_);
  EXPECT_EQ(run(tail_pinned, &memo, false), run(tail_pinned, nullptr, false));
  EXPECT_GT(memo.steps_skipped(), 0);
}

TEST_F(ValueMemoTest, AFrontChangeReusesNothingDownstream) {
  runtime::ValueMemo memo;
  run(planned(source_, {}, cache_), &memo, true);
  const graph::Graph head_pinned = planned(source_, {"mm1"}, cache_);
  EXPECT_EQ(run(head_pinned, &memo, false), run(head_pinned, nullptr, false));
  EXPECT_EQ(memo.steps_skipped(), 0);
}

TEST_F(ValueMemoTest, ARecordReplacesThePreviousAndTheBudgetBoundsIt) {
  runtime::ValueMemo memo;
  run(planned(source_, {}, cache_), &memo, true);
  const size_t first = memo.bytes();
  // Recording mm3's plan keeps what it shares with the first and what it computed.
  const graph::Graph tail_pinned = planned(source_, {"mm3"}, cache_);
  run(tail_pinned, &memo, true);
  EXPECT_GT(memo.steps_skipped(), 0);
  EXPECT_GT(memo.bytes(), 0u);
  EXPECT_LE(memo.bytes(), first + 2 * 3 * 2 * 16 * 4);  // at most mm3's fp32 outputs more
  const int64_t skipped = memo.steps_skipped();
  EXPECT_EQ(run(tail_pinned, &memo, false), run(tail_pinned, nullptr, false));
  EXPECT_GT(memo.steps_skipped(), skipped);

  runtime::ValueMemo none(0);  // no budget: nothing kept, nothing skipped, same results
  const graph::Graph all_low = planned(source_, {}, cache_);
  EXPECT_EQ(run(all_low, &none, true), run(all_low, nullptr, false));
  EXPECT_EQ(run(all_low, &none, false), run(all_low, nullptr, false));
  EXPECT_EQ(none.bytes(), 0u);
  EXPECT_EQ(none.steps_skipped(), 0);
}

// A plan cut after a data-dependent node (runtime/plan_split.h) runs without the memo: its
// continuation's inputs are computed at run time, which no fingerprint can stand for.
TEST_F(ValueMemoTest, ACutPlanRunsWithoutTheMemo) {
  graph::GraphBuilder b;
  const graph::ValueId x = b.input("x", DType::kF32, graph::Shape({8}));
  const graph::ValueId pos =
      b.node(graph::OpType::kGreater, {x, b.constant("zero", graph::TensorData::scalar_f32(0.0f))});
  const graph::ValueId idx = b.node(graph::OpType::kNonZero, {pos});
  const graph::ValueId flat = b.node(graph::OpType::kSqueeze,
                                     {idx, b.constant("axes", graph::TensorData::vector_i64({0}))});
  b.output(b.node(graph::OpType::kGather, {x, flat}));
  graph::Graph g = b.build();
  ASSERT_TRUE(graph::infer_shapes(g).is_ok());
  const Tensor t = Tensor::from(std::vector<float>{1, -2, 3, -4, 5, -6, 7, -8}, {8});
  runtime::ValueMemo memo;
  for (bool record : {true, false}) {
    auto out = runner_->run_samples(g, {{&t}}, nullptr, &memo, record);
    ASSERT_TRUE(out.is_ok()) << out.status().to_string();
    EXPECT_EQ((*out)[0][0].to_float_vector(), (std::vector<float>{1, 3, 5, 7}));
  }
  EXPECT_EQ(memo.steps_skipped(), 0);
  EXPECT_EQ(memo.bytes(), 0u);
}

// Fingerprints of two plans agree exactly on the values the pinned node does not reach, and
// depend on the run's tag (which input data it is).
TEST_F(ValueMemoTest, FingerprintsFollowWhatDecidesAValue) {
  Options cpu;
  cpu.backend = BackendKind::kCpu;
  auto backend = runtime::create_backend(cpu);
  ASSERT_TRUE(backend.is_ok());
  runtime::PlanBuildOptions popt;
  popt.backend = backend->backend.get();
  popt.plain_layouts = true;
  std::vector<std::optional<graph::TensorData>> none(1);
  runtime::PlanKey key;
  key.dims = {{3, 64}};
  auto a = runtime::build_execution_plan(planned(source_, {}, cache_), key, none, popt);
  auto a2 = runtime::build_execution_plan(planned(source_, {}, cache_), key, none, popt);
  auto b = runtime::build_execution_plan(planned(source_, {"mm2"}, cache_), key, none, popt);
  ASSERT_TRUE(a.is_ok() && a2.is_ok() && b.is_ok());
  auto by_producer = [](const runtime::ExecutionPlan& p, uint64_t tag) {
    std::map<std::string, uint64_t> out;
    const std::vector<uint64_t> fp = runtime::value_fingerprints(p, tag);
    for (const graph::Node& n : p.graph.nodes) out[n.name] = fp[static_cast<size_t>(n.outputs[0])];
    return out;
  };
  const auto fa = by_producer(**a, 7), fb = by_producer(**b, 7);
  EXPECT_EQ(fa, by_producer(**a2, 7));  // a plan built again: the same
  for (const char* same : {"mm1", "add1", "relu1"}) EXPECT_EQ(fa.at(same), fb.at(same)) << same;
  for (const char* changed : {"mm2", "tanh2", "mm3"})
    EXPECT_NE(fa.at(changed), fb.at(changed)) << changed;
  for (const auto& [node, f] : fa) EXPECT_NE(f, 0u) << node;
  EXPECT_NE(by_producer(**a, 8).at("mm1"), fa.at("mm1"));  // other inputs, other values
}

}  // namespace
}  // namespace amp
