// The accuracy search (runtime/accuracy_search.h): a model that misses an accuracy target
// under plain fp16 meets it with Options::accuracy, pinning no more nodes than a greedy
// search that tries every node; the saved policy (Engine::policy_json) reloads to the same
// plan without calibration data. On the CPU with emulate_low_precision (the GPU's numerics).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>

#include "amp/engine.h"
#include "tests/test_util/engine_cases.h"
#include "tests/test_util/test_models.h"

namespace amp {
namespace {

namespace fs = std::filesystem;

Tensor sample(unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::vector<float> v(4 * 32);
  for (float& x : v) x = u(rng);
  return Tensor::from(v, {4, 32});
}

Options fp16() {
  Options opt;
  opt.backend = BackendKind::kCpu;
  opt.precision = Precision::kFp16;
  opt.emulate_low_precision = true;
  return opt;
}

// The worst cosine over both outputs and the samples, against fp32.
double worst_cosine(const Engine& e, const Engine& ref, const std::vector<Tensor>& xs) {
  double worst = 1;
  for (const Tensor& x : xs) {
    const auto got = e.run({{"x", x}});
    const auto want = ref.run({{"x", x}});
    for (size_t o = 0; o < got.size(); ++o) worst = std::min(worst, test::cosine(want[o], got[o]));
  }
  return worst;
}

// node -> dtype in the precision report.
std::map<std::string, std::string> dtypes(const Engine& e) {
  std::map<std::string, std::string> out;
  const nlohmann::json report = nlohmann::json::parse(e.precision_report_json());
  for (const auto& n : report["plan"]) out[n["node"]] = n["dtype"];
  return out;
}

class AccuracySearch : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("amp_accuracy_search_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    model_ = test::write_cancelling_model(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  std::string model_;
};

TEST_F(AccuracySearch, MeetsTheTargetWithNoMorePinsThanGreedy) {
  const std::vector<Tensor> calib = {sample(1), sample(2)};
  const std::vector<Tensor> held_out = {sample(7), sample(8)};
  Options fp32 = fp16();
  fp32.precision = Precision::kFp32;
  const Engine ref = Engine::load(model_, fp32);
  const double target = 0.999;

  // Plain fp16 misses the target: both branches lose their signal.
  EXPECT_LT(worst_cosine(Engine::load(model_, fp16()), ref, held_out), 0.9);

  Options opt = fp16();
  for (const Tensor& x : calib) opt.calibration.push_back({{"x", x}});
  opt.accuracy = AccuracyTarget{target, 0};
  const Engine e = Engine::load(model_, opt);
  EXPECT_GE(worst_cosine(e, ref, held_out), target);
  std::set<std::string> pinned;
  const nlohmann::json report = nlohmann::json::parse(e.precision_report_json());
  for (const auto& n : report["plan"])
    if (n["reason"].get<std::string>().find("accuracy target") != std::string::npos)
      pinned.insert(n["node"].get<std::string>());
  const std::string note = e.precision_note();
  EXPECT_NE(note.find("accuracy search: " + std::to_string(pinned.size()) + " node(s) pinned"),
            std::string::npos)
      << note;
  EXPECT_NE(note.find(" ms ("), std::string::npos) << note;  // the search time

  // The greedy reference: repeatedly pin the one node that helps most, until met.
  const std::vector<std::string> nodes = {"mm1", "shift1", "unshift1", "out1",
                                          "mm2", "shift2", "unshift2", "out2"};
  std::set<std::string> greedy;
  for (int round = 0; round < 8; ++round) {
    std::string best;
    double best_cos = -2;
    for (const std::string& n : nodes) {
      if (greedy.count(n)) continue;
      Options g = fp16();
      std::set<std::string> pins = greedy;
      pins.insert(n);
      g.precision_callback = [pins](const NodeInfo& info) {
        return pins.count(info.name) ? NodePrecision::kFp32 : NodePrecision::kDefault;
      };
      std::vector<Tensor> on_calib = calib;
      const double c = worst_cosine(Engine::load(model_, g), ref, on_calib);
      if (c > best_cos) {
        best_cos = c;
        best = n;
      }
    }
    greedy.insert(best);
    if (best_cos >= target) break;
  }
  std::cout << "[accuracy search] " << note << "\n[accuracy search] pinned:";
  for (const std::string& n : pinned) std::cout << " " << n;
  std::cout << "; greedy:";
  for (const std::string& n : greedy) std::cout << " " << n;
  std::cout << "\n";
  EXPECT_LE(pinned.size(), greedy.size());
  EXPECT_EQ(pinned.size(), 2u);  // one per branch
}

TEST_F(AccuracySearch, SavedPolicyReloadsToTheSamePlan) {
  Options opt = fp16();
  opt.calibration = {{{"x", sample(1)}}};
  opt.accuracy = AccuracyTarget{0.999, 0};
  const Engine searched = Engine::load(model_, opt);
  const fs::path saved = dir_ / "policy.json";
  std::ofstream(saved) << searched.policy_json();

  Options again = fp16();
  again.policy_file = saved.string();
  const Engine reloaded = Engine::load(model_, again);
  EXPECT_EQ(dtypes(reloaded), dtypes(searched)) << searched.policy_json();
  EXPECT_EQ(reloaded.precision_note(), "");  // no calibration, no search
  const Tensor x = sample(3);
  EXPECT_EQ(reloaded.run({{"x", x}})[0].to_float_vector(),
            searched.run({{"x", x}})[0].to_float_vector());
}

TEST_F(AccuracySearch, NeedsCalibrationData) {
  Options opt = fp16();
  opt.accuracy = AccuracyTarget{0.999, 0};
  try {
    Engine::load(model_, opt);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("needs calibration data"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace amp
