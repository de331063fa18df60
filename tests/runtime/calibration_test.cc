// Calibrated AMP (runtime/calibration.h): a model whose fp16 plan overflows on its real
// inputs is fixed by the overflow guard (fp16: the hot nodes stay fp32) and by auto (they
// run bf16); calibration never changes fp32; bad calibration data is a clear error. On the
// CPU with emulate_low_precision, so the fp16 / bf16 plans run here.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "amp/engine.h"
#include "amp/tensor_io.h"
#include "graph/ir/graph_builder.h"
#include "graph/ops/shape_inference.h"
#include "runtime/calibration.h"
#include "tests/test_util/engine_cases.h"
#include "tests/test_util/scratch_dir.h"
#include "tests/test_util/test_models.h"

namespace amp {
namespace {

namespace fs = std::filesystem;

class Calibration : public ::testing::Test {
 protected:
  void SetUp() override { model_ = test::write_hot_matmul_model(dir_); }

  // x [8, 64] in [0.5, 1.5]: the inputs the model sees in use.
  static Tensor sample(unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.5f, 1.5f);
    std::vector<float> v(8 * 64);
    for (float& x : v) x = u(rng);
    return Tensor::from(v, {8, 64});
  }

  static Options low(Precision p) {
    Options opt;
    opt.backend = BackendKind::kCpu;
    opt.precision = p;
    opt.emulate_low_precision = true;
    return opt;
  }

  static Tensor run(const std::string& model, const Options& opt, const Tensor& x) {
    return Engine::load(model, opt).run({{"x", x}})[0];
  }

  // node -> dtype in the engine's precision report.
  static std::map<std::string, std::string> dtypes(const Engine& e) {
    std::map<std::string, std::string> out;
    const nlohmann::json report = nlohmann::json::parse(e.precision_report_json());
    for (const auto& n : report["plan"])
      out[n["node"].get<std::string>()] = n["dtype"].get<std::string>();
    return out;
  }

  test::ScratchDir scratch_{"amp_calibration"};
  const fs::path dir_ = scratch_.path();
  std::string model_;
};

bool all_finite(const Tensor& t) {
  for (float x : t.to_float_vector())
    if (!std::isfinite(x)) return false;
  return true;
}

TEST_F(Calibration, OverflowGuardKeepsTheHotNodesFp32) {
  const Tensor x = sample(1);
  const Tensor ref = run(model_, low(Precision::kFp32), x);
  ASSERT_TRUE(all_finite(ref));
  // Plain fp16: the first product overflows, Inf/NaN come out.
  EXPECT_FALSE(all_finite(run(model_, low(Precision::kFp16), x)));

  Options opt = low(Precision::kFp16);
  opt.calibration = {{{"x", sample(2)}}, {{"x", sample(3)}}};
  const Engine e = Engine::load(model_, opt);
  const Tensor got = e.run({{"x", x}})[0];
  ASSERT_TRUE(all_finite(got));
  EXPECT_GE(test::cosine(ref, got), 0.9999);
  const auto d = dtypes(e);
  EXPECT_EQ(d.at("hot_matmul"), "f32");
  EXPECT_EQ(d.at("scale"), "f32");  // reads the hot value: casting it to fp16 overflows too
  EXPECT_EQ(d.at("out_matmul"), "f16");
  const std::string report = e.precision_report_json();
  EXPECT_NE(report.find("calibration: observed |x|"), std::string::npos) << report;
  EXPECT_NE(e.precision_note().find("2 sample(s)"), std::string::npos) << e.precision_note();
}

TEST_F(Calibration, AutoRunsTheHotNodesBf16) {
  const Tensor x = sample(1);
  const Tensor ref = run(model_, low(Precision::kFp32), x);
  Options opt = low(Precision::kAuto);
  opt.calibration = {{{"x", sample(2)}}};
  const Engine e = Engine::load(model_, opt);
  const Tensor got = e.run({{"x", x}})[0];
  ASSERT_TRUE(all_finite(got));
  EXPECT_GE(test::cosine(ref, got), 0.999);
  const auto d = dtypes(e);
  EXPECT_EQ(d.at("hot_matmul"), "bf16");
  EXPECT_EQ(d.at("scale"), "bf16");
  EXPECT_EQ(d.at("out_matmul"), "f16");
  // The DOT shows the three precisions in three colors.
  const std::string dot = e.precision_report_dot();
  EXPECT_NE(dot.find("lightskyblue"), std::string::npos);
  EXPECT_NE(dot.find("palegreen"), std::string::npos);

  // Without calibration data auto is the fp16 plan, and says so.
  const Engine plain = Engine::load(model_, low(Precision::kAuto));
  EXPECT_NE(plain.precision_note().find("without calibration"), std::string::npos);
  EXPECT_EQ(dtypes(plain).at("hot_matmul"), "f16");
}

TEST_F(Calibration, NeverChangesFp32AndReadsSampleDirectories) {
  const Tensor x = sample(1);
  Options opt = low(Precision::kFp32);
  const std::vector<float> ref = run(model_, opt, x).to_float_vector();
  opt.calibration = {{{"x", sample(2)}}};
  EXPECT_EQ(run(model_, opt, x).to_float_vector(), ref);

  // test_data_set_* folders of input_0.pb, as the ONNX test data lays them out.
  for (int s = 0; s < 2; ++s) {
    const fs::path set = dir_ / "calib" / ("test_data_set_" + std::to_string(s));
    fs::create_directories(set);
    save_tensor_pb((set / "input_0.pb").string(), sample(10 + s), "x");
  }
  Options fp16 = low(Precision::kFp16);
  fp16.calibration_dirs = {(dir_ / "calib").string()};
  const Engine e = Engine::load(model_, fp16);
  EXPECT_TRUE(all_finite(e.run({{"x", x}})[0]));
  EXPECT_NE(e.precision_note().find("2 sample(s)"), std::string::npos) << e.precision_note();
}

TEST_F(Calibration, BadCalibrationDataIsAClearError) {
  auto error_of = [&](const Options& opt) {
    try {
      Engine::load(model_, opt);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  Options opt = low(Precision::kFp16);
  opt.calibration = {{{"input", sample(2)}}};
  std::string msg = error_of(opt);
  EXPECT_NE(msg.find("calibration sample 0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("unknown input 'input'"), std::string::npos) << msg;

  opt.calibration = {{{"x", Tensor::from(std::vector<float>(4, 1.f), {2, 2})}}};
  msg = error_of(opt);
  EXPECT_NE(msg.find("calibration sample 0"), std::string::npos) << msg;

  std::vector<float> nan(8 * 64, 1.f);
  nan[5] = NAN;
  opt.calibration = {{{"x", Tensor::from(nan, {8, 64})}}};
  msg = error_of(opt);
  EXPECT_NE(msg.find("Inf/NaN at element 5"), std::string::npos) << msg;

  opt.calibration.clear();
  opt.calibration_dirs = {(dir_ / "missing").string()};
  msg = error_of(opt);
  EXPECT_NE(msg.find("is not a directory"), std::string::npos) << msg;
  fs::create_directories(dir_ / "empty");
  opt.calibration_dirs = {(dir_ / "empty").string()};
  msg = error_of(opt);
  EXPECT_NE(msg.find("neither input_0.pb"), std::string::npos) << msg;
}

// The guard's rule on its own (runtime::range_hints): an Attention is not made hot by its
// additive mask's -3.4e38, only by its other inputs or its output.
TEST(CalibrationGuard, AttentionMaskOfMinusFltMaxIsNotHot) {
  graph::GraphBuilder b;
  const graph::Shape s4({1, 2, 4, 8});
  auto q = b.input("q", DType::kF32, s4), k = b.input("k", DType::kF32, s4),
       v = b.input("v", DType::kF32, s4);
  auto mask = b.input("mask", DType::kF32, graph::Shape({1, 1, 1, 4}));
  b.output(b.node(graph::OpType::kAttention, {q, k, v, mask}, {}, "attn"));
  const graph::Graph g = b.build();
  runtime::ValueRanges r;
  r["q"].max_abs = r["k"].max_abs = r["v"].max_abs = 3.0;
  r["mask"].max_abs = 3.4028234663852886e38;
  r["attn"].max_abs = 2.0;
  EXPECT_TRUE(runtime::range_hints(g, r, runtime::RangeTarget::kFp16).empty());
  r["q"].max_abs = 1e5;  // a real overflow on another input still counts
  const auto hints = runtime::range_hints(g, r, runtime::RangeTarget::kAuto);
  ASSERT_EQ(hints.count("attn"), 1u);
  EXPECT_EQ(hints.at("attn").dtype, DType::kBF16);
}

// Samples of one shape run stacked along the batch dim (one run for the accuracy search's
// every plan); each still gets exactly its own outputs. A graph whose output's dim 0 is not
// the batch (a Transpose) runs them one by one instead.
TEST(CalibrationRunner, StackedSamplesGiveEachItsOwnOutputs) {
  for (bool transposed : {false, true}) {
    SCOPED_TRACE(transposed ? "output dim 0 is not the batch" : "batch-leading output");
    graph::GraphBuilder b;
    const graph::ValueId x = b.input(
        "x", DType::kF32, graph::Shape({graph::Dim::symbolic("N"), graph::Dim::symbolic("M")}));
    graph::ValueId y = b.node(graph::OpType::kTanh, {x});
    if (transposed) {
      graph::Attributes a;
      a.set("perm", std::vector<int64_t>{1, 0});
      y = b.node(graph::OpType::kTranspose, {y}, a);
    }
    b.output(y);
    graph::Graph g = b.build();
    ASSERT_TRUE(graph::infer_shapes(g).is_ok());
    std::vector<Tensor> xs;
    for (int k = 0; k < 3; ++k)
      xs.push_back(
          Tensor::from(std::vector<float>{0.1f * k, -0.2f, 0.3f, 0.4f * k, 0.5f, -0.6f}, {2, 3}));
    auto runner = runtime::CpuGraphRunner::create(1);
    ASSERT_TRUE(runner.is_ok());
    std::vector<runtime::CalibrationSample> all;
    for (const Tensor& t : xs) all.push_back({&t});
    auto together = (*runner)->run_samples(g, all);
    ASSERT_TRUE(together.is_ok()) << together.status().to_string();
    ASSERT_EQ(together->size(), 3u);
    for (size_t k = 0; k < xs.size(); ++k) {
      auto alone = (*runner)->run_samples(g, {all[k]});
      ASSERT_TRUE(alone.is_ok());
      EXPECT_EQ((*together)[k][0].shape(), (*alone)[0][0].shape());
      EXPECT_EQ((*together)[k][0].to_float_vector(), (*alone)[0][0].to_float_vector());
    }
  }
}

}  // namespace
}  // namespace amp
