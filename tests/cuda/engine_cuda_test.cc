// The CUDA backend through the public Engine API (skipped with the driver's reason when
// no GPU is visible): ONNX node tests and the real models against their reference
// outputs in fp32 / fp16 / bf16, two contexts on two streams at once, CUDA graph replay
// (equal to eager, re-captured when shapes change), the numerics check, and device
// out-of-memory as an error.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <random>
#include <thread>

#include "amp/engine.h"
#include "tests/test_util/engine_cases.h"
#include "tests/test_util/node_conformance.h"
#include "tests/test_util/node_tests.h"
#include "tests/test_util/require_gpu.h"
#include "tests/test_util/scratch_dir.h"
#include "tests/test_util/shared_data.h"
#include "tests/test_util/test_models.h"

namespace amp {
namespace {

namespace fs = std::filesystem;

Options cuda_options(Precision p = Precision::kFp32) {
  Options opt;
  opt.backend = BackendKind::kCuda;
  opt.precision = p;
  return opt;
}

bool bitwise_equal(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         std::memcmp(a.raw_data(), b.raw_data(), a.byte_size()) == 0;
}

Tensor random_images(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.f, 1.f);
  std::vector<float> x(static_cast<size_t>(n) * 3 * 16 * 16);
  for (float& v : x) v = d(rng);
  return Tensor::from(x, {n, 3, 16, 16});
}

class EngineCuda : public ::testing::Test {
 protected:
  test::ScratchDir scratch_{"amp_engine_cuda"};
  const fs::path dir_ = scratch_.path();
};

// The node tests in the CUDA modes of the one conformance runner: every case passes or is
// on tests/data/node_tests_expected_failures.txt with its reason.
class CudaNodeConformance : public ::testing::TestWithParam<test::NodeTestMode> {};

TEST_P(CudaNodeConformance, EveryCasePassesOrIsAnExpectedFailure) {
  AMP_REQUIRE_GPU();
  AMP_REQUIRE_SHARED();
  auto expected = test::load_expected_failures();
  ASSERT_TRUE(expected.is_ok()) << expected.status().to_string();
  const test::ConformanceReport r = test::run_node_conformance(GetParam(), *expected);
  std::cout << "[conformance] " << test::mode_name(GetParam()) << ": " << r.summary() << "\n";
  EXPECT_GT(r.selected, 0u);
  EXPECT_TRUE(r.problems.empty()) << r.summary();
}

INSTANTIATE_TEST_SUITE_P(Cuda, CudaNodeConformance,
                         ::testing::Values(test::NodeTestMode::kCudaFp32,
                                           test::NodeTestMode::kCudaFp16,
                                           test::NodeTestMode::kCudaBf16),
                         [](const auto& info) {
                           std::string n = test::mode_name(info.param);
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

TEST_F(EngineCuda, RealModelsMatchTheirReferences) {
  AMP_REQUIRE_GPU();
  AMP_REQUIRE_SHARED();
  int count = 0;
  for (const auto& entry : fs::directory_iterator(test::shared_dir() / "models")) {
    const fs::path dir = entry.path();
    if (!fs::exists(dir / "model.onnx")) continue;
    ++count;
    // fp32 (TF32 off): the reference outputs within the CPU's tolerance.
    std::string why = test::run_case(dir, cuda_options(), 1e-3, 1e-4);
    std::cout << "[cuda] " << dir.filename().string() << " fp32: " << (why.empty() ? "ok" : why)
              << "\n";
    EXPECT_EQ(why, "") << dir.filename();
    auto inputs = test::load_case_tensors(dir, "input");
    auto expected = test::load_case_tensors(dir, "output");
    ASSERT_TRUE(inputs.is_ok() && expected.is_ok());
    for (Precision p : {Precision::kFp16, Precision::kBf16}) {
      Engine engine = Engine::load((dir / "model.onnx").string(), cuda_options(p));
      ASSERT_EQ(engine.backend(), BackendKind::kCuda);
      std::vector<NamedTensor> named;
      for (size_t i = 0; i < engine.inputs().size(); ++i)
        named.push_back({engine.inputs()[i].name, test::to_tensor((*inputs)[i])});
      std::vector<Tensor> outs = engine.run(named);
      ASSERT_EQ(outs.size(), expected->size());
      for (size_t i = 0; i < outs.size(); ++i) {
        const test::Agreement a = test::agreement((*expected)[i], outs[i]);
        std::cout << "[cuda] " << dir.filename().string() << " " << precision_name(p) << " output "
                  << i << ": cosine " << a.cosine << ", max rel err " << a.max_rel << "\n";
        EXPECT_GT(a.cosine, p == Precision::kFp16 ? 0.999 : 0.99) << dir.filename();
        EXPECT_TRUE(a.argmax_same) << dir.filename();
      }
    }
  }
  EXPECT_GE(count, 1);
}

// Calibrated auto precision on the GPU: the product that overflows fp16 on the calibration
// data runs bf16 (cuBLASLt), the rest fp16, and nothing overflows; the plain fp16 plan
// overflows.
TEST_F(EngineCuda, CalibratedAutoRunsTheHotProductInBf16) {
  AMP_REQUIRE_GPU();
  const std::string path = test::write_hot_matmul_model(dir_);
  auto sample = [](unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.5f, 1.5f);
    std::vector<float> v(8 * 64);
    for (float& x : v) x = u(rng);
    return Tensor::from(v, {8, 64});
  };
  const Tensor x = sample(1);
  auto finite = [](const Tensor& t) {
    for (float v : t.to_float_vector())
      if (!std::isfinite(v)) return false;
    return true;
  };
  EXPECT_FALSE(finite(Engine::load(path, cuda_options(Precision::kFp16)).run({{"x", x}})[0]));
  Options opt = cuda_options(Precision::kAuto);
  opt.calibration = {{{"x", sample(2)}}};
  const Engine e = Engine::load(path, opt);
  const std::vector<Tensor> out = e.run({{"x", x}});
  EXPECT_TRUE(finite(out[0]));
  const std::vector<Tensor> ref = Engine::load(path, cuda_options()).run({{"x", x}});
  EXPECT_GT(test::cosine(ref[0], out[0]), 0.999);
  const std::string report = e.precision_report_json();
  EXPECT_NE(report.find("\"dtype\": \"bf16\""), std::string::npos) << report;
}

TEST_F(EngineCuda, MatchesTheCpuBackendOnASmallCnn) {
  AMP_REQUIRE_GPU();
  const std::string path = test::write_small_cnn(dir_);
  Options cpu;
  cpu.backend = BackendKind::kCpu;
  Engine on_cpu = Engine::load(path, cpu);
  for (Precision p : {Precision::kFp32, Precision::kFp16, Precision::kBf16}) {
    Engine on_gpu = Engine::load(path, cuda_options(p));
    for (int n : {1, 4}) {
      const Tensor x = random_images(n, 7u + n);
      const Tensor want = on_cpu.run({{"x", x}})[0];
      const Tensor got = on_gpu.run({{"x", x}})[0];
      const double tol = p == Precision::kFp32 ? 1e-5 : p == Precision::kFp16 ? 2e-3 : 2e-2;
      const std::vector<float> a = want.to_float_vector(), b = got.to_float_vector();
      ASSERT_EQ(a.size(), b.size());
      for (size_t i = 0; i < a.size(); ++i)
        EXPECT_NEAR(a[i], b[i], tol) << precision_name(p) << " batch " << n << " element " << i;
    }
  }
}

TEST_F(EngineCuda, TwoContextsOnTwoStreamsGiveTheSameOutputsAsOne) {
  AMP_REQUIRE_GPU();
  const std::string path = test::write_small_cnn(dir_);
  for (Precision p : {Precision::kFp32, Precision::kFp16}) {
    Engine engine = Engine::load(path, cuda_options(p));
    constexpr int kRuns = 40;
    std::vector<Tensor> inputs, expected;
    ExecutionContext single = engine.create_context();
    for (int i = 0; i < kRuns; ++i) {
      inputs.push_back(random_images(2, 100u + i));
      expected.push_back(single.run({{"x", inputs.back()}})[0]);
    }
    std::vector<Tensor> got[2];
    auto worker = [&](int w) {
      ExecutionContext ctx = engine.create_context();
      for (int i = w; i < kRuns; i += 2) got[w].push_back(ctx.run({{"x", inputs[i]}})[0]);
    };
    std::thread t0(worker, 0), t1(worker, 1);
    t0.join();
    t1.join();
    for (int i = 0; i < kRuns; ++i)
      EXPECT_TRUE(bitwise_equal(got[i % 2][i / 2], expected[i]))
          << precision_name(p) << " run " << i;
  }
}

TEST_F(EngineCuda, CudaGraphReplayEqualsEagerAndRecapturesOnNewShapes) {
  AMP_REQUIRE_GPU();
  const std::string path = test::write_small_cnn(dir_);
  Options eager_opt = cuda_options(Precision::kFp16);
  eager_opt.cuda_graphs = false;
  Engine eager = Engine::load(path, eager_opt);
  Engine graphed = Engine::load(path, cuda_options(Precision::kFp16));
  ExecutionContext ctx = graphed.create_context();
  int replays = 0;
  std::string notes;  // why each run did or did not replay, shown if too few did
  for (int n : {1, 1, 1, 3, 3, 3, 1, 1}) {
    const Tensor x = random_images(n, 40u + n);
    const Tensor want = eager.run({{"x", x}})[0];
    const Tensor got = ctx.run({{"x", x}})[0];
    EXPECT_TRUE(bitwise_equal(want, got)) << "batch " << n;
    replays += ctx.last_run_timings().cuda_graph ? 1 : 0;
    notes += "\n  batch " + std::to_string(n) + ": " + ctx.last_run_timings().cuda_graph_note;
  }
  // Per shape binding: run 1 eager, run 2 captures and replays, later runs replay.
  EXPECT_GE(replays, 4) << notes;
}

TEST_F(EngineCuda, CheckNumericsFindsTheFp16Overflow) {
  AMP_REQUIRE_GPU();
  const std::string path = test::write_overflow_model(dir_);
  Options opt = cuda_options(Precision::kFp16);
  opt.check_numerics = true;
  try {
    Engine::load(path, opt).run({{"x", Tensor::from(std::vector<float>(4, 100.f), {1, 4})}});
    FAIL() << "expected a numeric overflow error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNumericOverflow) << e.what();
    EXPECT_NE(e.message().find("big_matmul"), std::string::npos) << e.what();
  }
  // The overflowing Mul may run in place over its input: still found, and named.
  try {
    Engine::load(test::write_inplace_overflow_model(dir_), opt)
        .run({{"x", Tensor::from(std::vector<float>(4, 1.f), {1, 4})}});
    FAIL() << "expected a numeric overflow error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNumericOverflow) << e.what();
    EXPECT_NE(e.message().find("scale_mul"), std::string::npos) << e.what();
  }
}

TEST_F(EngineCuda, DeviceOutOfMemoryIsAnErrorThatSaysHowMuch) {
  AMP_REQUIRE_GPU();
  const std::string path = test::write_expand_model(dir_);
  Engine engine = Engine::load(path, cuda_options());
  const Tensor x = Tensor::from(std::vector<float>{1.f}, {1});
  // 200 GiB of fp32: under the 256 GiB per-tensor limit (graph/ir/limits.h), over the
  // memory of any GPU we run on (an H200 has 141 GB).
  try {
    engine.run({{"x", x}, {"shape", Tensor::from(std::vector<int64_t>{50 << 10, 1 << 20}, {2})}});
    FAIL() << "expected an out-of-memory error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kOutOfMemory) << e.what();
    EXPECT_NE(e.message().find("free"), std::string::npos) << e.what();
  }
  // The engine is still usable.
  auto out = engine.run({{"x", x}, {"shape", Tensor::from(std::vector<int64_t>{2, 2}, {2})}});
  EXPECT_EQ(out[0].to_float_vector(), std::vector<float>(4, 1.f));
}

}  // namespace
}  // namespace amp
