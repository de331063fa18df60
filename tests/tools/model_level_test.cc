// The model-level demo models (tools/demo/make_demo_models.cc: BERT-style encoders in the
// form PyTorch exports and in the fused opset-17/20 form, a streaming LSTM voice model) run
// through amprun in fp32, fp16 and bf16 on the CPU, each low-precision run compared with fp32
// (--compare-precision): cosine and amprun's own pass verdict per output.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "amp/engine.h"
#include "amp/tensor_io.h"
#include "tests/tools/demo_models_fixture.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

int run(const std::string& args, const fs::path& log) {
  return amp::test::run_amprun(args, log);
}

class ModelLevelTest : public amp::test::DemoModelsTest {
 protected:
  // Runs `model` in each precision against fp32 and checks every output's cosine.
  void expect_close(const std::string& model, const fs::path& inputs, double min_cos_fp16,
                    double min_cos_bf16) {
    for (const char* precision : {"fp32", "fp16", "bf16"}) {
      const fs::path report = dir_ / (model + "." + precision + ".json");
      const int rc =
          run("--model " + (dir_ / (model + ".amp")).string() + " --backend cpu --precision " +
                  precision +
                  " --emulate-low-precision 1 --compare-precision fp32 --warmup 0 --iterations 2"
                  " --inputs " +
                  inputs.string() + " --json-report " + report.string(),
              dir_ / "log.txt");
      ASSERT_EQ(rc, 0) << model << " " << precision << ": "
                       << std::ifstream(dir_ / "log.txt").rdbuf();
      std::ifstream f(report);
      const json j = json::parse(f);
      ASSERT_TRUE(j["passed"].get<bool>()) << model << " " << precision << ": " << j.dump();
      const double floor = std::string(precision) == "fp16"   ? min_cos_fp16
                           : std::string(precision) == "bf16" ? min_cos_bf16
                                                              : 0.999999;
      for (const json& a : j["accuracy"]) {
        const double cos = a["cosine"].get<double>();
        EXPECT_GE(cos, floor) << model << " " << precision << " " << a["output"];
        std::printf("[model-level] %s %s %s cosine %.7f max_abs %.3g\n", model.c_str(), precision,
                    a["output"].get<std::string>().c_str(), cos, a["max_abs_err"].get<double>());
      }
      if (std::string(precision) != "fp32") {
        EXPECT_GT(j["precision_plan"]["nodes_low"].get<int>(), 0) << model << " " << precision;
      }
    }
  }
};

// Two sentences of 16 tokens, the second padded after 9 (its mask 0 there).
fs::path bert_inputs(const fs::path& dir) {
  const fs::path in = dir / "bert_inputs";
  fs::create_directories(in);
  std::mt19937 rng(7);
  std::vector<int64_t> ids(32), mask(32);
  for (size_t i = 0; i < 32; ++i) {
    ids[i] = static_cast<int64_t>(rng() % 64);
    mask[i] = i < 16 + 9 ? 1 : 0;  // row 0 all tokens, row 1 the first 9
  }
  amp::save_tensor_pb((in / "input_0.pb").string(), amp::Tensor::from(ids, {2, 16}), "input_ids");
  amp::save_tensor_pb((in / "input_1.pb").string(), amp::Tensor::from(mask, {2, 16}),
                      "attention_mask");
  return in;
}

TEST_F(ModelLevelTest, BertAsPyTorchExportsIt) {
  expect_close("demo_bert_pytorch", bert_inputs(dir_), 0.9995, 0.995);
}

TEST_F(ModelLevelTest, BertWithFusedLayerNormAndGelu) {
  expect_close("demo_bert_fused", bert_inputs(dir_), 0.9995, 0.995);
}

// The ONNX copies of the encoders (graph/onnx/onnx_exporter.h), read back by our importer,
// compute what the .amp files do; the PyTorch form loads with every LayerNorm and GELU
// fused (graph/passes/fuse_decomposed_ops.h): 5 LayerNormalization, no Erf, ReduceMean or
// Sqrt left; each of the 12 Linear layers is one Gemm (fuse_matmul_bias.h) and the GELUs are
// the epilogues of two of them; each layer's attention (its two products, scale, mask and
// softmax, and the head transposes) is one Attention node.
TEST_F(ModelLevelTest, BertOnnxExportRunsLikeTheAmpFile) {
  const fs::path in = bert_inputs(dir_);
  for (const std::string model : {"demo_bert_pytorch", "demo_bert_fused"}) {
    const fs::path expected = dir_ / (model + ".expected");
    ASSERT_EQ(run("--model " + (dir_ / (model + ".amp")).string() +
                      " --backend cpu --warmup 0 --iterations 1 --inputs " + in.string() +
                      " --save-outputs " + expected.string(),
                  dir_ / "log.txt"),
              0)
        << std::ifstream(dir_ / "log.txt").rdbuf();
    ASSERT_EQ(run("--model " + (dir_ / (model + ".onnx")).string() +
                      " --backend cpu --warmup 0 --iterations 1 --verbose --inputs " + in.string() +
                      " --compare " + expected.string(),
                  dir_ / "log.txt"),
              0)
        << std::ifstream(dir_ / "log.txt").rdbuf();
    if (model != "demo_bert_pytorch") continue;
    std::ifstream log(dir_ / "log.txt");
    std::map<std::string, int> ops;
    for (std::string line; std::getline(log, line);)
      for (const char* op :
           {"LayerNormalization", "Gemm", "MatMul", "Attention", "Softmax", "Transpose", "Gelu",
            "Erf", "ReduceMean", "Sqrt"})
        if (line.find(std::string(" ") + op + " (") != std::string::npos) ++ops[op];
    EXPECT_EQ(ops["LayerNormalization"], 5);
    EXPECT_EQ(ops["Gemm"], 12);
    EXPECT_EQ(ops["Attention"], 2);
    EXPECT_EQ(ops["MatMul"] + ops["Softmax"] + ops["Transpose"], 0);
    EXPECT_EQ(ops["Gelu"] + ops["Erf"] + ops["ReduceMean"] + ops["Sqrt"], 0);
  }
}

TEST_F(ModelLevelTest, StreamingLstmVoiceModel) {
  const fs::path in = dir_ / "voice_inputs";
  fs::create_directories(in);
  std::mt19937 rng(11);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> feats(50 * 40), h(64), c(64);
  for (float& v : feats) v = d(rng);
  for (float& v : h) v = 0.3f * d(rng);
  for (float& v : c) v = 0.3f * d(rng);
  amp::save_tensor_pb((in / "input_0.pb").string(), amp::Tensor::from(feats, {1, 50, 40}),
                      "features");
  amp::save_tensor_pb((in / "input_1.pb").string(), amp::Tensor::from(h, {1, 1, 64}), "h_in");
  amp::save_tensor_pb((in / "input_2.pb").string(), amp::Tensor::from(c, {1, 1, 64}), "c_in");
  expect_close("demo_voice_lstm", in, 0.9995, 0.995);
}

// The voice model's If on the chunk's length: under 4 frames the short branch reports
// silence and hands the state back bit for bit; from 4 frames on the LSTM runs.
TEST_F(ModelLevelTest, VoiceModelGatesShortChunks) {
  std::mt19937 rng(5);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> h(64), c(64);
  for (float& v : h) v = 0.3f * d(rng);
  for (float& v : c) v = 0.3f * d(rng);
  for (amp::Precision p : {amp::Precision::kFp32, amp::Precision::kFp16}) {
    amp::Options opt;
    opt.backend = amp::BackendKind::kCpu;
    opt.precision = p;
    opt.emulate_low_precision = true;  // the AMP plan, even on a CPU without AMX
    amp::Engine e = amp::Engine::load((dir_ / "demo_voice_lstm.amp").string(), opt);
    for (int64_t frames : {1, 3, 4, 9}) {
      std::vector<float> feats(static_cast<size_t>(frames) * 40);
      for (float& v : feats) v = d(rng);
      const std::vector<amp::Tensor> out =
          e.run({{"features", amp::Tensor::from(feats, {1, frames, 40})},
                 {"h_in", amp::Tensor::from(h, {1, 1, 64})},
                 {"c_in", amp::Tensor::from(c, {1, 1, 64})}});
      ASSERT_EQ(out.size(), 3u);
      const float prob = out[0].to_vector<float>().at(0);
      if (frames < 4) {
        EXPECT_EQ(prob, 0.0f) << frames;
        EXPECT_EQ(out[1].to_vector<float>(), h) << frames;
        EXPECT_EQ(out[2].to_vector<float>(), c) << frames;
      } else {
        EXPECT_GT(prob, 0.0f) << frames;
        EXPECT_LT(prob, 1.0f) << frames;
        EXPECT_NE(out[1].to_vector<float>(), h) << frames;
      }
    }
  }
}

}  // namespace
