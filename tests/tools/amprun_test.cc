// amprun end to end: the --json-report keeps the documented schema (other tools parse it),
// bad flags are usage errors, and --compare on an ONNX node-test folder gives the same
// verdict as the conformance test.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include <unistd.h>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "amp/tensor_io.h"
#include "graph/ir/graph_builder.h"
#include "graph/serialize/amp_writer.h"
#include "tests/test_util/graph_runner.h"
#include "tests/test_util/node_tests.h"
#include "tests/test_util/shared_data.h"
#include "tests/test_util/test_models.h"
#include "tests/tools/demo_models_fixture.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

int run(const std::string& args, const fs::path& log) {
  return amp::test::run_amprun(args, log);
}

using AmprunTest = amp::test::DemoModelsTest;

// Checks that `j[key]` exists and has the given JSON type.
void expect_key(const json& j, const std::string& key, json::value_t type) {
  ASSERT_TRUE(j.contains(key)) << "missing key '" << key << "' in " << j.dump();
  const json& v = j[key];
  if (type == json::value_t::number_float)
    EXPECT_TRUE(v.is_number()) << key;
  else
    EXPECT_EQ(v.type(), type) << key << " is " << v.type_name();
}

// --calib and --precision auto: the product that overflows fp16 on the calibration data runs
// bf16, the rest fp16; the report counts nodes by dtype and says what calibration decided.
TEST_F(AmprunTest, CalibratedAutoPrecision) {
  const std::string model = amp::test::write_hot_matmul_model(dir_);
  const fs::path set = dir_ / "calib" / "test_data_set_0";
  fs::create_directories(set);
  std::vector<float> x(8 * 64);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.5f + static_cast<float>(i % 11) / 10.0f;
  amp::save_tensor_pb((set / "input_0.pb").string(), amp::Tensor::from(x, {8, 64}), "x");
  const fs::path report = dir_ / "calib.json";
  const int rc =
      run("--model " + model + " --backend cpu --precision auto" +
              " --emulate-low-precision 1 --calib " + (dir_ / "calib").string() + " --inputs " +
              set.string() + " --compare-precision fp32 --warmup 0 --iterations 2 --json-report " +
              report.string(),
          dir_ / "log.txt");
  std::ifstream log_file(dir_ / "log.txt");
  const std::string log((std::istreambuf_iterator<char>(log_file)), {});
  ASSERT_EQ(rc, 0) << log;
  EXPECT_NE(log.find("calibration: hot_matmul (MatMul) bf16"), std::string::npos) << log;
  std::ifstream f(report);
  const json j = json::parse(f);
  EXPECT_EQ(j["precision"], "auto");
  EXPECT_EQ(j["precision_plan"]["nodes_by_dtype"]["bf16"], 2) << j.dump();
  EXPECT_EQ(j["precision_plan"]["nodes_by_dtype"]["f16"], 2) << j.dump();

  EXPECT_NE(run("--model " + model + " --backend cpu --precision fp16 --calib " +
                    (dir_ / "nowhere").string(),
                dir_ / "log.txt"),
            0);
  std::ifstream bad(dir_ / "log.txt");
  const std::string msg((std::istreambuf_iterator<char>(bad)), {});
  EXPECT_NE(msg.find("is not a directory"), std::string::npos) << msg;
}

// --accuracy with --calib searches for the fp32 pins; --save-policy writes them and
// --policy reloads them without calibration data, to the same plan.
TEST_F(AmprunTest, AccuracyTargetAndSavedPolicy) {
  const std::string model = amp::test::write_cancelling_model(dir_);
  const fs::path set = dir_ / "calib_cancel" / "test_data_set_0";
  fs::create_directories(set);
  std::vector<float> x(4 * 32);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 37) % 101) / 100.0f;
  amp::save_tensor_pb((set / "input_0.pb").string(), amp::Tensor::from(x, {4, 32}), "x");
  const fs::path policy = dir_ / "saved_policy.json";
  const std::string common = "--model " + model + " --backend cpu --precision fp16" +
                             " --emulate-low-precision 1 --inputs " + set.string() +
                             " --compare-precision fp32 --warmup 0 --iterations 1";
  ASSERT_EQ(run(common + " --calib " + set.parent_path().string() +
                    " --accuracy cosine=0.999 --save-policy " + policy.string(),
                dir_ / "log.txt"),
            0)
      << std::ifstream(dir_ / "log.txt").rdbuf();
  std::ifstream log_file(dir_ / "log.txt");
  const std::string log((std::istreambuf_iterator<char>(log_file)), {});
  EXPECT_NE(log.find("accuracy search: 2 node(s) pinned fp32"), std::string::npos) << log;
  std::ifstream pf(policy);
  const json saved = json::parse(pf);
  EXPECT_EQ(saved["node_dtypes"].size(), 2u) << saved.dump();
  // Reloaded without --calib: the same plan, and the target still met.
  ASSERT_EQ(run(common + " --policy " + policy.string(), dir_ / "log2.txt"), 0)
      << std::ifstream(dir_ / "log2.txt").rdbuf();
  EXPECT_NE(run("--model " + model + " --accuracy cosine=2", dir_ / "log3.txt"), 0);
}

TEST_F(AmprunTest, JsonReportFollowsTheSchema) {
  const fs::path report = dir_ / "report.json";
  const int rc = run("--model " + (dir_ / "demo_transformer.amp").string() +
                         " --precision fp16 --emulate-low-precision 1 --compare-precision fp32"
                         " --warmup 1 --iterations 5"
                         " --shape tokens=2x16 --json-report " +
                         report.string(),
                     dir_ / "log.txt");
  ASSERT_EQ(rc, 0) << std::ifstream(dir_ / "log.txt").rdbuf();
  std::ifstream f(report);
  const json j = json::parse(f);
  using T = json::value_t;
  for (const char* k : {"model", "backend", "precision", "device"}) expect_key(j, k, T::string);
  EXPECT_EQ(j["precision"], "fp16");
  EXPECT_EQ(j["precision_note"], "");
  EXPECT_EQ(j["backend"], "cpu");
  expect_key(j, "load_ms", T::object);
  for (const char* k : {"total", "verify", "passes", "amp", "memory", "upload"})
    expect_key(j["load_ms"], k, T::number_float);
  expect_key(j, "latency_ms", T::object);
  for (const char* k : {"min", "max", "mean", "median", "p90", "p95", "p99"})
    expect_key(j["latency_ms"], k, T::number_float);
  expect_key(j, "throughput_qps", T::number_float);
  expect_key(j, "iterations", T::number_unsigned);
  EXPECT_EQ(j["iterations"], 5);
  expect_key(j, "precision_plan", T::object);
  for (const char* k : {"nodes", "nodes_low", "casts", "cast_bytes_per_run", "low_flops_fraction",
                        "weights_bytes_fp32", "weights_bytes"})
    expect_key(j["precision_plan"], k, T::number_float);
  expect_key(j["precision_plan"], "fallbacks", T::array);
  EXPECT_GT(j["precision_plan"]["nodes_low"].get<int>(), 0);
  EXPECT_LT(j["precision_plan"]["weights_bytes"].get<int64_t>(),
            j["precision_plan"]["weights_bytes_fp32"].get<int64_t>());
  expect_key(j, "memory", T::object);
  for (const char* k : {"arena_bytes", "lower_bound_bytes", "io_outside_arena_bytes",
                        "weights_bytes", "packed_weights_bytes", "model_file_released_bytes",
                        "workspace_bytes", "process_resident_bytes", "process_peak_resident_bytes"})
    expect_key(j["memory"], k, T::number_float);
  expect_key(j, "accuracy", T::array);
  ASSERT_EQ(j["accuracy"].size(), 1u);
  for (const char* k : {"max_abs_err", "max_rel_err", "cosine"})
    expect_key(j["accuracy"][0], k, T::number_float);
  expect_key(j["accuracy"][0], "output", T::string);
  expect_key(j["accuracy"][0], "pass", T::boolean);
  expect_key(j, "passed", T::boolean);
  EXPECT_TRUE(j["passed"].get<bool>());
}

// fp16 / bf16 are a permission (amp/options.h): on the CPU, whose oneDNN computes fp16
// through fp32, an fp16 request runs fp32 and the report says why.
TEST_F(AmprunTest, LowPrecisionThatIsNoFasterStaysFp32WithANote) {
  const fs::path report = dir_ / "fp16_on_cpu.json";
  ASSERT_EQ(run("--model " + (dir_ / "demo_resnet.amp").string() +
                    " --backend cpu --precision fp16 --warmup 0 --iterations 1 --json-report " +
                    report.string(),
                dir_ / "log.txt"),
            0)
      << std::ifstream(dir_ / "log.txt").rdbuf();
  std::ifstream f(report);
  const json j = json::parse(f);
  EXPECT_EQ(j["precision"], "fp32");
  EXPECT_NE(j["precision_note"].get<std::string>().find("fp16 requested, fp32 used"),
            std::string::npos)
      << j["precision_note"];
  EXPECT_EQ(j["precision_plan"]["nodes_low"].get<int>(), 0);
}

// --precision-timing on: the load times the plan against fp32 and the note says what it
// found (some nodes kept fp32, or the whole plan slower and fp32 used).
TEST_F(AmprunTest, PrecisionTimingOnTimesThePlan) {
  const fs::path report = dir_ / "timed.json";
  ASSERT_EQ(run("--model " + (dir_ / "demo_resnet.amp").string() +
                    " --backend cpu --precision bf16 --emulate-low-precision 1 "
                    "--precision-timing on --warmup 0 --iterations 1 --json-report " +
                    report.string(),
                dir_ / "log.txt"),
            0)
      << std::ifstream(dir_ / "log.txt").rdbuf();
  std::ifstream f(report);
  const std::string note = json::parse(f)["precision_note"];
  EXPECT_TRUE(note.find("precision timing: ") != std::string::npos ||
              note.find("measured on this device the AMP plan is not faster") != std::string::npos)
      << note;
  EXPECT_EQ(run("--model x.amp --precision-timing sometimes", dir_ / "log.txt"), 2);
}

TEST_F(AmprunTest, UsageErrorsExitTwoAndNameTheFlag) {
  EXPECT_EQ(run("--model x.amp --precision fp8", dir_ / "log.txt"), 2);
  std::ifstream f(dir_ / "log.txt");
  std::string text((std::istreambuf_iterator<char>(f)), {});
  EXPECT_NE(text.find("--precision"), std::string::npos) << text;
  EXPECT_EQ(run("--iterations 0 --model x.amp", dir_ / "log.txt"), 2);
  EXPECT_EQ(run("--model " + (dir_ / "missing.amp").string(), dir_ / "log.txt"), 1);
}

// A low-precision run binds its inputs' dims at load; an input of the wrong rank is still
// reported as the input's error, as in fp32, not as a shape binding amprun made.
TEST_F(AmprunTest, AWrongRankInputIsNamedInLowPrecisionToo) {
  fs::create_directories(dir_ / "bad");
  amp::save_tensor_pb((dir_ / "bad" / "input_0.pb").string(),
                      amp::Tensor::from(std::vector<float>(3 * 32 * 32, 0.f), {3, 32, 32}),
                      "image");
  for (const char* precision : {"fp32", "bf16"}) {
    EXPECT_EQ(run("--model " + (dir_ / "demo_resnet.amp").string() + " --backend cpu --precision " +
                      precision + " --iterations 1 --inputs " + (dir_ / "bad").string(),
                  dir_ / "log.txt"),
              1);
    std::ifstream f(dir_ / "log.txt");
    const std::string text((std::istreambuf_iterator<char>(f)), {});
    EXPECT_NE(text.find("input 'image' has rank 3"), std::string::npos)
        << precision << ": " << text;
  }
}

// --check-numerics names the fp16 node that overflowed (and the verdict is FAILED); the
// report also carries the backend note and one run's time breakdown.
TEST_F(AmprunTest, CheckNumericsReportsTheFirstOverflow) {
  const std::string model = amp::test::write_overflow_model(dir_);
  fs::create_directories(dir_ / "inputs");
  amp::save_tensor_pb((dir_ / "inputs" / "input_0.pb").string(),
                      amp::Tensor::from(std::vector<float>(4, 100.f), {1, 4}), "x");
  const std::string in = " --inputs " + (dir_ / "inputs").string();
  const fs::path report = dir_ / "numerics.json";
  const int rc =
      run("--model " + model + in +
              " --backend cpu --precision fp16 --emulate-low-precision 1 --check-numerics"
              " --warmup 1"
              " --iterations 2 --json-report " +
              report.string(),
          dir_ / "log.txt");
  EXPECT_EQ(rc, 1) << std::ifstream(dir_ / "log.txt").rdbuf();
  std::ifstream f(report);
  const json j = json::parse(f);
  ASSERT_TRUE(j["numerics"]["first_overflow"].is_string()) << j.dump(2);
  EXPECT_NE(j["numerics"]["first_overflow"].get<std::string>().find("big_matmul"),
            std::string::npos);
  EXPECT_FALSE(j["passed"].get<bool>());
  EXPECT_TRUE(j["backend_note"].is_string());
  EXPECT_TRUE(j["run_breakdown_ms"]["compute"].is_number());

  // bf16 keeps fp32's range: the same model passes the check.
  EXPECT_EQ(run("--model " + model + in +
                    " --backend cpu --precision bf16 --emulate-low-precision 1 --check-numerics"
                    " --warmup 1 --iterations 2",
                dir_ / "log.txt"),
            0)
      << std::ifstream(dir_ / "log.txt").rdbuf();
}

// --compare against a node test's expected outputs agrees with the conformance verdict,
// for passing and failing cases alike.
TEST_F(AmprunTest, CompareVerdictMatchesConformance) {
  AMP_REQUIRE_SHARED();
  int checked = 0;
  for (const auto& c :
       amp::test::select_node_tests({"Relu", "Conv", "Softmax", "Gemm", "Resize", "Not"})) {
    const bool conformant = amp::test::run_node_test_cpu(c, 1e-3, 1e-4).empty();
    const std::string data = (c.dir / "test_data_set_0").string();
    const int rc = run("--model " + (c.dir / "model.onnx").string() +
                           " --backend cpu --precision fp32"
                           " --warmup 0 --iterations 1 --rtol 1e-3 --atol 1e-4 --inputs " +
                           data + " --compare " + data,
                       dir_ / "log.txt");
    EXPECT_EQ(rc == 0, conformant) << c.name;
    ++checked;
  }
  EXPECT_GT(checked, 20);
}

// Four nodes no pass merges (an activation after Add is not fused, Mul after MatMul is not
// an activation): the trace must hold exactly one complete event for each, in order, and
// the MatMul must name the oneDNN implementation it got.
TEST_F(AmprunTest, ProfileJsonIsAChromeTraceWithOneEventPerExecutedNode) {
  using namespace amp::graph;
  GraphBuilder b;
  const ValueId x = b.input("x", amp::DType::kF32, Shape({4, 8}));
  const ValueId y = b.input("y", amp::DType::kF32, Shape({4, 8}));
  const ValueId sum = b.node(OpType::kAdd, {x, y}, {}, "add");
  const ValueId relu = b.node(OpType::kRelu, {sum}, {}, "relu");
  const ValueId w = b.constant(
      "w", TensorData::from_vector(amp::DType::kF32, {8, 3}, std::vector<float>(24, 0.5f)));
  const ValueId mm = b.node(OpType::kMatMul, {relu, w}, {}, "matmul");
  const ValueId out = b.node(OpType::kMul, {mm, mm}, {}, "square");
  b.output(out);
  const fs::path model = dir_ / "four_nodes.amp";
  ASSERT_TRUE(write_amp_file(b.build(), model.string()).is_ok());

  const fs::path trace = dir_ / "trace.json", report = dir_ / "report.json";
  const int rc = run("--model " + model.string() +
                         " --backend cpu --warmup 1 --iterations 3 --profile --profile-json " +
                         trace.string() + " --json-report " + report.string(),
                     dir_ / "log.txt");
  ASSERT_EQ(rc, 0) << std::ifstream(dir_ / "log.txt").rdbuf();
  std::ifstream tf(trace);
  const json t = json::parse(tf);  // throws (fails the test) if it is not JSON
  ASSERT_TRUE(t["traceEvents"].is_array());
  std::vector<std::string> names;
  double last_end = 0;
  for (const json& e : t["traceEvents"]) {
    if (e["ph"] != "X") continue;
    names.push_back(e["name"].get<std::string>());
    EXPECT_EQ(e["cat"], "node");
    EXPECT_GE(e["dur"].get<double>(), 0.0);
    EXPECT_GE(e["ts"].get<double>(), last_end - 1e-6) << "events overlap on one thread";
    last_end = e["ts"].get<double>() + e["dur"].get<double>();
    for (const char* k : {"op", "implementation", "dtype", "shapes"})
      EXPECT_FALSE(e["args"][k].get<std::string>().empty()) << e.dump();
    if (e["name"] == "matmul") {
      // A 4x8x3 product: our own loop, not oneDNN (kernels/cpu/small_gemm.h).
      EXPECT_EQ(e["args"]["implementation"], "own loop, small product") << e.dump();
      EXPECT_EQ(e["args"]["shapes"], "4x8 8x3 -> 4x3");
    }
    if (e["name"] == "add") {
      EXPECT_EQ(e["args"]["implementation"], "own loop");
    }
  }
  EXPECT_EQ(names, (std::vector<std::string>{"add", "relu", "matmul", "square"}));

  std::ifstream rf(report);
  const json r = json::parse(rf);
  ASSERT_TRUE(r.contains("profile")) << r.dump();
  EXPECT_EQ(r["profile"]["runs"], 3);
  ASSERT_EQ(r["profile"]["nodes"].size(), 4u);
  double share = 0;
  for (const json& n : r["profile"]["nodes"]) share += n["share"].get<double>();
  EXPECT_NEAR(share, 1.0, 1e-6);
  const std::string log = [&] {
    std::ifstream lf(dir_ / "log.txt");
    return std::string(std::istreambuf_iterator<char>(lf), {});
  }();
  EXPECT_NE(log.find("=== Profile"), std::string::npos) << log;
}

// amprun's random inputs for the demo encoders (token ids and an attention mask, int64): the
// mask is drawn from {0, 1}. The exported form turns it into a bias as (1 - mask) * -3.4e38,
// so a value of 2 or more (the token ids' range) made every score row NaN, and fp16 then
// "passed" against fp32 with cosine 1 on NaN against NaN.
TEST_F(AmprunTest, RandomInputsGiveTheEncodersFiniteOutputs) {
  for (const char* name : {"demo_bert_fused", "demo_bert_pytorch"}) {
    const fs::path outs = dir_ / (std::string(name) + "_out");
    const fs::path report = dir_ / (std::string(name) + ".json");
    const int rc = run("--model " + (dir_ / (std::string(name) + ".amp")).string() +
                           " --backend cpu --precision fp16 --emulate-low-precision 1"
                           " --compare-precision fp32 --warmup 0 --iterations 1 --save-outputs " +
                           outs.string() + " --json-report " + report.string(),
                       dir_ / "log.txt");
    ASSERT_EQ(rc, 0) << name << ": " << std::ifstream(dir_ / "log.txt").rdbuf();
    const amp::Tensor y = amp::load_tensor_pb((outs / "output_0.pb").string());
    const std::vector<float> v = y.to_float_vector();
    ASSERT_FALSE(v.empty()) << name;
    for (size_t i = 0; i < v.size(); ++i)
      ASSERT_TRUE(std::isfinite(v[i])) << name << " output element " << i << " is " << v[i];
    std::ifstream rf(report);
    const json r = json::parse(rf);
    for (const json& a : r["accuracy"]) EXPECT_FALSE(a.contains("nonfinite_in_both")) << a.dump();
  }
}

// amp-make-demo-models as a user may first call it: --help prints the usage, an option where
// the folder belongs is refused (no folder named like it), and --attention-model writes the
// one-op attention model that amprun runs at a sequence length chosen with --shape.
TEST_F(AmprunTest, DemoGeneratorHelpRefusalAndAttentionModel) {
  const std::string gen = DEMO_GENERATOR_PATH;
  auto status = [](const std::string& cmd) {
    const int rc = std::system(cmd.c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  };
  const fs::path help = dir_ / "help.txt";
  EXPECT_EQ(status(gen + " --help > " + help.string()), 0);
  std::ifstream hf(help);
  const std::string usage((std::istreambuf_iterator<char>(hf)), {});
  EXPECT_NE(usage.find("usage: amp-make-demo-models OUT_DIR"), std::string::npos) << usage;
  EXPECT_EQ(status("cd " + dir_.string() + " && " + gen + " -x 2> /dev/null"), 2);
  EXPECT_FALSE(fs::exists(dir_ / "-x"));

  ASSERT_EQ(status(gen + " " + (dir_ / "att").string() + " --attention-model > /dev/null"), 0);
  const fs::path model = dir_ / "att" / "demo_attention.amp";
  ASSERT_TRUE(fs::exists(model));
  EXPECT_EQ(run("--model " + model.string() + " --shape x=1x40x512 --iterations 2 --warmup 0",
                dir_ / "att.log"),
            0);
}

}  // namespace
