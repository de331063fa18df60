// The public API end to end on small graphs built with the IR API (no ../shared needed):
// load, run, inspection, symbolic batch re-binding, input validation errors, sharing one
// Engine between threads.
#include "amp/engine.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "graph/ir/graph_builder.h"
#include "graph/serialize/amp_writer.h"
#include "tests/test_util/scratch_dir.h"

namespace amp {
namespace {

namespace fs = std::filesystem;
using amp::DType;

// y = softmax(relu(x @ W + b)), x: [N, 8], W: [8, 4]. Returns the .amp path.
std::string write_mlp(const fs::path& dir, std::vector<float>& w, std::vector<float>& b) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  w.resize(32);
  b.resize(4);
  for (float& v : w) v = u(rng);
  for (float& v : b) v = u(rng);
  graph::GraphBuilder gb;
  auto x = gb.input("x", DType::kF32, graph::Shape({graph::Dim::symbolic("N"), graph::Dim(8)}));
  auto wv = gb.constant("W", graph::TensorData::from_vector(DType::kF32, {8, 4}, w));
  auto bv = gb.constant("b", graph::TensorData::from_vector(DType::kF32, {4}, b));
  auto h = gb.node(graph::OpType::kMatMul, {x, wv});
  h = gb.node(graph::OpType::kAdd, {h, bv});
  h = gb.node(graph::OpType::kRelu, {h});
  graph::Attributes axis;
  axis.set("axis", int64_t{-1});
  auto y = gb.node(graph::OpType::kSoftmax, {h}, axis);
  gb.rename(y, "y");
  gb.output(y);
  graph::Graph g = gb.build();
  const std::string path = (dir / "mlp.amp").string();
  EXPECT_TRUE(graph::write_amp_file(g, path).is_ok());
  return path;
}

std::vector<float> reference_mlp(const std::vector<float>& x, int n, const std::vector<float>& w,
                                 const std::vector<float>& b) {
  std::vector<float> y(static_cast<size_t>(n) * 4);
  for (int r = 0; r < n; ++r) {
    double h[4], mx = -1e30, sum = 0;
    for (int j = 0; j < 4; ++j) {
      double acc = b[j];
      for (int k = 0; k < 8; ++k) acc += double(x[r * 8 + k]) * w[k * 4 + j];
      h[j] = std::max(acc, 0.0);
      mx = std::max(mx, h[j]);
    }
    for (int j = 0; j < 4; ++j) sum += std::exp(h[j] - mx);
    for (int j = 0; j < 4; ++j) y[r * 4 + j] = static_cast<float>(std::exp(h[j] - mx) / sum);
  }
  return y;
}

class EngineTest : public ::testing::Test {
 protected:
  void SetUp() override { path_ = write_mlp(dir_, w_, b_); }
  std::vector<float> random_input(int n, unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> d(0.0f, 1.0f);
    std::vector<float> x(static_cast<size_t>(n) * 8);
    for (float& v : x) v = d(rng);
    return x;
  }
  test::ScratchDir scratch_{"amp_engine_test"};
  const fs::path dir_ = scratch_.path();
  std::string path_;
  std::vector<float> w_, b_;
};

TEST_F(EngineTest, RunsAndRebindsTheSymbolicBatch) {
  Engine engine = Engine::load(path_, {});
  ASSERT_EQ(engine.inputs().size(), 1u);
  EXPECT_EQ(engine.inputs()[0].name, "x");
  EXPECT_EQ(engine.inputs()[0].shape, (std::vector<int64_t>{-1, 8}));
  EXPECT_EQ(engine.inputs()[0].symbols[0], "N");
  EXPECT_EQ(engine.outputs()[0].name, "y");
  EXPECT_EQ(engine.backend(), BackendKind::kCpu);
  for (int n : {1, 5, 2, 5}) {
    auto x = random_input(n, static_cast<unsigned>(n));
    auto out = engine.run({{"x", Tensor::from(x, {n, 8})}});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{n, 4}));
    auto want = reference_mlp(x, n, w_, b_);
    auto got = out[0].to_vector<float>();
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << i;
  }
  MemoryReport m = engine.memory();
  EXPECT_GT(m.arena_bytes, 0u);
  EXPECT_LE(m.lower_bound_bytes, m.arena_bytes);
  EXPECT_EQ(m.weights_bytes_fp32, (32u + 4u) * 4u);
}

TEST_F(EngineTest, RejectsBadInputsWithClearMessages) {
  Engine engine = Engine::load(path_, {});
  auto x = random_input(2, 1);
  auto expect_error = [&](const std::vector<NamedTensor>& in, const std::string& needle) {
    try {
      engine.run(in);
      ADD_FAILURE() << "expected an error containing '" << needle << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidInput) << e.what();
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error({{"input", Tensor::from(x, {2, 8})}}, "unknown input 'input'");
  expect_error({}, "missing input 'x'");
  expect_error({{"x", Tensor::from(std::vector<int64_t>(16, 1), {2, 8})}},
               "dtype i64, expected f32");
  expect_error({{"x", Tensor::from(x, {16})}}, "rank 1");
  expect_error({{"x", Tensor::from(x, {4, 4})}}, "dim 1 is 4, the model requires 8");
}

// Attention whose Q and K/V batches are separate symbolic dims: bound at run time to 2 and
// 1, K and V would be read past their end at Q's batch. It must be an error naming the batches.
TEST_F(EngineTest, AttentionWithKeyBatchOtherThanTheQueryBatchIsAnError) {
  graph::GraphBuilder gb;
  auto dims = [](const char* batch) {
    return graph::Shape(
        {graph::Dim::symbolic(batch), graph::Dim(2), graph::Dim(8), graph::Dim(16)});
  };
  auto q = gb.input("q", DType::kF32, dims("N"));
  auto k = gb.input("k", DType::kF32, dims("M"));
  auto v = gb.input("v", DType::kF32, dims("M"));
  auto y = gb.node(graph::OpType::kAttention, {q, k, v});
  gb.rename(y, "y");
  gb.output(y);
  const std::string path = (dir_ / "attention.amp").string();
  ASSERT_TRUE(graph::write_amp_file(gb.build(), path).is_ok());
  Engine engine = Engine::load(path, {});
  const std::vector<float> two(2 * 2 * 8 * 16, 0.5f), one(2 * 8 * 16, 0.5f);
  auto run = [&](const std::vector<float>& kv, int64_t kv_batch) {
    return engine.run({{"q", Tensor::from(two, {2, 2, 8, 16})},
                       {"k", Tensor::from(kv, {kv_batch, 2, 8, 16})},
                       {"v", Tensor::from(kv, {kv_batch, 2, 8, 16})}});
  };
  EXPECT_EQ(run(two, 2)[0].shape(), (std::vector<int64_t>{2, 2, 8, 16}));
  try {
    run(one, 1);
    ADD_FAILURE() << "expected an error for K and V of batch 1 against Q of batch 2";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("batch 2"), std::string::npos) << e.what();
  }
}

TEST_F(EngineTest, MissingAndCorruptFilesAreErrors) {
  try {
    Engine::load((dir_ / "nope.amp").string(), {});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound);
  }
  const fs::path bad = dir_ / "bad.amp";
  {
    std::ofstream f(bad, std::ios::binary);
    f << "this is not a model";
  }
  try {
    Engine::load(bad.string(), {});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidModel) << e.what();
  }
}

TEST_F(EngineTest, OneEngineManyThreadsGiveTheSequentialAnswer) {
  Engine engine = Engine::load(path_, {});
  const int kThreads = 4, kRuns = 25;
  std::vector<std::vector<float>> inputs, expected;
  for (int i = 0; i < kThreads * kRuns; ++i) {
    inputs.push_back(random_input(3, 100 + i));
    expected.push_back(
        engine.run({{"x", Tensor::from(inputs.back(), {3, 8})}})[0].to_vector<float>());
  }
  std::vector<std::thread> workers;
  std::atomic<int> mismatches{0};
  for (int t = 0; t < kThreads; ++t) {
    workers.emplace_back([&, t] {
      ExecutionContext ctx = engine.create_context();
      for (int r = 0; r < kRuns; ++r) {
        const int i = t * kRuns + r;
        // Alternate the shared run() and the thread's own context.
        auto out = (r % 2) ? engine.run({{"x", Tensor::from(inputs[i], {3, 8})}})
                           : ctx.run({{"x", Tensor::from(inputs[i], {3, 8})}});
        if (out[0].to_vector<float>() != expected[i]) ++mismatches;
      }
    });
  }
  for (auto& w : workers) w.join();
  EXPECT_EQ(mismatches.load(), 0);
}

}  // namespace
}  // namespace amp
