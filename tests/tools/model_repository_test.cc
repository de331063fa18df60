// amp-serve's model repository (tools/serve/model_repository.h): folders with model files
// become models, config.json is read strictly (a typo is an error naming the file and key),
// and a ServedModel answers through its batcher what its Engine gives alone.
#include "tools/serve/model_repository.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "tests/test_util/scratch_dir.h"
#include "tests/test_util/test_models.h"

namespace amp::serve {
namespace {

namespace fs = std::filesystem;

class ModelRepository : public ::testing::Test {
 protected:
  void SetUp() override {
    const fs::path cnn = test::write_small_cnn(repo_);
    for (const char* name : {"cnn", "plain"}) {
      fs::create_directories(repo_ / name);
      fs::copy_file(cnn, repo_ / name / "model.amp");
    }
    fs::remove(cnn);
    fs::create_directories(repo_ / "notes");  // no model file: not a model
    write("cnn", R"({"backend": "cpu", "precision": "fp32", "instances": 2, "threads": 1,
                     "max_batch_size": 4, "max_queue_delay_us": 50000,
                     "preferred_batch_size": [2, 4], "max_queue": 16})");
  }

  void write(const std::string& model, const std::string& config) {
    std::ofstream(repo_ / model / "config.json") << config;
  }
  std::string error_of(const std::string& config) {
    write("plain", config);
    try {
      scan_model_repository(repo_.string());
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  }
  test::ScratchDir scratch_{"amp_repo"};
  const fs::path repo_ = scratch_.path();
};

TEST_F(ModelRepository, FoldersWithModelsAndTheirConfigs) {
  const std::vector<ModelConfig> models = scan_model_repository(repo_.string());
  ASSERT_EQ(models.size(), 2u);
  EXPECT_EQ(models[0].name, "cnn");
  EXPECT_EQ(models[1].name, "plain");
  EXPECT_EQ(models[0].options.backend, BackendKind::kCpu);
  EXPECT_EQ(models[0].batching.instances, 2);
  EXPECT_EQ(models[0].options.threads, 1);
  EXPECT_EQ(models[0].batching.max_batch_size, 4);
  EXPECT_EQ(models[0].batching.max_queue_delay.count(), 50000);
  EXPECT_EQ(models[0].batching.preferred_batch_sizes, (std::vector<int>{2, 4}));
  EXPECT_EQ(models[0].batching.max_queue, 16u);
  EXPECT_EQ(models[1].batching.max_batch_size, BatcherConfig{}.max_batch_size);  // defaults
}

TEST_F(ModelRepository, ConfigMistakesAreErrorsNamingTheKey) {
  std::string msg = error_of(R"({"max_batch_sise": 8})");
  EXPECT_NE(msg.find("model 'plain'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("unknown key 'max_batch_sise'"), std::string::npos) << msg;
  msg = error_of(R"({"instances": "two"})");
  EXPECT_NE(msg.find("'instances' must be an integer"), std::string::npos) << msg;
  msg = error_of(R"({"instances": 0})");
  EXPECT_NE(msg.find("'instances' is 0, expected 1..256"), std::string::npos) << msg;
  msg = error_of(R"({"max_batch_size": 4, "preferred_batch_size": [8]})");
  EXPECT_NE(msg.find("exceeds max_batch_size 4"), std::string::npos) << msg;
  msg = error_of(R"({"policy": "../../etc/passwd"})");
  EXPECT_NE(msg.find("leaves the model's folder"), std::string::npos) << msg;
  msg = error_of(R"({"precision": "fp8"})");
  EXPECT_NE(msg.find("'precision' must be one of fp32, fp16, bf16, auto, got 'fp8'"),
            std::string::npos)
      << msg;
  msg = error_of("{not json");
  EXPECT_NE(msg.find("not valid JSON"), std::string::npos) << msg;
  fs::remove(repo_ / "plain" / "config.json");

  fs::create_directories(repo_ / "bad name");
  fs::copy_file(repo_ / "cnn" / "model.amp", repo_ / "bad name" / "model.amp");
  try {
    scan_model_repository(repo_.string());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'bad name'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(scan_model_repository((repo_ / "missing").string()), Error);
}

TEST_F(ModelRepository, ServedModelAnswersThroughItsBatcher) {
  const std::vector<ModelConfig> models = scan_model_repository(repo_.string());
  ServedModel m(models[0]);
  const std::string in = m.engine().inputs()[0].name;
  std::mt19937 rng(5);
  std::normal_distribution<float> d(0.f, 1.f);
  std::vector<Tensor> xs;
  std::vector<std::future<Response>> f;
  for (int i = 0; i < 4; ++i) {
    std::vector<float> v(3 * 16 * 16);
    for (float& x : v) x = d(rng);
    xs.push_back(Tensor::from(v, {1, 3, 16, 16}));
    f.push_back(m.batcher().submit({{in, xs.back()}}));
  }
  for (size_t i = 0; i < xs.size(); ++i) {
    const Response r = f[i].get();
    ASSERT_EQ(r.code, ErrorCode::kOk) << r.message;
    const std::vector<float> alone = m.engine().run({{in, xs[i]}})[0].to_float_vector();
    const std::vector<float> got = r.outputs[0].tensor.to_float_vector();
    ASSERT_EQ(got.size(), alone.size());
    for (size_t k = 0; k < got.size(); ++k) EXPECT_NEAR(got[k], alone[k], 1e-5);
  }
}

// Without a "threads" key, instances share the cores instead of each taking all of them.
TEST_F(ModelRepository, InstancesShareTheCoresByDefault) {
  ModelConfig c = scan_model_repository(repo_.string())[0];
  c.options.threads = 0;
  c.batching.instances = 2;
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  EXPECT_EQ(ServedModel(c).config().options.threads, std::max(1, cores / 2));
  c.batching.instances = 1;  // one instance: all cores, as an Engine alone
  EXPECT_EQ(ServedModel(c).config().options.threads, 0);
  c.batching.instances = 2;
  c.options.threads = 2;  // an explicit key wins
  EXPECT_EQ(ServedModel(c).config().options.threads, 2);
}

}  // namespace
}  // namespace amp::serve
