// Precision timing (runtime/precision_timing.h): the per-node decision from made-up times
// (which node is pinned, what casts cost it, what pinning would add, the user's pins), and
// the engine's use of it on this CPU (Options::precision_timing): a load that times, the
// report's reasons, a saved policy that skips timing, and a model that cannot be timed at
// its symbolic dims still loading.
#include "runtime/precision_timing.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "amp/engine.h"
#include "graph/ir/graph_builder.h"
#include "graph/ops/shape_inference.h"
#include "graph/serialize/amp_writer.h"
#include "tests/test_util/scratch_dir.h"
#include "tests/test_util/test_models.h"

namespace amp {
namespace {

namespace fs = std::filesystem;
using graph::Attributes;
using graph::GraphBuilder;
using graph::OpType;
using graph::ValueId;

// x [1,8,16,16] -> conv "a" -> relu "r" -> conv "c" -> y: planned bf16 with keep_io_types,
// so casts x -> bf16 before "a" and "c" -> f32 after it.
graph::Graph chain() {
  GraphBuilder b;
  auto conv = [&](ValueId x, unsigned seed, const std::string& name) {
    Attributes a;
    a.set("kernel_shape", std::vector<int64_t>{3, 3});
    a.set("pads", std::vector<int64_t>{1, 1, 1, 1});
    ValueId w = b.constant(name + "_w", test::random_f32({8, 8, 3, 3}, 0.3f, seed));
    return b.node(OpType::kConv, {x, w}, a, name);
  };
  ValueId x = b.input("x", DType::kF32, {1, 8, 16, 16});
  ValueId y = conv(b.node(OpType::kRelu, {conv(x, 1, "a")}, {}, "r"), 2, "c");
  b.output(y);
  graph::Graph g = b.build();
  EXPECT_TRUE(graph::infer_shapes(g).is_ok());
  return g;
}

struct Planned {
  graph::Graph low;
  std::string cast_in, cast_out;  // the planner's casts
};

Planned plan_bf16() {
  Planned p{chain(), "", ""};
  graph::AmpPolicy policy;
  policy.target = DType::kBF16;
  auto ok =
      graph::plan_mixed_precision(p.low, policy, [](const graph::Node&, DType) { return true; });
  EXPECT_TRUE(ok.is_ok()) << ok.status().to_string();
  for (const graph::Node& n : p.low.nodes)
    if (n.op == OpType::kCast)
      (p.low.value(n.outputs[0]).dtype == DType::kBF16 ? p.cast_in : p.cast_out) = n.name;
  EXPECT_FALSE(p.cast_in.empty());
  EXPECT_FALSE(p.cast_out.empty());
  return p;
}

TEST(PrecisionTiming, PinsTheNodeSlowerInLowPrecisionAndSaysWhy) {
  const Planned p = plan_bf16();
  const runtime::NodeTimes fp32 = {{"a", 0.5}, {"r", 0.01}, {"c", 0.5}};
  const runtime::NodeTimes low = {
      {"a", 1.0}, {"r", 0.01}, {"c", 0.2}, {p.cast_in, 0.001}, {p.cast_out, 0.001}};
  const auto pinned = runtime::nodes_faster_in_fp32(p.low, low, fp32, {});
  ASSERT_EQ(pinned.size(), 1u);
  ASSERT_TRUE(pinned.count("a"));
  EXPECT_NE(pinned.at("a").find("fp32: faster on this device"), std::string::npos);
  EXPECT_NE(pinned.at("a").find("bf16"), std::string::npos);
}

TEST(PrecisionTiming, ChargesTheCastsANodeNeedsToIt) {
  const Planned p = plan_bf16();
  const runtime::NodeTimes fp32 = {{"a", 0.5}, {"r", 0.01}, {"c", 0.5}};
  // "a" alone is faster in bf16 (0.45 < 0.5), not with the 0.3 ms cast of its input: 0.75
  // against 0.5 plus the cast pinning it adds before "r" (2048 elements at the plan's
  // 0.301 ms / 4096 elements), ~0.65 ms, with the 10% margin ~0.72.
  runtime::NodeTimes low = {
      {"a", 0.45}, {"r", 0.01}, {"c", 0.2}, {p.cast_in, 0.3}, {p.cast_out, 0.001}};
  EXPECT_TRUE(runtime::nodes_faster_in_fp32(p.low, low, fp32, {}).count("a"));
  low[p.cast_in] = 0.001;
  EXPECT_FALSE(runtime::nodes_faster_in_fp32(p.low, low, fp32, {}).count("a"));
}

TEST(PrecisionTiming, KeepsANodeLowWhenPinningItWouldAddCostlierCasts) {
  const Planned p = plan_bf16();
  const runtime::NodeTimes fp32 = {{"a", 0.5}, {"r", 0.010}, {"c", 0.5}};
  // "r" is 50% slower in bf16, but between two bf16 convolutions pinning it adds two casts
  // of its 2048 elements, at the plan's measured 0.1 ms per cast of that size.
  const runtime::NodeTimes low = {
      {"a", 0.2}, {"r", 0.015}, {"c", 0.2}, {p.cast_in, 0.1}, {p.cast_out, 0.1}};
  EXPECT_TRUE(runtime::nodes_faster_in_fp32(p.low, low, fp32, {}).empty());
}

TEST(PrecisionTiming, NeverPinsANodeTheUserPinnedLow) {
  const Planned p = plan_bf16();
  const runtime::NodeTimes fp32 = {{"a", 0.5}, {"r", 0.01}, {"c", 0.5}};
  const runtime::NodeTimes low = {
      {"a", 1.0}, {"r", 0.01}, {"c", 0.2}, {p.cast_in, 0.001}, {p.cast_out, 0.001}};
  EXPECT_TRUE(runtime::nodes_faster_in_fp32(p.low, low, fp32, {"a"}).empty());
}

class PrecisionTimingEngine : public ::testing::Test {
 protected:
  void SetUp() override {
    model_ = (dir_ / "chain.amp").string();
    ASSERT_TRUE(graph::write_amp_file(chain(), model_).is_ok());
  }
  // bf16 timed on any CPU: emulate_low_precision sets the CPU's own rule aside and kOn
  // times the plan anyway.
  static Options timed_bf16() {
    Options o;
    o.backend = BackendKind::kCpu;
    o.precision = Precision::kBf16;
    o.emulate_low_precision = true;
    o.precision_timing = PrecisionTimingMode::kOn;
    return o;
  }
  test::ScratchDir scratch_{"amp_precision_timing"};
  const fs::path dir_ = scratch_.path();
  std::string model_;
};

Tensor input() {
  const graph::TensorData x = test::random_f32({1, 8, 16, 16}, 1.0f, 5);
  return Tensor::from(std::vector<float>(x.data<float>(), x.data<float>() + x.numel()),
                      {1, 8, 16, 16});
}

TEST_F(PrecisionTimingEngine, ALoadTimesThePlanAndReportsEachPinnedNode) {
  Options o = timed_bf16();
  o.threads = 2;  // timed with one thread all the same (a neighbour's stalls; header)
  const Engine e = Engine::load(model_, o);
  const std::string note = e.precision_note();
  EXPECT_NE(note.find("1 thread(s)"), std::string::npos) << note;
  Options fp32_opt;
  fp32_opt.backend = BackendKind::kCpu;
  const Engine ref = Engine::load(model_, fp32_opt);
  const Tensor x = input();
  const std::vector<float> want = ref.run({{"x", x}})[0].to_float_vector();
  const std::vector<float> got = e.run({{"x", x}})[0].to_float_vector();
  if (e.precision() == Precision::kFp32) {
    // The whole plan measured slower: fp32, exactly.
    EXPECT_NE(note.find("measured on this device the AMP plan is not faster"), std::string::npos)
        << note;
    EXPECT_EQ(got, want);
    return;
  }
  ASSERT_NE(note.find("precision timing: "), std::string::npos) << note;
  // As many nodes report "faster on this device" as the note counts.
  const nlohmann::json report = nlohmann::json::parse(e.precision_report_json());
  int faster = 0;
  for (const auto& n : report["plan"]) {
    const std::string reason = n["reason"];
    if (reason.find("fp32: faster on this device") != std::string::npos) {
      ++faster;
      EXPECT_EQ(n["dtype"], "f32") << n.dump();
    }
  }
  EXPECT_NE(note.find("precision timing: " + std::to_string(faster) + " node(s)"),
            std::string::npos)
      << note;
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 5e-2 * (1 + std::abs(want[i]))) << i;
}

TEST_F(PrecisionTimingEngine, OffAndEmulationPlanAsPlanned) {
  Options o = timed_bf16();
  o.precision_timing = PrecisionTimingMode::kOff;
  const Engine off = Engine::load(model_, o);
  EXPECT_EQ(off.precision(), Precision::kBf16);
  EXPECT_EQ(off.precision_note().find("timing"), std::string::npos) << off.precision_note();
  o.precision_timing = PrecisionTimingMode::kAuto;  // emulation: the plan as planned
  EXPECT_EQ(Engine::load(model_, o).precision_note().find("timing"), std::string::npos);
}

// Timing off on a CPU that would time: the backend's guess, fp32 unless it has AMX (and fp32
// from the static rule on a CPU without native bf16), with a note saying so.
TEST_F(PrecisionTimingEngine, OffWithoutEmulationTakesTheBackendsGuess) {
  Options o = timed_bf16();
  o.emulate_low_precision = false;
  o.precision_timing = PrecisionTimingMode::kOff;
  const Engine e = Engine::load(model_, o);
  if (e.precision() == Precision::kFp32) {
    EXPECT_NE(e.precision_note().find("bf16 requested, fp32 used"), std::string::npos)
        << e.precision_note();
  } else {
    EXPECT_EQ(e.precision(), Precision::kBf16);  // a CPU with AMX
  }
  EXPECT_EQ(e.precision_note().find("precision timing:"), std::string::npos);
}

TEST_F(PrecisionTimingEngine, ASavedPolicyWithNodeDtypesIsNotTimedAgain) {
  const fs::path policy = dir_ / "policy.json";
  std::ofstream(policy) << R"({"target": "bf16", "node_dtypes": {"a": "fp32"}})";
  Options o = timed_bf16();
  o.policy_file = policy.string();
  const Engine e = Engine::load(model_, o);
  EXPECT_EQ(e.precision(), Precision::kBf16);
  EXPECT_NE(e.precision_note().find("precision timing skipped: the policy file"), std::string::npos)
      << e.precision_note();
}

// H and W symbolic: not timed at made-up dims (at dims of 1 this model could not even run:
// a 2x2 MaxPool on a 1x1 image). The load says it skipped timing and why, and runs; bound
// with input_shapes, the same model is timed.
TEST_F(PrecisionTimingEngine, SymbolicDimsAreTimedOnlyWhenBound) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32,
                      graph::Shape({1, 8, graph::Dim::symbolic("H"), graph::Dim::symbolic("W")}));
  Attributes a;
  a.set("kernel_shape", std::vector<int64_t>{2, 2});
  a.set("strides", std::vector<int64_t>{2, 2});
  Attributes c;
  c.set("kernel_shape", std::vector<int64_t>{1, 1});
  ValueId w = b.constant("w", test::random_f32({8, 8, 1, 1}, 0.3f, 3));
  b.output(b.node(OpType::kMaxPool, {b.node(OpType::kConv, {x, w}, c, "conv")}, a, "pool"));
  graph::Graph g = b.build();
  ASSERT_TRUE(graph::infer_shapes(g).is_ok());
  const std::string path = (dir_ / "pool.amp").string();
  ASSERT_TRUE(graph::write_amp_file(g, path).is_ok());
  const Engine e = Engine::load(path, timed_bf16());
  EXPECT_NE(e.precision_note().find("precision timing skipped: input 'x' has symbolic dims"),
            std::string::npos)
      << e.precision_note();
  std::vector<float> ones(1 * 8 * 4 * 4, 1.0f);
  EXPECT_EQ(e.run({{"x", Tensor::from(ones, {1, 8, 4, 4})}})[0].shape(),
            (std::vector<int64_t>{1, 8, 2, 2}));
  Options bound = timed_bf16();
  bound.input_shapes = {{"x", {1, 8, 4, 4}}};
  const std::string note = Engine::load(path, bound).precision_note();
  EXPECT_TRUE(note.find("precision timing: ") != std::string::npos ||
              note.find("the AMP plan is not faster") != std::string::npos)
      << note;
}

}  // namespace
}  // namespace amp
