// ONNX's backend node tests for every op AMPRT knows, through the public Engine on the
// CPU: fp32, fp32 with every input a constant (kernels' prepare()-time paths), and AMP
// fp16 / bf16 against the fp32 expected outputs. The only tolerance is the explicit list
// tests/data/node_tests_expected_failures.txt (tests/test_util/node_conformance.h); the
// CUDA modes run in tests/cuda/engine_cuda_test.cc.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tests/test_util/node_conformance.h"
#include "tests/test_util/scratch_dir.h"
#include "tests/test_util/shared_data.h"

namespace amp::test {
namespace {

class NodeConformance : public ::testing::TestWithParam<NodeTestMode> {};

TEST_P(NodeConformance, EveryCasePassesOrIsAnExpectedFailure) {
  AMP_REQUIRE_SHARED();
  auto expected = load_expected_failures();
  ASSERT_TRUE(expected.is_ok()) << expected.status().to_string();
  const ConformanceReport r = run_node_conformance(GetParam(), *expected);
  std::cout << "[conformance] " << mode_name(GetParam()) << ": " << r.summary() << "\n";
  EXPECT_GT(r.selected, 0u);
  EXPECT_TRUE(r.problems.empty()) << r.summary();
}

INSTANTIATE_TEST_SUITE_P(Cpu, NodeConformance,
                         ::testing::Values(NodeTestMode::kCpuFp32,
                                           NodeTestMode::kCpuFp32ConstantInputs,
                                           NodeTestMode::kCpuFp16, NodeTestMode::kCpuBf16),
                         [](const auto& info) {
                           std::string n = mode_name(info.param);
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

// The issue-13 tier-2 list (../shared/onnx-node-tests-tier2.txt, 628 cases): every case on
// it must be selected by the runs above (so none can drop out of them unnoticed: the runs
// then hold each one to "passes or is listed"), and the counts per mode are printed from
// the expected-failure list. The AMP modes run the float cases among them.
TEST(NodeConformanceTier2, EveryTier2CaseIsRunByTheConformanceModes) {
  AMP_REQUIRE_SHARED();
  std::ifstream f(shared_dir() / "onnx-node-tests-tier2.txt");
  ASSERT_TRUE(f) << "onnx-node-tests-tier2.txt is missing from " << shared_dir();
  std::set<std::string> tier2;
  for (std::string line; std::getline(f, line);)
    if (!line.empty()) tier2.insert(line);
  EXPECT_EQ(tier2.size(), 628u);
  auto expected = load_expected_failures();
  ASSERT_TRUE(expected.is_ok()) << expected.status().to_string();
  std::map<std::string, const NodeTestCase*> selected;
  const std::vector<NodeTestCase> cases = select_node_tests();
  for (const NodeTestCase& c : cases) selected[c.name] = &c;
  for (NodeTestMode mode : {NodeTestMode::kCpuFp32, NodeTestMode::kCpuFp32ConstantInputs,
                            NodeTestMode::kCpuFp16, NodeTestMode::kCpuBf16}) {
    const std::string name = mode_name(mode);
    const bool amp = mode == NodeTestMode::kCpuFp16 || mode == NodeTestMode::kCpuBf16;
    size_t run = 0, listed = 0;
    for (const std::string& c : tier2) {
      auto it = selected.find(c);
      if (it == selected.end()) {
        ADD_FAILURE() << c << " is on the tier-2 list but not selected (an op or dtype we lack)";
        continue;
      }
      if (amp && !it->second->float_io) continue;
      ++run;
      for (const ExpectedFailure& e : *expected)
        if (e.case_name == c && listed_for(e, name)) ++listed;
    }
    std::cout << "[conformance] tier-2 " << name << ": " << run - listed << " of " << run
              << " pass, " << listed << " expected failures\n";
  }
}

// The list itself: it is read by every mode, so a malformed entry must fail here, in CI,
// where ../shared is absent and the conformance runs skip.
TEST(ExpectedFailureList, EveryEntryHasACaseKnownModesAndAReason) {
  auto list = load_expected_failures();
  ASSERT_TRUE(list.is_ok()) << list.status().to_string();
  for (const ExpectedFailure& f : *list) {
    EXPECT_EQ(f.case_name.rfind("test_", 0), 0u) << f.case_name;
    EXPECT_GE(f.reason.size(), 20u) << f.case_name << ": say why it fails";
  }
}

TEST(ExpectedFailureList, RejectsEntriesWithoutReasonOrWithUnknownModes) {
  const test::ScratchDir dir("amp_expected_failures");
  const std::filesystem::path file = dir.path() / "expected_failures.txt";
  for (const char* bad :
       {"test_x | * |\n", "test_x | cpu-fp64 | a reason\n", "test_x\n", " | * | a reason\n"}) {
    std::ofstream(file) << "# comment\n" << bad;
    auto list = load_expected_failures(file.string());
    EXPECT_FALSE(list.is_ok()) << bad;
  }
  std::ofstream(file) << "test_x | cpu-fp16, cuda-bf16 | fails for a reason\n";
  auto ok = load_expected_failures(file.string());
  ASSERT_TRUE(ok.is_ok()) << ok.status().to_string();
  ASSERT_EQ(ok->size(), 1u);
  EXPECT_EQ((*ok)[0].modes.size(), 2u);
}

// The judging itself, on made-up outcomes: an unlisted failure, a listed pass and a stale
// entry are problems; a listed failure and an unlisted pass are not.
TEST(ExpectedFailureList, CheckCasesFlagsEveryDeparture) {
  const std::vector<NodeTestCase> cases = {
      {"test_ok", {}, "Relu", true},
      {"test_broken", {}, "Relu", true},
      {"test_known", {}, "Relu", true},
      {"test_fixed", {}, "Relu", true},
  };
  const std::vector<ExpectedFailure> list = {
      {"test_known", {"cpu-fp16"}, "a reason"},
      {"test_fixed", {"*"}, "a reason"},
      {"test_gone", {"cpu-fp16"}, "a reason"},
      {"test_broken", {"cuda-fp16"}, "listed for another mode only"},
  };
  const ConformanceReport r =
      check_cases("cpu-fp16", cases, list, [](const NodeTestCase& c) -> std::string {
        return c.name == "test_broken" || c.name == "test_known" ? "wrong" : "";
      });
  EXPECT_EQ(r.selected, 4u);
  EXPECT_EQ(r.passed, 2u);
  EXPECT_EQ(r.expected_failures, 1u);
  ASSERT_EQ(r.problems.size(), 3u) << r.summary();
  EXPECT_NE(r.summary().find("test_broken: wrong"), std::string::npos);
  EXPECT_NE(r.summary().find("test_fixed: passes now"), std::string::npos);
  EXPECT_NE(r.summary().find("test_gone: listed as an expected failure but not a selected case"),
            std::string::npos);
}

}  // namespace
}  // namespace amp::test
