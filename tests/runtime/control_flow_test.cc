// If, Loop and Scan end to end through the Engine (runtime/control_flow.h): bodies that read
// outer values (captures), both branches of one engine, conditions that fold at plan time,
// loops stopped by their condition, carried values that grow, scans in both directions along
// other axes, nesting, AMP over bodies, .amp round trips and contexts on several threads.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "amp/engine.h"
#include "graph/ir/graph_builder.h"
#include "graph/passes/pipelines.h"
#include "graph/serialize/amp_reader.h"
#include "graph/serialize/amp_writer.h"
#include "tests/test_util/scratch_dir.h"

namespace amp {
namespace {

namespace fs = std::filesystem;
using graph::Attributes;
using graph::Dim;
using graph::GraphBuilder;
using graph::OpType;
using graph::Shape;
using graph::SubgraphAttr;
using graph::TensorData;

std::shared_ptr<const graph::Graph> share(graph::Graph g) {
  return std::make_shared<const graph::Graph>(std::move(g));
}

TensorData bool_scalar(bool b) {
  return TensorData::from_vector<uint8_t>(DType::kBool, {}, {static_cast<uint8_t>(b)});
}

class ControlFlowTest : public ::testing::Test {
 protected:
  std::string save(const graph::Graph& g, const std::string& name) {
    const std::string path = (dir_ / name).string();
    const Status s = graph::write_amp_file(g, path);
    EXPECT_TRUE(s.is_ok()) << s.to_string();
    return path;
  }
  test::ScratchDir scratch_{"amp_cf_test"};
  const fs::path dir_ = scratch_.path();
};

// y = flag ? relu(x) * 2 : -x, both branches reading x (and the then branch a captured
// weight-like constant "two") from the outer graph.
graph::Graph if_model() {
  GraphBuilder then_b;
  auto tx = then_b.input("x", DType::kF32, Shape({4}));
  auto two = then_b.input("two", DType::kF32, Shape());
  auto r = then_b.node(OpType::kRelu, {tx});
  then_b.output(then_b.node(OpType::kMul, {r, two}));
  GraphBuilder else_b;
  auto ex = else_b.input("x", DType::kF32, Shape({4}));
  else_b.input("two", DType::kF32, Shape());
  else_b.output(else_b.node(OpType::kNeg, {ex}));

  GraphBuilder gb;
  auto x = gb.input("x", DType::kF32, Shape({4}));
  auto flag = gb.input("flag", DType::kBool, Shape());
  auto c2 = gb.constant("two", TensorData::scalar_f32(2.0f));
  Attributes a;
  a.set("then_branch", SubgraphAttr{share(then_b.build())});
  a.set("else_branch", SubgraphAttr{share(else_b.build())});
  a.set("captured_inputs", int64_t{2});
  auto y = gb.node(OpType::kIf, {flag, x, c2}, a, "choose");
  auto z = gb.node(OpType::kAdd, {y, x});  // after the If: the plan continues
  gb.rename(z, "z");
  gb.output(z);
  return gb.build();
}

std::vector<float> run_if(Engine& e, const std::vector<float>& x, bool flag) {
  const uint8_t f = flag;
  auto out = e.run({{"x", Tensor::from(x, {static_cast<int64_t>(x.size())})},
                    {"flag", Tensor::from_bytes(DType::kBool, {}, &f, 1)}});
  return out.at(0).to_vector<float>();
}

TEST_F(ControlFlowTest, IfRunsTheBranchItsConditionPicksOnOneEngine) {
  Engine e = Engine::load(save(if_model(), "if.amp"), {});
  const std::vector<float> x = {1, -2, 3, -4};
  for (int rep = 0; rep < 2; ++rep) {
    EXPECT_EQ(run_if(e, x, true), (std::vector<float>{3, -2, 9, -4}));
    EXPECT_EQ(run_if(e, x, false), (std::vector<float>{0, 0, 0, 0}));
  }
}

TEST_F(ControlFlowTest, IfBodiesSurviveTheAmpFileRoundTrip) {
  const graph::Graph g = if_model();
  const std::string path = save(g, "if_rt.amp");
  auto back = graph::read_amp_file(path);
  ASSERT_TRUE(back.is_ok()) << back.status().to_string();
  EXPECT_TRUE(*back == g);
}

// A profiled run shows the If as a span and, one level deeper and inside it in time, the
// nodes of the branch that ran; the node after the If is back at depth 0.
TEST_F(ControlFlowTest, ProfileShowsTheIfAsASpanAroundItsBranch) {
  Engine e = Engine::load(save(if_model(), "if_profile.amp"), {});
  ExecutionContext ctx = e.create_context();
  ctx.set_profiling(true);
  const std::vector<float> x = {1, -2, 3, -4};
  const uint8_t flag = 1;
  for (int rep = 0; rep < 2; ++rep)
    ctx.run(
        {{"x", Tensor::from(x, {4})}, {"flag", Tensor::from_bytes(DType::kBool, {}, &flag, 1)}});
  const RunProfile p = ctx.last_run_profile();
  std::vector<std::string> seen;
  for (const NodeProfile& n : p.nodes) seen.push_back(std::to_string(n.depth) + " " + n.op);
  EXPECT_EQ(seen, (std::vector<std::string>{"0 If", "1 Relu", "1 Mul", "0 Add"}));
  ASSERT_EQ(p.nodes.size(), 4u);
  const NodeProfile& span = p.nodes[0];
  EXPECT_TRUE(span.control_flow);
  EXPECT_EQ(span.name, "choose");
  EXPECT_EQ(span.shapes, "scalar 4 scalar -> 4");
  for (size_t i = 1; i < 3; ++i) {
    EXPECT_FALSE(p.nodes[i].control_flow);
    EXPECT_GE(p.nodes[i].start_ms, span.start_ms);
    EXPECT_LE(p.nodes[i].start_ms + p.nodes[i].duration_ms,
              span.start_ms + span.duration_ms + 1e-6);
  }
  EXPECT_GE(p.total_ms, span.duration_ms);
}

TEST_F(ControlFlowTest, AmpColorsTheBodiesAndKeepsTheBoundaryInFp32) {
  Options opt;
  opt.precision = Precision::kFp16;
  opt.emulate_low_precision = true;  // the AMP plan, even on a CPU without AMX
  Engine e = Engine::load(save(if_model(), "if_amp.amp"), opt);
  const std::vector<float> x = {1, -2, 3, -4};
  EXPECT_EQ(run_if(e, x, true), (std::vector<float>{3, -2, 9, -4}));
  EXPECT_EQ(run_if(e, x, false), (std::vector<float>{0, 0, 0, 0}));
  const std::string report = e.precision_report_json();
  // The bodies' nodes are in the report under the If's name.
  EXPECT_NE(report.find("choose/then_branch/"), std::string::npos) << report;
  EXPECT_NE(report.find("choose/else_branch/"), std::string::npos) << report;
  const std::string dot = e.precision_report_dot();
  EXPECT_NE(dot.find("cluster_n0_then_branch"), std::string::npos) << dot;
}

// The condition is x's length > 2: constant once a plan binds x's dims, so the If is inlined
// there; the engine still serves both lengths.
TEST_F(ControlFlowTest, AConditionThatFoldsWhenDimsAreBoundIsInlined) {
  GraphBuilder then_b;
  auto tx = then_b.input("x", DType::kF32, Shape({graph::Dim::symbolic("n")}));
  then_b.output(then_b.node(OpType::kRelu, {tx}));
  GraphBuilder else_b;
  auto ex = else_b.input("x", DType::kF32, Shape({graph::Dim::symbolic("n")}));
  else_b.output(else_b.node(OpType::kNeg, {ex}));
  GraphBuilder gb;
  auto x = gb.input("x", DType::kF32, Shape({graph::Dim::symbolic("n")}));
  auto shape = gb.node(OpType::kShape, {x});
  auto two = gb.constant("two", TensorData::vector_i64({2}));
  auto gt = gb.node(OpType::kGreater, {shape, two});
  auto axes = gb.constant("axes", TensorData::vector_i64({0}));
  auto cond = gb.node(OpType::kSqueeze, {gt, axes});
  Attributes a;
  a.set("then_branch", SubgraphAttr{share(then_b.build())});
  a.set("else_branch", SubgraphAttr{share(else_b.build())});
  a.set("captured_inputs", int64_t{1});
  auto y = gb.node(OpType::kIf, {cond, x}, a);
  gb.rename(y, "y");
  gb.output(y);
  Engine e = Engine::load(save(gb.build(), "fold.amp"), {});
  auto long_out = e.run({{"x", Tensor::from(std::vector<float>{1, -2, 3}, {3})}});
  EXPECT_EQ(long_out[0].to_vector<float>(), (std::vector<float>{1, 0, 3}));
  auto short_out = e.run({{"x", Tensor::from(std::vector<float>{1, -2}, {2})}});
  EXPECT_EQ(short_out[0].to_vector<float>(), (std::vector<float>{-1, 2}));
}

// y = flag ? Reshape(x, [4]) : -x. With x's length bound to 3 the then branch fits no run,
// but the condition is known only at run time (Silero VAD picks its 8 kHz or 16 kHz network by
// a sample-rate input): the conversion passes (ONNX import with input_shapes, amp-convert
// --shape) keep that branch unfolded, the else branch runs, and taking the then branch is the
// inputs' error, naming it.
graph::Graph dead_branch_model(const Shape& x_shape) {
  GraphBuilder then_b;
  auto tx = then_b.input("x", DType::kF32, x_shape);
  auto four = then_b.constant("four", TensorData::vector_i64({4}));
  then_b.output(then_b.node(OpType::kReshape, {tx, four}));
  GraphBuilder else_b;
  auto ex = else_b.input("x", DType::kF32, x_shape);
  else_b.output(else_b.node(OpType::kNeg, {ex}));
  GraphBuilder gb;
  auto x = gb.input("x", DType::kF32, x_shape);
  auto flag = gb.input("flag", DType::kBool, Shape());
  Attributes a;
  a.set("then_branch", SubgraphAttr{share(then_b.build())});
  a.set("else_branch", SubgraphAttr{share(else_b.build())});
  a.set("captured_inputs", int64_t{1});
  auto y = gb.node(OpType::kIf, {flag, x}, a, "by_rate");
  gb.rename(y, "y");
  gb.output(y);
  return gb.build();
}

TEST_F(ControlFlowTest, ABranchThatDoesNotFitTheBoundShapesIsAnErrorOnlyWhenTaken) {
  graph::Graph g = dead_branch_model(Shape({3}));
  const Status folded = graph::run_conversion_passes(g);
  ASSERT_TRUE(folded.is_ok()) << folded.to_string();
  Engine e = Engine::load(save(g, "dead_branch.amp"), {});
  EXPECT_EQ(run_if(e, {1, -2, 3}, false), (std::vector<float>{-1, 2, -3}));
  const uint8_t yes = 1;
  try {
    e.run({{"x", Tensor::from(std::vector<float>{1, -2, 3}, {3})},
           {"flag", Tensor::from_bytes(DType::kBool, {}, &yes, 1)}});
    ADD_FAILURE() << "the then branch cannot reshape 3 values to 4";
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), ErrorCode::kInvalidInput) << err.what();
    EXPECT_NE(std::string(err.what()).find("'by_rate' (If): then_branch"), std::string::npos)
        << err.what();
  }
  // With x's length symbolic, 4 values take either branch.
  graph::Graph open = dead_branch_model(Shape({graph::Dim::symbolic("n")}));
  ASSERT_TRUE(graph::run_conversion_passes(open).is_ok());
  Engine e4 = Engine::load(save(open, "open_branch.amp"), {});
  const std::vector<float> x4 = {1, -2, 3, -4};
  EXPECT_EQ(run_if(e4, x4, true), x4);
  EXPECT_EQ(run_if(e4, x4, false), (std::vector<float>{-1, 2, -3, 4}));
}

// Loop(M, cond, s = 0) { s += x; cond = s < limit; scan out s }: stops at the trip count or
// when the sum reaches the limit, whichever comes first.
graph::Graph loop_model() {
  GraphBuilder body;
  body.input("i", DType::kI64, Shape());
  body.input("cond_in", DType::kBool, Shape());
  auto s = body.input("s", DType::kF32, Shape({2}));
  auto bx = body.input("x", DType::kF32, Shape({2}));
  auto body_limit = body.input("limit", DType::kF32, Shape());
  auto s2 = body.node(OpType::kAdd, {s, bx});
  Attributes keep;
  keep.set("keepdims", int64_t{0});
  auto total = body.node(OpType::kReduceSum, {s2}, keep);
  auto cond = body.node(OpType::kLess, {total, body_limit});
  auto copy = body.node(OpType::kIdentity, {s2});
  body.output(cond);
  body.output(s2);
  body.output(copy);

  GraphBuilder gb;
  auto m = gb.input("m", DType::kI64, Shape());
  auto x = gb.input("x", DType::kF32, Shape({2}));
  auto limit = gb.input("limit", DType::kF32, Shape());
  auto yes = gb.constant("yes", bool_scalar(true));
  auto zero = gb.constant("zero", TensorData::from_vector<float>(DType::kF32, {2}, {0, 0}));
  Attributes a;
  a.set("body", SubgraphAttr{share(body.build())});
  a.set("captured_inputs", int64_t{2});
  auto outs = gb.node_multi(OpType::kLoop, {m, yes, zero, x, limit}, 2, a, "loop");
  gb.rename(outs[0], "sum");
  gb.rename(outs[1], "partial_sums");
  gb.output(outs[0]);
  gb.output(outs[1]);
  return gb.build();
}

std::vector<Tensor> run_loop(Engine& e, int64_t m, std::vector<float> x, float limit) {
  return e.run({{"m", Tensor::from(std::vector<int64_t>{m}, {})},
                {"x", Tensor::from(x, {2})},
                {"limit", Tensor::from(std::vector<float>{limit}, {})}});
}

TEST_F(ControlFlowTest, LoopStopsAtItsTripCountOrItsCondition) {
  Engine e = Engine::load(save(loop_model(), "loop.amp"), {});
  auto by_count = run_loop(e, 3, {1, 2}, 1000);
  EXPECT_EQ(by_count[0].to_vector<float>(), (std::vector<float>{3, 6}));
  EXPECT_EQ(by_count[1].shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(by_count[1].to_vector<float>(), (std::vector<float>{1, 2, 2, 4, 3, 6}));
  // The sum reaches 10 after 4 steps (3 * 4 = 12): the condition stops it there.
  auto by_cond = run_loop(e, 100, {1, 2}, 10);
  EXPECT_EQ(by_cond[0].to_vector<float>(), (std::vector<float>{4, 8}));
  EXPECT_EQ(by_cond[1].shape(), (std::vector<int64_t>{4, 2}));
  auto none = run_loop(e, 0, {1, 2}, 10);
  EXPECT_EQ(none[0].to_vector<float>(), (std::vector<float>{0, 0}));
  EXPECT_EQ(none[1].shape(), (std::vector<int64_t>{0, 2}));
}

TEST_F(ControlFlowTest, ContextsOnSeveralThreadsShareOneLoopEngine) {
  Engine e = Engine::load(save(loop_model(), "loop_mt.amp"), {});
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      ExecutionContext ctx = e.create_context();
      bool good = true;
      for (int rep = 0; rep < 20; ++rep) {
        const int64_t m = 1 + (t + rep) % 5;
        auto out = ctx.run({{"m", Tensor::from(std::vector<int64_t>{m}, {})},
                            {"x", Tensor::from(std::vector<float>{1, 1}, {2})},
                            {"limit", Tensor::from(std::vector<float>{1000}, {})}});
        good = good && out[0].to_vector<float>() ==
                           std::vector<float>{static_cast<float>(m), static_cast<float>(m)};
        good = good && out[1].shape() == std::vector<int64_t>{m, 2};
      }
      ok[static_cast<size_t>(t)] = good;
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok, (std::vector<int>{1, 1, 1, 1}));
}

// A carried value that grows each iteration (Concat): its shape changes between iterations,
// so the body is planned per shape.
TEST_F(ControlFlowTest, LoopCarriedValuesMayChangeShape) {
  GraphBuilder body;
  body.input("i", DType::kI64, Shape());
  auto c = body.input("cond_in", DType::kBool, Shape());
  auto acc = body.input("acc", DType::kF32, Shape({graph::Dim::symbolic("k")}));
  auto one = body.constant("one", TensorData::from_vector<float>(DType::kF32, {1}, {1}));
  Attributes cat;
  cat.set("axis", int64_t{0});
  auto grown = body.node(OpType::kConcat, {acc, one}, cat);
  body.output(body.node(OpType::kIdentity, {c}));
  body.output(grown);
  GraphBuilder gb;
  auto m = gb.input("m", DType::kI64, Shape());
  auto start = gb.input("start", DType::kF32, Shape({1}));
  Attributes a;
  a.set("body", SubgraphAttr{share(body.build())});
  auto out = gb.node(OpType::kLoop, {m, graph::kNoValue, start}, a);
  gb.rename(out, "acc");
  gb.output(out);
  Engine e = Engine::load(save(gb.build(), "grow.amp"), {});
  auto r = e.run({{"m", Tensor::from(std::vector<int64_t>{3}, {})},
                  {"start", Tensor::from(std::vector<float>{5}, {1})}});
  EXPECT_EQ(r[0].to_vector<float>(), (std::vector<float>{5, 1, 1, 1}));
}

// A Scan body over `width` floats: s' = s + x_t, and s' again as the scan output (a running
// sum).
graph::Graph running_sum_body(int64_t width) {
  GraphBuilder body;
  auto s = body.input("s", DType::kF32, Shape({width}));
  auto xt = body.input("xt", DType::kF32, Shape({width}));
  auto s2 = body.node(OpType::kAdd, {s, xt});
  body.output(s2);
  body.output(body.node(OpType::kIdentity, {s2}));
  return body.build();
}

// Scan over axis 1 of x [2, 3], reverse, output stacked on axis 1: a reversed cumulative sum
// per row, and the final state.
TEST_F(ControlFlowTest, ScanRunsEitherDirectionAlongAnyAxis) {
  GraphBuilder gb;
  auto init = gb.input("init", DType::kF32, Shape({2}));
  auto x = gb.input("x", DType::kF32, Shape({2, 3}));
  Attributes a;
  a.set("body", SubgraphAttr{share(running_sum_body(2))});
  a.set("num_scan_inputs", int64_t{1});
  a.set("scan_input_axes", std::vector<int64_t>{1});
  a.set("scan_input_directions", std::vector<int64_t>{1});
  a.set("scan_output_axes", std::vector<int64_t>{-1});
  a.set("scan_output_directions", std::vector<int64_t>{1});
  auto outs = gb.node_multi(OpType::kScan, {init, x}, 2, a);
  gb.rename(outs[0], "final");
  gb.rename(outs[1], "sums");
  gb.output(outs[0]);
  gb.output(outs[1]);
  Engine e = Engine::load(save(gb.build(), "scan.amp"), {});
  auto r = e.run({{"init", Tensor::from(std::vector<float>{0, 100}, {2})},
                  {"x", Tensor::from(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3})}});
  EXPECT_EQ(r[0].to_vector<float>(), (std::vector<float>{6, 115}));
  EXPECT_EQ(r[1].shape(), (std::vector<int64_t>{2, 3}));
  // Steps visit columns 2, 1, 0 and write them back at 2, 1, 0 (both reversed).
  EXPECT_EQ(r[1].to_vector<float>(), (std::vector<float>{6, 5, 3, 115, 111, 106}));
}

// Scan-8 (opset 8): states [batch, ...] and scan inputs [batch, sequence, ...], one batch entry
// at a time. Every state and scan input is read at each entry, so their batches must agree:
// static ones are refused at load, symbolic ones at run (a smaller one was read past its end).
TEST_F(ControlFlowTest, Scan8BatchesMustAgree) {
  auto scan8 = [&](Shape state, Shape xs, const std::string& file) {
    GraphBuilder gb;
    gb.set_opset(8);
    auto init = gb.input("init", DType::kF32, std::move(state));
    auto x = gb.input("x", DType::kF32, std::move(xs));
    Attributes a;
    a.set("body", SubgraphAttr{share(running_sum_body(4))});
    a.set("num_scan_inputs", int64_t{1});
    auto outs = gb.node_multi(OpType::kScan, {graph::kNoValue, init, x}, 2, a);
    gb.rename(outs[0], "final");
    gb.rename(outs[1], "sums");
    gb.output(outs[0]);
    gb.output(outs[1]);
    return save(gb.build(), file);
  };
  // Symbolic batches: a run with agreeing ones works, one with batch 1 against 2 is an error.
  Engine e = Engine::load(scan8(Shape({Dim::symbolic("B1"), Dim(4)}),
                                Shape({Dim::symbolic("B2"), Dim(3), Dim(4)}), "scan8.amp"),
                          {});
  const std::vector<float> x(2 * 3 * 4, 1.0f);
  auto r = e.run({{"init", Tensor::from(std::vector<float>(8, 0.0f), {2, 4})},
                  {"x", Tensor::from(x, {2, 3, 4})}});
  EXPECT_EQ(r[0].to_vector<float>(), std::vector<float>(8, 3.0f));
  EXPECT_EQ(r[1].shape(), (std::vector<int64_t>{2, 3, 4}));
  try {
    e.run({{"init", Tensor::from(std::vector<float>(4, 0.0f), {1, 4})},
           {"x", Tensor::from(x, {2, 3, 4})}});
    ADD_FAILURE() << "expected an error for a state of batch 1 against scan inputs of batch 2";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("batch sizes"), std::string::npos) << err.what();
  }
  // Static batches that disagree: refused at load, naming both.
  try {
    Engine::load(scan8(Shape({1, 4}), Shape({2, 3, 4}), "scan8_static.amp"), {});
    ADD_FAILURE() << "expected a load error";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("batch sizes 1 and 2"), std::string::npos) << err.what();
  }
}

// A Loop inside an If's branch, its body reading a value of the outermost graph through both
// levels.
TEST_F(ControlFlowTest, BodiesNestAndCaptureThroughEveryLevel) {
  GraphBuilder loop_body;
  loop_body.input("i", DType::kI64, Shape());
  auto c = loop_body.input("cond_in", DType::kBool, Shape());
  auto acc = loop_body.input("acc", DType::kF32, Shape({2}));
  auto bx = loop_body.input("x", DType::kF32, Shape({2}));
  loop_body.output(loop_body.node(OpType::kIdentity, {c}));
  loop_body.output(loop_body.node(OpType::kAdd, {acc, bx}));
  GraphBuilder then_b;
  auto m = then_b.input("m", DType::kI64, Shape());
  auto tx = then_b.input("x", DType::kF32, Shape({2}));
  auto zero = then_b.constant("zero", TensorData::from_vector<float>(DType::kF32, {2}, {0, 0}));
  Attributes la;
  la.set("body", SubgraphAttr{share(loop_body.build())});
  la.set("captured_inputs", int64_t{1});
  then_b.output(then_b.node(OpType::kLoop, {m, graph::kNoValue, zero, tx}, la));
  GraphBuilder else_b;
  else_b.input("m", DType::kI64, Shape());
  auto ex = else_b.input("x", DType::kF32, Shape({2}));
  else_b.output(else_b.node(OpType::kNeg, {ex}));
  GraphBuilder gb;
  auto flag = gb.input("flag", DType::kBool, Shape());
  auto gm = gb.input("m", DType::kI64, Shape());
  auto x = gb.input("x", DType::kF32, Shape({2}));
  Attributes a;
  a.set("then_branch", SubgraphAttr{share(then_b.build())});
  a.set("else_branch", SubgraphAttr{share(else_b.build())});
  a.set("captured_inputs", int64_t{2});
  auto y = gb.node(OpType::kIf, {flag, gm, x}, a);
  gb.rename(y, "y");
  gb.output(y);
  Engine e = Engine::load(save(gb.build(), "nested.amp"), {});
  const uint8_t t = 1;
  auto r = e.run({{"flag", Tensor::from_bytes(DType::kBool, {}, &t, 1)},
                  {"m", Tensor::from(std::vector<int64_t>{4}, {})},
                  {"x", Tensor::from(std::vector<float>{1, 2}, {2})}});
  EXPECT_EQ(r[0].to_vector<float>(), (std::vector<float>{4, 8}));
}

TEST_F(ControlFlowTest, ABodyThatDoesNotMatchItsNodeIsAnInvalidModel) {
  graph::Graph g = if_model();
  // The else branch drops the capture it does not read: inference must name the mismatch.
  for (graph::Node& n : g.nodes) {
    if (n.op != OpType::kIf) continue;
    graph::Graph broken = *n.attrs.get_graph("else_branch").value();
    broken.inputs.pop_back();
    n.attrs.set("else_branch", SubgraphAttr{share(std::move(broken))});
  }
  const std::string path = (dir_ / "broken.amp").string();
  ASSERT_TRUE(graph::write_amp_file(g, path).is_ok());
  try {
    Engine::load(path, {});
    FAIL() << "loaded a broken If";
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), ErrorCode::kInvalidModel);
    EXPECT_NE(std::string(err.what()).find("else_branch: inputs 1, expected 2"), std::string::npos)
        << err.what();
  }
}

}  // namespace
}  // namespace amp
