// Products that stream constant weights (runtime/weight_streaming.h): which nodes qualify,
// and an fp16 request on a CPU that computes fp16 through fp32 (oneDNN 2.6 everywhere),
// which plans those products fp16 (kernels/cpu/half_gemv.h reads their weights in 16 bits)
// and the rest fp32, instead of all fp32.
#include "runtime/weight_streaming.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "amp/engine.h"
#include "graph/ir/graph_builder.h"
#include "graph/ops/shape_inference.h"
#include "kernels/cpu/cpu_kernels.h"
#include "tests/test_util/test_models.h"

namespace amp {
namespace {

using graph::Attributes;
using graph::Dim;
using graph::GraphBuilder;
using graph::OpType;
using graph::ValueId;

constexpr int64_t kWidth = 256, kHidden = 1024;  // 256 x 1024 f32: 1 MiB, the least streamed

// One token through a feed-forward block and a small head, shapes inferred:
//   x [rows..., 256] --MatMul(W1 [256, 1024]) "up"--> Relu "act" --MatMul(W2 [1024, 256])
//   "down"--> y;   x --MatMul(H [256, 64], 64 KiB) "head"--> z
// With `free_past`, also past [P, 64] (P symbolic) --Relu "past_relu"--> p: a dim no load
// can time at, as a decoder's cache length.
graph::Graph token_block(std::vector<Dim> rows, bool free_past = false) {
  GraphBuilder b;
  rows.push_back(Dim(kWidth));
  const ValueId x = b.input("x", DType::kF32, graph::Shape(rows));
  const ValueId up =
      b.node(OpType::kMatMul, {x, b.constant("W1", test::random_f32({kWidth, kHidden}, 0.06f, 1))},
             {}, "up");
  const ValueId act = b.node(OpType::kRelu, {up}, {}, "act");
  const ValueId y =
      b.node(OpType::kMatMul,
             {act, b.constant("W2", test::random_f32({kHidden, kWidth}, 0.03f, 2))}, {}, "down");
  const ValueId z = b.node(
      OpType::kMatMul, {x, b.constant("H", test::random_f32({kWidth, 64}, 0.06f, 3))}, {}, "head");
  b.rename(y, "y");
  b.rename(z, "z");
  b.output(y);
  b.output(z);
  if (free_past) {
    const ValueId past = b.input("past", DType::kF32, graph::Shape({Dim::symbolic("P"), Dim(64)}));
    const ValueId p = b.node(OpType::kRelu, {past}, {}, "past_relu");
    b.rename(p, "p");
    b.output(p);
  }
  graph::Graph g = b.build();
  EXPECT_TRUE(graph::infer_shapes(g).is_ok());
  return g;
}

TEST(WeightStreaming, ProductsOfAFewStaticRowsWithLargeConstantWeightsQualify) {
  EXPECT_EQ(runtime::weight_streaming_products(token_block({Dim(1), Dim(1)}), 4),
            (std::vector<std::string>{"up", "down"}));  // not the 64 KiB head
  EXPECT_EQ(runtime::weight_streaming_products(token_block({Dim(4)}), 4),
            (std::vector<std::string>{"up", "down"}));
  EXPECT_TRUE(runtime::weight_streaming_products(token_block({Dim(5)}), 4).empty());
  EXPECT_TRUE(runtime::weight_streaming_products(token_block({Dim::symbolic("N")}), 4).empty());
  EXPECT_TRUE(runtime::weight_streaming_products(token_block({Dim(1)}), 0).empty());

  // Gemm: a Linear (transposed B, a bias row) qualifies; transposed A, alpha != 1, a C with
  // rows and a variable B do not.
  GraphBuilder b;
  const ValueId x = b.input("x", DType::kF32, graph::Shape({Dim(2), Dim(kWidth)}));
  const ValueId xt = b.input("xt", DType::kF32, graph::Shape({Dim(kWidth), Dim(2)}));
  const ValueId w = b.input("w", DType::kF32, graph::Shape({Dim(kWidth), Dim(kHidden)}));
  const ValueId wt = b.constant("Wt", test::random_f32({kHidden, kWidth}, 0.1f, 4));
  const ValueId bias = b.constant("bias", test::random_f32({kHidden}, 0.1f, 5));
  const ValueId c_rows = b.constant("c_rows", test::random_f32({2, kHidden}, 0.1f, 6));
  Attributes tb, ta_tb, tb_alpha;
  tb.set("transB", int64_t{1});
  ta_tb = tb;
  ta_tb.set("transA", int64_t{1});
  tb_alpha = tb;
  tb_alpha.set("alpha", 0.5f);
  for (auto [name, node] : std::vector<std::pair<const char*, ValueId>>{
           {"linear", b.node(OpType::kGemm, {x, wt, bias}, tb, "linear")},
           {"trans_a", b.node(OpType::kGemm, {xt, wt, bias}, ta_tb, "trans_a")},
           {"alpha", b.node(OpType::kGemm, {x, wt, bias}, tb_alpha, "alpha")},
           {"c_rows", b.node(OpType::kGemm, {x, wt, c_rows}, tb, "c_rows")},
           {"variable", b.node(OpType::kMatMul, {x, w}, {}, "variable")}}) {
    b.rename(node, std::string(name) + "_out");
    b.output(node);
  }
  EXPECT_EQ(runtime::weight_streaming_products(b.build(), 4), (std::vector<std::string>{"linear"}));
}

std::vector<float> ramp(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = std::sin(0.7f * static_cast<float>(i));
  return v;
}

TEST(WeightStreaming, AnFp16TokenOnACpuWithoutFp16RunsItsLargeProductsFp16AndTheRestFp32) {
  Options fp16;
  fp16.precision = Precision::kFp16;
  const graph::Graph g = token_block({Dim(1), Dim(1)});
  const Engine e = test::load_on_cpu(g, fp16);
  const std::string slower = kernels::cpu_low_precision_slower(DType::kF16);
  if (slower.empty()) GTEST_SKIP() << "this CPU computes fp16 itself: the whole plan is fp16";
  if (kernels::cpu_low_precision_weight_rows(DType::kF16) == 0) {
    // No F16C: nothing reads 16-bit weights faster, so everything stays fp32.
    EXPECT_EQ(e.precision(), Precision::kFp32);
    GTEST_SKIP() << "this CPU has no AVX2 + FMA + F16C: the products stay fp32";
  }
  ASSERT_EQ(e.precision(), Precision::kFp16) << e.precision_note();
  EXPECT_NE(e.precision_note().find("only the 2 products that stream constant weights"),
            std::string::npos)
      << e.precision_note();
  // The Relu is fused into "up" at load.
  std::map<std::string, std::string> dtype_of;
  const nlohmann::json report = nlohmann::json::parse(e.precision_report_json());
  for (const auto& n : report["plan"])
    dtype_of[n["node"].get<std::string>()] = n["dtype"].get<std::string>();
  EXPECT_EQ(dtype_of,
            (std::map<std::string, std::string>{{"up", "f16"}, {"down", "f16"}, {"head", "f32"}}));

  ExecutionContext ctx = e.create_context();
  ctx.set_profiling(true);
  const Tensor x = Tensor::from(ramp(kWidth), {1, 1, kWidth});
  const std::vector<Tensor> got = ctx.run({{"x", x}});
  int streamed = 0;
  for (const NodeProfile& n : ctx.last_run_profile().nodes) {
    if (n.name != "up" && n.name != "down") continue;
    ++streamed;
    EXPECT_EQ(n.implementation.rfind("own GEMV over f16 weights", 0), 0u)
        << n.name << ": " << n.implementation;
  }
  EXPECT_EQ(streamed, 2);
  // Against fp32: the weights rounded to fp16, the activations fp16 at the products' edges.
  const std::vector<Tensor> want = test::load_on_cpu(g, Options{}).run({{"x", x}});
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < want.size(); ++k) {
    const std::vector<float> a = got[k].to_vector<float>(), b = want[k].to_vector<float>();
    ASSERT_EQ(a.size(), b.size());
    float scale = 0;
    for (float v : b) scale = std::max(scale, std::fabs(v));
    for (size_t i = 0; i < a.size(); ++i)
      EXPECT_NEAR(a[i], b[i], 4e-3f * scale) << "output " << k << " element " << i;
  }
}

// bf16 on a CPU that would time a bf16 plan (precision_timing_test.cc), but not timed here
// (timing off, or a dim left free as a decoder's past): where the backend's guess is fp32 (a
// CPU with AVX512-BF16 but no AMX) the products that stream constant weights still run bf16
// and the rest fp32, not the whole model fp32; with AMX the whole plan is bf16.
TEST(WeightStreaming, AnUntimedBf16TokenRunsItsLargeProductsBf16WhereTheGuessIsFp32) {
  if (!kernels::cpu_low_precision_slower(DType::kBF16).empty())
    GTEST_SKIP() << "this CPU has no bf16 arithmetic: the static rule decides, as for fp16";
  const std::string guess = kernels::cpu_untimed_low_precision_slower(DType::kBF16);
  Options off;
  off.precision = Precision::kBf16;
  off.precision_timing = PrecisionTimingMode::kOff;
  Options auto_timing;
  auto_timing.precision = Precision::kBf16;
  for (bool free_past : {false, true}) {
    SCOPED_TRACE(free_past ? "a free dim" : "timing off");
    const Engine e =
        test::load_on_cpu(token_block({Dim(1), Dim(1)}, free_past), free_past ? auto_timing : off);
    ASSERT_EQ(e.precision(), Precision::kBf16) << e.precision_note();
    std::map<std::string, std::string> dtype_of;
    const nlohmann::json report = nlohmann::json::parse(e.precision_report_json());
    for (const auto& n : report["plan"])
      dtype_of[n["node"].get<std::string>()] = n["dtype"].get<std::string>();
    if (guess.empty()) {  // AMX: the untimed guess is the whole bf16 plan
      EXPECT_EQ(dtype_of["head"], "bf16") << e.precision_note();
      continue;
    }
    EXPECT_NE(e.precision_note().find("only the 2 products that stream constant weights"),
              std::string::npos)
        << e.precision_note();
    EXPECT_EQ(dtype_of["up"], "bf16");
    EXPECT_EQ(dtype_of["down"], "bf16");
    EXPECT_EQ(dtype_of["head"], "f32");
  }
}

// Rows the load cannot see (a symbolic batch) might be a prompt's: fp32, as before, unless
// Options::input_shapes binds them to a token's.
TEST(WeightStreaming, SymbolicRowsKeepTheWholePlanFp32OnSuchACpuUnlessBound) {
  if (kernels::cpu_low_precision_slower(DType::kF16).empty())
    GTEST_SKIP() << "this CPU computes fp16 itself: the whole plan is fp16";
  Options fp16;
  fp16.precision = Precision::kFp16;
  const graph::Graph g = token_block({Dim::symbolic("N")});
  const Engine e = test::load_on_cpu(g, fp16);
  EXPECT_EQ(e.precision(), Precision::kFp32);
  EXPECT_NE(e.precision_note().find("fp16 requested, fp32 used"), std::string::npos)
      << e.precision_note();
  if (kernels::cpu_low_precision_weight_rows(DType::kF16) == 0)
    GTEST_SKIP() << "this CPU has no AVX2 + FMA + F16C: bound rows stay fp32 too";
  fp16.input_shapes = {{"x", {1, kWidth}}};
  const Engine bound = test::load_on_cpu(g, fp16);
  EXPECT_EQ(bound.precision(), Precision::kFp16) << bound.precision_note();
}

}  // namespace
}  // namespace amp
