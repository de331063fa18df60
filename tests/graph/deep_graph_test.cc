// Deep and cyclic graphs through everything Engine::load runs in amp_graph (the fuzzers'
// path, tests/fuzz/load_pipeline.h): nothing may recurse per node (100,000 frames would
// overflow the stack) or do per-node work proportional to the graph (quadratic: minutes
// at this size). Each test builds a 100,000-node model and expects a load in seconds, or
// a clean error for a cycle.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>

#include "graph/ops/shape_inference.h"
#include "graph/passes/amp/amp_planner.h"
#include "graph/passes/pipelines.h"
#include "graph/serialize/amp_writer.h"
#include "tests/fuzz/load_pipeline.h"
#include "tests/graph/hostile_models.h"
#include "tests/graph/serialize/amp_test_util.h"

namespace amp::graph {
namespace {

using hostile::ChainGraph;
using hostile::OnnxModel;

constexpr int kDepth = 100000;
constexpr int kF32 = onnx::TensorProto_DataType_FLOAT;

TensorData f32_weight(std::vector<int64_t> dims) {
  const size_t n = static_cast<size_t>(*checked_numel(dims));
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = 0.25f * static_cast<float>(i % 7) - 0.5f;
  return TensorData::from_vector<float>(DType::kF32, std::move(dims), v);
}

// Seconds since `t0`, printed so a regression towards quadratic time shows in the log.
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// MatMul (ALWAYS low) and Exp (NEVER) alternate, so the AMP planner inserts a cast per
// node: 100,000 new names and casts.
Graph matmul_exp_chain() {
  ChainGraph c(DType::kF32, {1, 4});
  const ValueId w = c.constant(f32_weight({4, 4}));
  for (int i = 0; i < kDepth; ++i) {
    if (i % 2 == 0)
      c.add(OpType::kMatMul, {w});
    else
      c.add(OpType::kExp, {});
  }
  return c.finish();
}

TEST(DeepGraph, MatMulExpChainLoadsFromAmp) {
  Graph g = matmul_exp_chain();
  auto image = write_amp_bytes(g);
  ASSERT_TRUE(image.is_ok()) << image.status().to_string();
  const auto t0 = std::chrono::steady_clock::now();
  const Status s = fuzz::load_amp_untrusted(image->data(), image->size());
  EXPECT_TRUE(s.is_ok()) << s.to_string();
  std::cout << "[deep] " << kDepth << "-node MatMul/Exp chain (.amp): " << seconds_since(t0)
            << " s\n";
}

TEST(DeepGraph, MatMulExpChainLoadsFromOnnx) {
  OnnxModel m(17);
  m.input("x", kF32, {1, 4});
  std::vector<float> w(16, 0.125f);
  m.initializer("w", kF32, {4, 4}, std::string(reinterpret_cast<const char*>(w.data()), 64));
  std::string prev = "x";
  for (int i = 0; i < kDepth; ++i) {
    const std::string out = "v" + std::to_string(i);
    if (i % 2 == 0)
      m.node("MatMul", {prev, "w"}, {out});
    else
      m.node("Exp", {prev}, {out});
    prev = out;
  }
  m.output(prev);
  const std::string bytes = m.bytes();
  const auto t0 = std::chrono::steady_clock::now();
  const Status s =
      fuzz::load_onnx_untrusted(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  EXPECT_TRUE(s.is_ok()) << s.to_string();
  std::cout << "[deep] " << kDepth << "-node MatMul/Exp chain (.onnx): " << seconds_since(t0)
            << " s\n";
}

// Model Casts to f32 between low MatMuls: the planner's cast cleanup retargets each one
// (50,000 rewrites of the consumers, which must not each scan the graph).
TEST(DeepGraph, ModelCastChainIsCleanedUpInLinearTime) {
  ChainGraph c(DType::kF32, {1, 4});
  const ValueId w = c.constant(f32_weight({4, 4}));
  Attributes to_f32;
  to_f32.set("to", static_cast<int64_t>(DType::kF32));
  for (int i = 0; i < kDepth; ++i) {
    if (i % 2 == 0)
      c.add(OpType::kMatMul, {w});
    else
      c.add(OpType::kCast, {}, to_f32);
  }
  Graph g = c.finish();
  ASSERT_TRUE(infer_shapes(g).is_ok());
  const auto t0 = std::chrono::steady_clock::now();
  AmpPolicy policy;
  auto report = plan_mixed_precision(g, policy);
  ASSERT_TRUE(report.is_ok()) << report.status().to_string();
  std::cout << "[deep] AMP plan of " << kDepth << " MatMul/Cast nodes: " << seconds_since(t0)
            << " s\n";
  // Every model Cast but the last (the graph output) now writes f16 directly; at most the
  // input and output casts remain.
  EXPECT_LE(report->casts, 2);
  EXPECT_LE(g.nodes.size(), static_cast<size_t>(kDepth) + 2);
}

// Conv -> BatchNormalization pairs: each fold names two new weights.
TEST(DeepGraph, ConvBatchNormChainFoldsInLinearTime) {
  constexpr int kPairs = kDepth / 2;
  ChainGraph c(DType::kF32, {1, 1, 2, 2});
  const ValueId w = c.constant(f32_weight({1, 1, 1, 1}));
  const ValueId scale = c.constant(f32_weight({1}));
  const ValueId bias = c.constant(f32_weight({1}));
  const ValueId mean = c.constant(f32_weight({1}));
  const ValueId var = c.constant(TensorData::from_vector<float>(DType::kF32, {1}, {1.0f}));
  for (int i = 0; i < kPairs; ++i) {
    c.add(OpType::kConv, {w});
    c.add(OpType::kBatchNormalization, {scale, bias, mean, var});
  }
  Graph g = c.finish();
  ASSERT_TRUE(infer_shapes(g).is_ok());
  const auto t0 = std::chrono::steady_clock::now();
  const Status s = run_runtime_passes(g);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  std::cout << "[deep] runtime passes over " << kPairs << " Conv+BN pairs: " << seconds_since(t0)
            << " s\n";
  EXPECT_EQ(g.nodes.size(), static_cast<size_t>(kPairs));
  for (const Node& n : g.nodes) EXPECT_EQ(n.op, OpType::kConv);
}

// A ring of 100,000 Relu nodes in ONNX: the importer's topological sort finds no start and
// names a node of the cycle.
TEST(DeepGraph, OnnxCycleIsRejected) {
  OnnxModel m(17);
  m.input("x", kF32, {1});
  for (int i = 0; i < kDepth; ++i)
    m.node("Relu", {"v" + std::to_string((i + kDepth - 1) % kDepth)}, {"v" + std::to_string(i)});
  m.output("v0");
  const std::string bytes = m.bytes();
  const Status s =
      fuzz::load_onnx_untrusted(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  EXPECT_EQ(s.code(), ErrorCode::kInvalidModel) << s.to_string();
  EXPECT_NE(s.message().find("cycle"), std::string::npos) << s.message();
}

// The same ring written straight into an .amp file (the writer refuses cycles).
TEST(DeepGraph, AmpCycleIsRejected) {
  amp_test::RawModel m;
  m.values.push_back({.name = "x", .has_shape = true, .shape = {1}});
  for (int i = 0; i < kDepth; ++i) m.values.push_back({.name = "v" + std::to_string(i)});
  for (int i = 0; i < kDepth; ++i)
    m.nodes.push_back({.op = "Relu",
                       .name = "n" + std::to_string(i),
                       .inputs = {1 + (i + kDepth - 1) % kDepth},
                       .outputs = {1 + i}});
  m.inputs = {0};
  m.outputs = {1};
  const std::vector<uint8_t> file = amp_test::craft_amp(m);
  const Status s = fuzz::load_amp_untrusted(file.data(), file.size());
  EXPECT_EQ(s.code(), ErrorCode::kInvalidModel) << s.to_string();
  EXPECT_NE(s.message().find("before it is defined"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace amp::graph
