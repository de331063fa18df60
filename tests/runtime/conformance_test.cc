// The real models in ../shared/models through the public API on the CPU: fp32 matches
// ONNX Runtime 1.30 within rtol 1e-3, atol 1e-4; fp16 / bf16 AMP keep cosine and argmax.
// (ONNX's node tests run in node_conformance_test.cc.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>

#include "amp/engine.h"
#include "tests/test_util/engine_cases.h"
#include "tests/test_util/node_tests.h"
#include "tests/test_util/shared_data.h"

namespace amp {
namespace {

namespace fs = std::filesystem;
using test::run_case;
using test::to_tensor;

// Each real model in fp16 and bf16 against its fp32 reference output: cosine similarity,
// max relative error, and the classifiers keep their argmax.
TEST(Conformance, RealModelsWithAmp) {
  AMP_REQUIRE_SHARED();
  for (const auto& entry : fs::directory_iterator(test::shared_dir() / "models")) {
    const fs::path dir = entry.path();
    if (!fs::exists(dir / "model.onnx")) continue;
    auto inputs = test::load_case_tensors(dir, "input");
    auto expected = test::load_case_tensors(dir, "output");
    ASSERT_TRUE(inputs.is_ok() && expected.is_ok());
    for (Precision p : {Precision::kFp16, Precision::kBf16}) {
      Options opt;
      opt.backend = BackendKind::kCpu;
      opt.precision = p;
      opt.emulate_low_precision = true;  // the AMP plan, even on a CPU without AMX
      Engine engine = Engine::load((dir / "model.onnx").string(), opt);
      std::vector<NamedTensor> named;
      for (size_t i = 0; i < engine.inputs().size(); ++i)
        named.push_back({engine.inputs()[i].name, to_tensor((*inputs)[i])});
      std::vector<Tensor> outs = engine.run(named);
      ASSERT_EQ(outs.size(), expected->size());
      for (size_t i = 0; i < outs.size(); ++i) {
        const test::Agreement a = test::agreement((*expected)[i], outs[i]);
        const bool is_2d = (*expected)[i].dims().size() == 2;
        std::cout << "[amp] " << dir.filename().string() << " " << precision_name(p) << " output "
                  << i << ": cosine " << a.cosine << ", max abs err " << a.max_abs
                  << " (output scale " << a.scale << "), max rel err " << a.max_rel
                  << (is_2d ? (a.argmax_same ? ", argmax kept" : ", ARGMAX CHANGED") : "") << "\n";
        EXPECT_GT(a.cosine, p == Precision::kFp16 ? 0.999 : 0.99) << dir.filename();
        EXPECT_TRUE(a.argmax_same) << dir.filename();
      }
    }
  }
}

TEST(Conformance, RealModelsMatchOnnxRuntime) {
  AMP_REQUIRE_SHARED();
  Options opt;
  opt.backend = BackendKind::kCpu;
  int count = 0;
  for (const auto& entry : fs::directory_iterator(test::shared_dir() / "models")) {
    if (!fs::exists(entry.path() / "model.onnx")) continue;
    ++count;
    std::string why = run_case(entry.path(), opt, 1e-3, 1e-4);
    std::cout << "[conformance] " << entry.path().filename().string() << ": "
              << (why.empty() ? "matches ONNX Runtime" : why) << "\n";
    EXPECT_EQ(why, "") << entry.path().filename();
  }
  EXPECT_GE(count, 4);
}

}  // namespace
}  // namespace amp
