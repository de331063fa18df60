// The AMP planner, tested XNNPACK-style: build the graph before, run the planner, check
// the graph after node by node. f16 target unless stated.
#include "graph/passes/amp/amp_planner.h"

#include <gtest/gtest.h>

#include <limits>

#include "graph/ir/graph_builder.h"
#include "graph/ir/verifier.h"
#include "graph/ops/shape_inference.h"
#include "graph/passes/amp/amp_policy.h"
#include "graph/passes/amp/cast_cleanup.h"
#include "graph/passes/amp/precision_report.h"
#include "runtime/common/half.h"

namespace amp::graph {
namespace {

TensorData weights(std::vector<int64_t> dims, float value = 0.5f) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = value * (1.0f + 0.01f * static_cast<float>(i % 7));
  return TensorData::from_vector(DType::kF32, std::move(dims), v);
}

Graph finish(GraphBuilder& b) {
  Graph g = b.build();
  Status s = infer_shapes(g);
  EXPECT_TRUE(s.is_ok()) << s.to_string();
  return g;
}

// "op:dtype" for every node in order, e.g. {"Cast:f16", "MatMul:f16", ...}.
std::vector<std::string> plan_of(const Graph& g) {
  std::vector<std::string> out;
  for (const Node& n : g.nodes) {
    DType dt = DType::kUndefined;
    for (ValueId v : n.outputs)
      if (v != kNoValue) dt = g.value(v).dtype;
    out.push_back(std::string(op_name(n.op)) + ":" + std::string(dtype_name(dt)));
  }
  return out;
}

AmpReport plan(Graph& g, AmpPolicy policy = {}, KernelAvailability k = nullptr) {
  auto r = plan_mixed_precision(g, policy, k);
  EXPECT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_TRUE(verify_graph(g).is_ok());
  EXPECT_TRUE(infer_shapes(g).is_ok());
  return r.is_ok() ? *r : AmpReport{};
}

// The RFC's example: A (ALWAYS) - B (FOLLOW) - C (ALWAYS).
//   x --MatMul(W1)--> a --Relu--> b --MatMul(W2)--> y
// after:
//   x --Cast f16--> MatMul(W1.f16) --> Relu f16 --> MatMul(W2.f16) --Cast f32--> y
TEST(AmpPlanner, AlwaysFollowAlwaysStaysLowWithTwoCasts) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, {2, 8});
  ValueId a = b.node(OpType::kMatMul, {x, b.constant("W1", weights({8, 8}))});
  ValueId r = b.node(OpType::kRelu, {a});
  ValueId y = b.node(OpType::kMatMul, {r, b.constant("W2", weights({8, 4}))});
  b.rename(y, "y");
  b.output(y);
  Graph g = finish(b);
  AmpReport rep = plan(g);
  EXPECT_EQ(plan_of(g), (std::vector<std::string>{"Cast:f16", "MatMul:f16", "Relu:f16",
                                                  "MatMul:f16", "Cast:f32"}));
  EXPECT_EQ(rep.casts, 2);
  EXPECT_EQ(rep.nodes_low, 3);
  EXPECT_DOUBLE_EQ(rep.low_flops_fraction(), 1.0);
  EXPECT_EQ(rep.cast_bytes_per_run, 2 * 8 * 2 + 2 * 4 * 4);
  // Weights used only in f16 are stored only in f16: half the bytes.
  EXPECT_EQ(rep.weights_bytes_before, (64 + 32) * 4);
  EXPECT_EQ(rep.weights_bytes_after, (64 + 32) * 2);
  // The output keeps its name and dtype.
  EXPECT_EQ(g.value(g.outputs[0]).name, "y");
  EXPECT_EQ(g.value(g.outputs[0]).dtype, DType::kF32);
}

// Calibration hints (AmpPolicy::node_hints): a node's own low type, or fp32.
//   x --MatMul(W1) "mm1"--> a --Relu "relu"--> b --MatMul(W2) "mm2"--> y
Graph hinted_chain() {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, {2, 8});
  ValueId a = b.node(OpType::kMatMul, {x, b.constant("W1", weights({8, 8}))}, {}, "mm1");
  ValueId r = b.node(OpType::kRelu, {a}, {}, "relu");
  ValueId y = b.node(OpType::kMatMul, {r, b.constant("W2", weights({8, 4}))}, {}, "mm2");
  b.rename(y, "y");
  b.output(y);
  return finish(b);
}

TEST(AmpPlanner, HintsMixBf16AndFp16WithACastBetween) {
  Graph g = hinted_chain();
  AmpPolicy p;
  p.node_hints["mm1"] = {DType::kBF16, "calibration: observed 1.0e5"};
  p.node_hints["relu"] = {DType::kBF16, "calibration: observed 1.0e5"};
  AmpReport rep = plan(g, p);
  EXPECT_EQ(plan_of(g), (std::vector<std::string>{"Cast:bf16", "MatMul:bf16", "Relu:bf16",
                                                  "Cast:f16", "MatMul:f16", "Cast:f32"}));
  EXPECT_EQ(rep.nodes_low, 3);
  ASSERT_EQ(rep.nodes.size(), 3u);
  EXPECT_EQ(rep.nodes[0].dtype, DType::kBF16);
  EXPECT_NE(rep.nodes[0].reason.find("calibration: observed 1.0e5"), std::string::npos);
  // W1 is stored in bf16 only.
  for (const Value& v : g.values) {
    if (v.is_constant() && v.name.rfind("W1", 0) == 0) {
      EXPECT_EQ(v.dtype, DType::kBF16);
    }
  }
  const std::string dot = precision_report_dot(g, rep);
  EXPECT_NE(dot.find("lightskyblue"), std::string::npos);  // bf16
  EXPECT_NE(dot.find("palegreen"), std::string::npos);     // f16
}

TEST(AmpPlanner, Fp32HintKeepsTheNodeAndItsFollowersFp32ButAUserPinWins) {
  Graph g = hinted_chain();
  AmpPolicy p;
  p.node_hints["mm1"] = {DType::kF32, "calibration: observed 2.0e5 > 65504 / 4"};
  AmpReport rep = plan(g, p);
  EXPECT_EQ(plan_of(g), (std::vector<std::string>{"MatMul:f32", "Relu:f32", "Cast:f16",
                                                  "MatMul:f16", "Cast:f32"}));
  EXPECT_EQ(rep.nodes[0].color, "NEVER");
  EXPECT_EQ(rep.nodes[0].reason, "calibration: observed 2.0e5 > 65504 / 4");

  Graph pinned = hinted_chain();
  p.node_overrides.push_back({"mm1", AmpColor::kAlways});
  plan(pinned, p);
  EXPECT_EQ(plan_of(pinned)[1], "MatMul:f16");
}

// One low value feeding three NEVER consumers is cast to f32 once.
//   x -> MatMul -> m -+-> Exp
//                     +-> Log
//                     +-> Softmax
TEST(AmpPlanner, FanOutIsCastOncePerDtype) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, {2, 8});
  ValueId m = b.node(OpType::kMatMul, {x, b.constant("W", weights({8, 8}))});
  for (OpType op : {OpType::kExp, OpType::kLog, OpType::kSoftmax}) b.output(b.node(op, {m}));
  Graph g = finish(b);
  AmpReport rep = plan(g);
  EXPECT_EQ(plan_of(g), (std::vector<std::string>{"Cast:f16", "MatMul:f16", "Cast:f32", "Exp:f32",
                                                  "Log:f32", "Softmax:f32"}));
  EXPECT_EQ(rep.casts, 2);
}

// A NEVER island between two ALWAYS ops: down to f32 and back up, nothing removed
// (f32 -> f16 after the Softmax is a real rounding, not a round trip).
TEST(AmpPlanner, NeverIslandKeepsBothCasts) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, {2, 8});
  ValueId m = b.node(OpType::kMatMul, {x, b.constant("W1", weights({8, 8}))});
  ValueId s = b.node(OpType::kSoftmax, {m});
  ValueId y = b.node(OpType::kMatMul, {s, b.constant("W2", weights({8, 8}))});
  b.output(y);
  Graph g = finish(b);
  plan(g);
  EXPECT_EQ(plan_of(g),
            (std::vector<std::string>{"Cast:f16", "MatMul:f16", "Cast:f32", "Softmax:f32",
                                      "Cast:f16", "MatMul:f16", "Cast:f32"}));
}

// Concat of a low input and an fp32 input promotes to fp32.
TEST(AmpPlanner, ConcatOfMixedInputsPromotes) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, {2, 8});
  ValueId low = b.node(OpType::kMatMul, {x, b.constant("W", weights({8, 8}))});
  ValueId high = b.node(OpType::kExp, {x});
  Attributes axis;
  axis.set("axis", int64_t{1});
  b.output(b.node(OpType::kConcat, {low, high}, axis));
  Graph g = finish(b);
  plan(g);
  const Node& concat = g.nodes.back();
  ASSERT_EQ(concat.op, OpType::kConcat);
  EXPECT_EQ(g.value(concat.outputs[0]).dtype, DType::kF32);
  EXPECT_EQ(g.value(concat.inputs[0]).dtype, DType::kF32);
}

TEST(AmpPlanner, KeepIoTypesFalseReturnsLowOutputs) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, {2, 8});
  ValueId y = b.node(OpType::kMatMul, {x, b.constant("W", weights({8, 4}))});
  b.rename(y, "y");
  b.output(y);
  Graph g = finish(b);
  AmpPolicy p;
  p.keep_io_types = false;
  plan(g, p);
  EXPECT_EQ(plan_of(g), (std::vector<std::string>{"Cast:f16", "MatMul:f16"}));
  EXPECT_EQ(g.value(g.outputs[0]).dtype, DType::kF16);
  EXPECT_EQ(g.value(g.outputs[0]).name, "y");
  EXPECT_EQ(g.value(g.inputs[0]).dtype, DType::kF32);  // inputs keep their type
}

// A weight used by a low MatMul and by an fp32 Add is kept in both types.
TEST(AmpPlanner, SharedWeightIsKeptInBothTypes) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, {8, 8});
  ValueId w = b.constant("W", weights({8, 8}));
  ValueId m = b.node(OpType::kMatMul, {x, w});
  ValueId e = b.node(OpType::kExp, {x});
  ValueId a = b.node(OpType::kAdd, {e, w});  // FOLLOW with an fp32 input -> fp32
  b.output(m);
  b.output(a);
  Graph g = finish(b);
  AmpReport rep = plan(g);
  int f32_copies = 0, f16_copies = 0;
  for (const Value& v : g.values) {
    if (!v.is_constant()) continue;
    if (v.dtype == DType::kF32) ++f32_copies;
    if (v.dtype == DType::kF16) ++f16_copies;
  }
  EXPECT_EQ(f32_copies, 1);
  EXPECT_EQ(f16_copies, 1);
  EXPECT_EQ(rep.weights_bytes_after, 64 * 4 + 64 * 2);
}

// FOLLOW with a constant that does not fit fp16 stays fp32; a weight that overflows is
// reported, and clamped only on request.
TEST(AmpPlanner, OutOfRangeConstants) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, {2, 8});
  ValueId m = b.node(OpType::kMatMul, {x, b.constant("W", weights({8, 8}, 1e5f))});
  ValueId big = b.constant("big", TensorData::scalar_f32(1e6f));
  ValueId a = b.node(OpType::kAdd, {m, big});
  b.output(a);
  Graph g = finish(b);
  Graph g2 = g;
  AmpReport rep = plan(g);
  EXPECT_EQ(plan_of(g),
            (std::vector<std::string>{"Cast:f16", "MatMul:f16", "Cast:f32", "Add:f32"}));
  EXPECT_EQ(rep.weight_values_overflowed, 64);
  EXPECT_FALSE(rep.weights_clamped);

  AmpPolicy clamp;
  clamp.clamp_weights = true;
  AmpReport rep2 = plan(g2, clamp);
  EXPECT_TRUE(rep2.weights_clamped);
  for (const Value& v : g2.values) {
    if (!v.is_constant() || v.dtype != DType::kF16) continue;
    for (double d : v.constant->to_f64_vector()) EXPECT_EQ(d, 65504.0);
  }
}

// Weights are converted in bulk (vectorized); every special value must come out as the
// element-by-element conversion (float_to_half_bits / float_to_bf16_bits) gives it.
TEST(AmpPlanner, BulkWeightConversionRoundsAsTheScalarOne) {
  const std::vector<float> special = {0.0f,
                                      -0.0f,
                                      1.0f,
                                      -2.5f,
                                      65504.0f,
                                      65520.0f,
                                      1e-8f,
                                      6e-5f,
                                      3e-5f,
                                      1.0009765625f,
                                      1.00048828125f,
                                      std::numeric_limits<float>::infinity(),
                                      -std::numeric_limits<float>::infinity(),
                                      std::numeric_limits<float>::quiet_NaN(),
                                      3.4e38f,
                                      1.00390625f,
                                      1.001953125f,
                                      -1e-40f,
                                      7.0e4f,
                                      123.456f};
  std::vector<float> w(64);
  for (size_t i = 0; i < w.size(); ++i) w[i] = special[i % special.size()] * (i < 32 ? 1 : -1);
  for (DType low : {DType::kF16, DType::kBF16}) {
    GraphBuilder b;
    ValueId x = b.input("x", DType::kF32, {2, 8});
    b.output(b.node(OpType::kMatMul,
                    {x, b.constant("W", TensorData::from_vector<float>(DType::kF32, {8, 8}, w))}));
    Graph g = finish(b);
    AmpPolicy policy;
    policy.target = low;
    plan(g, policy);
    bool found = false;
    for (const Value& v : g.values) {
      if (!v.is_constant() || v.dtype != low) continue;
      found = true;
      const uint16_t* bits = v.constant->data<uint16_t>();
      for (size_t i = 0; i < w.size(); ++i)
        EXPECT_EQ(bits[i], low == DType::kF16 ? float_to_half_bits(w[i]) : float_to_bf16_bits(w[i]))
            << dtype_name(low) << " element " << i << " = " << w[i];
    }
    EXPECT_TRUE(found) << dtype_name(low);
  }
}

TEST(AmpPlanner, ClipWithHugeBoundsRunsFp32) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, {2, 8});
  ValueId m = b.node(OpType::kMatMul, {x, b.constant("W", weights({8, 8}))});
  ValueId c = b.node(OpType::kClip, {m, b.constant("lo", TensorData::scalar_f32(-1e9f)),
                                     b.constant("hi", TensorData::scalar_f32(1e9f))});
  b.output(c);
  Graph g = finish(b);
  AmpReport rep = plan(g);
  EXPECT_EQ(g.value(g.outputs[0]).dtype, DType::kF32);
  bool found = false;
  for (const auto& n : rep.nodes)
    if (n.op == "Clip") {
      found = true;
      EXPECT_EQ(n.color, "NEVER");
      EXPECT_NE(n.reason.find("range"), std::string::npos);
    }
  EXPECT_TRUE(found);
}

// A window over 65536 elements keeps AveragePool in fp32. The element count saturates: a
// kernel_shape whose product overflows int64 (symbolic spatial dims let shape inference
// accept it) is just "over 65536" (fuzz finding: signed overflow, UB).
TEST(AmpPlanner, AveragePoolWithAHugeWindowRunsFp32) {
  for (int64_t k : {int64_t{300}, int64_t{1} << 40}) {
    SCOPED_TRACE("kernel " + std::to_string(k));
    GraphBuilder b;
    ValueId x =
        b.input("x", DType::kF32, Shape({Dim(1), Dim(4), Dim::symbolic("H"), Dim::symbolic("W")}));
    Attributes a;
    a.set("kernel_shape", std::vector<int64_t>{k, k});
    ValueId p = b.node(OpType::kAveragePool, {x}, a, "pool");
    b.output(p);
    Graph g = finish(b);
    AmpReport rep = plan(g);
    bool found = false;
    for (const auto& n : rep.nodes)
      if (n.op == "AveragePool") {
        found = true;
        EXPECT_EQ(n.color, "NEVER");
        EXPECT_NE(n.reason.find("over 65536"), std::string::npos) << n.reason;
      }
    EXPECT_TRUE(found);
  }
}

// Overrides: JSON per op type and per node glob; a pin that cannot be obeyed is an error.
TEST(AmpPlanner, PolicyOverridesAndUnobeyablePins) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, {2, 8});
  ValueId m = b.node(OpType::kMatMul, {x, b.constant("W", weights({8, 8}))}, {}, "enc/mm");
  ValueId s = b.node(OpType::kSoftmax, {m}, {}, "enc/softmax");
  b.output(s);
  Graph g = finish(b);
  Graph g2 = g, g3 = g;

  AmpPolicy p;
  ASSERT_TRUE(parse_amp_policy_json(
                  R"({"op_types": {"Softmax": "ALWAYS"}, "nodes": {"enc/m*": "NEVER"}})", p)
                  .is_ok());
  plan(g, p);
  EXPECT_EQ(plan_of(g),
            (std::vector<std::string>{"MatMul:f32", "Cast:f16", "Softmax:f16", "Cast:f32"}));

  // No f16 Softmax kernel: the default (NEVER) is fine, but a pin to ALWAYS is an error.
  KernelAvailability no_low_softmax = [](const Node& n, DType) { return n.op != OpType::kSoftmax; };
  AmpPolicy pin;
  pin.op_overrides.push_back({OpType::kSoftmax, AmpColor::kAlways});
  auto r = plan_mixed_precision(g2, pin, no_low_softmax);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("enc/softmax"), std::string::npos) << r.status().message();

  // Without a pin, a missing low kernel is a reported fallback, not an error.
  KernelAvailability no_low_matmul = [](const Node& n, DType) { return n.op != OpType::kMatMul; };
  AmpReport rep = plan(g3, {}, no_low_matmul);
  ASSERT_EQ(rep.fallbacks.size(), 1u);
  EXPECT_EQ(rep.fallbacks[0].node, "enc/mm");
  EXPECT_NE(rep.fallbacks[0].reason.find("no f16 kernel"), std::string::npos);
}

TEST(AmpPlanner, PolicyJsonErrorsNameTheKey) {
  AmpPolicy p;
  EXPECT_NE(
      parse_amp_policy_json("{\"op_types\": {\"Conv2d\": \"NEVER\"}}", p).message().find("Conv2d"),
      std::string::npos);
  EXPECT_NE(
      parse_amp_policy_json("{\"nodes\": {\"a\": \"SOMETIMES\"}}", p).message().find("SOMETIMES"),
      std::string::npos);
  EXPECT_NE(parse_amp_policy_json("{\"colour\": 1}", p).message().find("colour"),
            std::string::npos);
  EXPECT_FALSE(parse_amp_policy_json("not json", p).is_ok());
  EXPECT_TRUE(glob_match("/encoder/*/LayerNorm*", "/encoder/layer.3/LayerNorm_1"));
  EXPECT_FALSE(glob_match("enc?", "encoder"));
}

// bf16 target: same structure, bf16 everywhere.
TEST(AmpPlanner, Bf16Target) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, {2, 8});
  ValueId m = b.node(OpType::kMatMul, {x, b.constant("W", weights({8, 8}, 1e5f))});
  b.output(b.node(OpType::kRelu, {m}));
  Graph g = finish(b);
  AmpPolicy p;
  p.target = DType::kBF16;
  AmpReport rep = plan(g, p);
  EXPECT_EQ(plan_of(g),
            (std::vector<std::string>{"Cast:bf16", "MatMul:bf16", "Relu:bf16", "Cast:f32"}));
  EXPECT_EQ(rep.weight_values_overflowed, 0);  // 1e5 fits bf16
}

// A model Cast(i64 -> f32) that only feeds low consumers is retargeted to f16 directly.
TEST(AmpPlanner, ModelCastToF32IsRetargeted) {
  GraphBuilder b;
  ValueId ids = b.input("ids", DType::kI64, {2, 8});
  Attributes to_f32;
  to_f32.set("to", int64_t{1});
  ValueId f = b.node(OpType::kCast, {ids}, to_f32);
  b.output(b.node(OpType::kMatMul, {f, b.constant("W", weights({8, 4}))}));
  Graph g = finish(b);
  AmpReport rep = plan(g);
  EXPECT_EQ(plan_of(g), (std::vector<std::string>{"Cast:f16", "MatMul:f16", "Cast:f32"}));
  EXPECT_EQ(rep.casts, 1);  // only the output cast was inserted and kept
}

// low -> f32 -> low collapses; f32 -> low -> f32 never does.
//   h (f16) --Cast f32--> t --Cast f16--> u --Relu--> out      => Relu reads h
//   x (f32) --Cast f16--> p --Cast f32--> q --Relu--> out2     => unchanged
TEST(CastCleanup, RemovesOnlyExactRoundTrips) {
  GraphBuilder b;
  ValueId h = b.input("h", DType::kF16, {4});
  Attributes to32, to16;
  to32.set("to", int64_t{1});
  to16.set("to", int64_t{10});
  ValueId t = b.node(OpType::kCast, {h}, to32);
  ValueId u = b.node(OpType::kCast, {t}, to16);
  b.output(b.node(OpType::kRelu, {u}));
  ValueId x = b.input("x", DType::kF32, {4});
  ValueId p = b.node(OpType::kCast, {x}, to16);
  ValueId q = b.node(OpType::kCast, {p}, to32);
  b.output(b.node(OpType::kRelu, {q}));
  Graph g = finish(b);
  auto stats = cleanup_casts(g, {});
  ASSERT_TRUE(stats.is_ok());
  EXPECT_EQ(stats->round_trips_removed, 1);
  EXPECT_EQ(g.nodes[2].inputs[0], h);  // first Relu reads h directly
  EXPECT_EQ(g.nodes[5].inputs[0], q);  // lossy pair kept
}

TEST(PrecisionReport, JsonAndDotDescribeThePlan) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, {2, 8});
  ValueId m = b.node(OpType::kMatMul, {x, b.constant("W", weights({8, 8}))});
  b.output(b.node(OpType::kSoftmax, {m}));
  Graph g = finish(b);
  AmpReport rep = plan(g);
  const std::string json = precision_report_json(rep);
  for (const char* key : {"\"nodes_low\": 1", "\"casts\": 2", "\"low_flops_fraction\": 1.0",
                          "\"weights_bytes_fp32\": 256", "\"weights_bytes\": 128", "\"plan\""})
    EXPECT_NE(json.find(key), std::string::npos) << key << " in " << json;
  const std::string dot = precision_report_dot(g, rep);
  EXPECT_NE(dot.find("palegreen"), std::string::npos);
  EXPECT_NE(dot.find("lightcoral"), std::string::npos);
}

}  // namespace
}  // namespace amp::graph
