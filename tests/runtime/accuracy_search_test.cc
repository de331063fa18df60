// The accuracy search (runtime/accuracy_search.h): a model that misses an accuracy target
// under plain fp16 meets it with Options::accuracy, pinning no more nodes than a greedy
// search that tries every node; the saved policy (Engine::policy_json) reloads to the same
// plan without calibration data. On the CPU with emulate_low_precision (the GPU's numerics).
#include <gtest/gtest.h>

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
#include "tests/test_util/scratch_dir.h"
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

// The nodes the search pinned, from the precision report.
std::set<std::string> searched_pins(const Engine& e) {
  std::set<std::string> pinned;
  const nlohmann::json report = nlohmann::json::parse(e.precision_report_json());
  for (const auto& n : report["plan"])
    if (n["reason"].get<std::string>().find("accuracy target") != std::string::npos)
      pinned.insert(n["node"].get<std::string>());
  return pinned;
}

// The greedy reference: repeatedly pin the one node of `nodes` that helps most on `calib`,
// until the target is met.
std::set<std::string> greedy_pins(const std::string& model, const std::vector<std::string>& nodes,
                                  const std::vector<Tensor>& calib, const Engine& ref,
                                  double target) {
  std::set<std::string> greedy;
  for (size_t round = 0; round < nodes.size(); ++round) {
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
      const double c = worst_cosine(Engine::load(model, g), ref, calib);
      if (c > best_cos) {
        best_cos = c;
        best = n;
      }
    }
    greedy.insert(best);
    if (best_cos >= target) break;
  }
  return greedy;
}

void print_comparison(const std::string& note, const std::set<std::string>& pinned,
                      const std::set<std::string>& greedy) {
  std::cout << "[accuracy search] " << note << "\n[accuracy search] pinned:";
  for (const std::string& n : pinned) std::cout << " " << n;
  std::cout << "; greedy:";
  for (const std::string& n : greedy) std::cout << " " << n;
  std::cout << "\n";
}

Engine fp32_engine(const std::string& model) {
  Options fp32 = fp16();
  fp32.precision = Precision::kFp32;
  return Engine::load(model, fp32);
}

// fp16 with the samples of `calib` and a cosine target: the accuracy search runs at load.
Engine searched_engine(const std::string& model, const std::vector<Tensor>& calib, double target) {
  Options opt = fp16();
  for (const Tensor& x : calib) opt.calibration.push_back({{"x", x}});
  opt.accuracy = AccuracyTarget{target, 0};
  return Engine::load(model, opt);
}

class AccuracySearch : public ::testing::Test {
 protected:
  void SetUp() override { model_ = test::write_cancelling_model(dir_); }
  test::ScratchDir scratch_{"amp_accuracy_search"};
  const fs::path dir_ = scratch_.path();
  std::string model_;
};

TEST_F(AccuracySearch, MeetsTheTargetWithNoMorePinsThanGreedy) {
  const std::vector<Tensor> calib = {sample(1), sample(2)};
  const std::vector<Tensor> held_out = {sample(7), sample(8)};
  const Engine ref = fp32_engine(model_);
  const double target = 0.999;

  // Plain fp16 misses the target: both branches lose their signal.
  EXPECT_LT(worst_cosine(Engine::load(model_, fp16()), ref, held_out), 0.9);

  const Engine e = searched_engine(model_, calib, target);
  EXPECT_GE(worst_cosine(e, ref, held_out), target);
  const std::set<std::string> pinned = searched_pins(e);
  const std::string note = e.precision_note();
  EXPECT_NE(note.find("accuracy search: " + std::to_string(pinned.size()) + " node(s) pinned"),
            std::string::npos)
      << note;
  EXPECT_NE(note.find(" ms ("), std::string::npos) << note;  // the search time
  EXPECT_NE(note.find("of their steps reused from earlier plans"), std::string::npos) << note;

  const std::set<std::string> greedy = greedy_pins(
      model_, {"mm1", "shift1", "unshift1", "out1", "mm2", "shift2", "unshift2", "out2"}, calib,
      ref, target);
  print_comparison(note, pinned, greedy);
  EXPECT_LE(pinned.size(), greedy.size());
  EXPECT_EQ(pinned.size(), 2u);  // one per branch
}

// Culprits along one chain: what fp16 loses at one stage travels through the later ones, so
// pins interact, and the search tries plans that share their front (runtime/value_memo.h).
TEST_F(AccuracySearch, CulpritsAlongOneChainNeedNoMorePinsThanGreedy) {
  const int layers = 8;
  const std::string model = test::write_layered_cancelling_model(
      dir_, layers, {{2, 64.0f}, {4, 256.0f}, {5, 1024.0f}, {7, 2048.0f}});
  const std::vector<Tensor> calib = {sample(11), sample(12)};
  const Engine ref = fp32_engine(model);
  const double target = 0.9999;
  EXPECT_LT(worst_cosine(Engine::load(model, fp16()), ref, calib), target);

  const Engine e = searched_engine(model, calib, target);
  EXPECT_GE(worst_cosine(e, ref, calib), target);
  const std::set<std::string> pinned = searched_pins(e);

  std::vector<std::string> nodes = {"out"};
  for (int k = 1; k <= layers; ++k)
    for (const char* stage : {"mm", "act", "shift", "unshift"})
      nodes.push_back(stage + std::to_string(k));
  const std::set<std::string> greedy = greedy_pins(model, nodes, calib, ref, target);
  print_comparison(e.precision_note(), pinned, greedy);
  EXPECT_GE(pinned.size(), 2u);
  EXPECT_LE(pinned.size(), greedy.size());
}

// One fatal stage at the front of a chain: pinning the front half meets the target, the
// back half does not, so the search looks for pins from the front (runtime/accuracy_search.h,
// Direction) and pins that stage alone, as greedy does.
TEST_F(AccuracySearch, AFrontCulpritIsSoughtFromTheFront) {
  const int layers = 8;
  const std::string model = test::write_layered_cancelling_model(dir_, layers, {{1, 2048.0f}});
  const std::vector<Tensor> calib = {sample(21), sample(22)};
  const Engine ref = fp32_engine(model);
  const double target = 0.9999;
  const Engine e = searched_engine(model, calib, target);
  EXPECT_GE(worst_cosine(e, ref, calib), target);
  const std::string note = e.precision_note();
  EXPECT_NE(note.find("front first"), std::string::npos) << note;
  std::vector<std::string> nodes = {"out"};
  for (int k = 1; k <= layers; ++k)
    for (const char* stage : {"mm", "act", "shift", "unshift"})
      if (k == 1 || (stage[0] != 's' && stage[0] != 'u'))
        nodes.push_back(stage + std::to_string(k));
  const std::set<std::string> pinned = searched_pins(e);
  const std::set<std::string> greedy = greedy_pins(model, nodes, calib, ref, target);
  print_comparison(note, pinned, greedy);
  EXPECT_EQ(pinned.size(), 1u);
  EXPECT_LE(pinned.size(), greedy.size());
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
