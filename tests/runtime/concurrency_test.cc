// One Engine, many threads: the shared Engine::run (contexts borrowed from the engine's
// pool) and one ExecutionContext per thread, interleaved, with different inputs and batch
// sizes. Every output must be bitwise equal to the sequential answer for the same input:
// a run may not see another run's arena, bound shapes or plan.
//
// Built into amp_runtime_tests; tools/check/tsan.sh runs these under ThreadSanitizer.
// Options::threads = 1 keeps the runs on the calling threads (OpenMP's own pool is not
// what these tests are about, and libgomp is not TSan-instrumented; see tsan.sh).
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "amp/engine.h"
#include "tests/test_util/scratch_dir.h"
#include "tests/test_util/shared_data.h"
#include "tests/test_util/test_models.h"

namespace amp {
namespace {

namespace fs = std::filesystem;

constexpr int kThreads = 8;
constexpr int kRunsPerThread = 40;  // 320 runs per test

// One request: its input and the answer a single-threaded run gave.
struct Case {
  std::vector<float> x;
  int64_t batch = 1;
  std::vector<uint8_t> expected;  // output bytes
};

std::vector<uint8_t> bytes_of(const Tensor& t) {
  const auto* p = static_cast<const uint8_t*>(t.raw_data());
  return std::vector<uint8_t>(p, p + t.byte_size());
}

std::vector<float> random_image(int64_t batch, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> x(static_cast<size_t>(batch) * 3 * 16 * 16);
  for (float& v : x) v = d(rng);
  return x;
}

std::vector<NamedTensor> feed(const Case& c) {
  return {{"x", Tensor::from(c.x, {c.batch, 3, 16, 16})}};
}

// `batches` distinct batch sizes cycled over the cases, answers computed sequentially.
std::vector<Case> make_cases(const Engine& engine, int count, int batches) {
  std::vector<Case> cases(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    Case& c = cases[static_cast<size_t>(i)];
    c.batch = 1 + i % batches;
    c.x = random_image(c.batch, 1000u + static_cast<unsigned>(i));
    c.expected = bytes_of(engine.run(feed(c)).at(0));
  }
  return cases;
}

// Each thread owns a context and alternates it with the shared run(); returns how many
// outputs differed from the sequential answer (and records the first).
int run_concurrently(const Engine& engine, const std::vector<Case>& cases, std::string* first) {
  std::atomic<int> mismatches{0};
  std::mutex first_mu;
  std::vector<std::thread> workers;
  const int per_thread = static_cast<int>(cases.size()) / kThreads;
  for (int t = 0; t < kThreads; ++t) {
    workers.emplace_back([&, t] {
      ExecutionContext ctx = engine.create_context();
      for (int r = 0; r < per_thread; ++r) {
        // Threads walk the cases from different offsets so that neighbours differ in
        // batch size at the same moment.
        const size_t i = static_cast<size_t>((t * 7 + r) % static_cast<int>(cases.size()));
        const Case& c = cases[i];
        std::vector<Tensor> out;
        try {
          out = (r % 2) ? engine.run(feed(c)) : ctx.run(feed(c));
        } catch (const Error& e) {
          std::lock_guard<std::mutex> lock(first_mu);
          if (first->empty()) *first = std::string("run threw: ") + e.what();
          ++mismatches;
          continue;
        }
        if (bytes_of(out.at(0)) != c.expected) {
          std::lock_guard<std::mutex> lock(first_mu);
          if (first->empty())
            *first = "case " + std::to_string(i) + " (batch " + std::to_string(c.batch) +
                     ") differs from the sequential result";
          ++mismatches;
        }
      }
    });
  }
  for (auto& w : workers) w.join();
  return mismatches.load();
}

class Concurrency : public ::testing::Test {
 protected:
  void SetUp() override { cnn_ = amp::test::write_small_cnn(dir_); }

  Options options(Precision p) const {
    Options o;
    o.backend = BackendKind::kCpu;
    o.precision = p;
    o.emulate_low_precision = true;  // the AMP plan, even on a CPU without AMX
    o.threads = 1;
    return o;
  }

  test::ScratchDir scratch_{"amp_concurrency"};
  const fs::path dir_ = scratch_.path();
  std::string cnn_;
};

// Every precision the AMP planner offers: fp16/bf16 plans add casts and low-precision
// weight copies that all threads read.
class ConcurrencyPerPrecision : public Concurrency,
                                public ::testing::WithParamInterface<Precision> {};

TEST_P(ConcurrencyPerPrecision, SharedRunAndPerThreadContexts) {
  Engine engine = Engine::load(cnn_, options(GetParam()));
  const auto cases = make_cases(engine, kThreads * kRunsPerThread / 4, 4);
  std::string first;
  EXPECT_EQ(run_concurrently(engine, cases, &first), 0) << first;
}

INSTANTIATE_TEST_SUITE_P(Precisions, ConcurrencyPerPrecision,
                         ::testing::Values(Precision::kFp32, Precision::kFp16, Precision::kBf16),
                         [](const ::testing::TestParamInfo<Precision>& p) {
                           return std::string(precision_name(p.param));
                         });

// 20 batch sizes: more shapes than the engine caches plans for, so plans are built and
// evicted while other threads still run on them.
TEST_F(Concurrency, MoreBatchSizesThanThePlanCacheHolds) {
  Engine engine = Engine::load(cnn_, options(Precision::kFp32));
  const auto cases = make_cases(engine, kThreads * kRunsPerThread, 20);
  std::string first;
  EXPECT_EQ(run_concurrently(engine, cases, &first), 0) << first;
}

// A static-shape engine (batch bound at load) takes the fixed-plan path.
TEST_F(Concurrency, StaticShapes) {
  Options o = options(Precision::kFp32);
  o.input_shapes["x"] = {2, 3, 16, 16};
  Engine engine = Engine::load(cnn_, o);
  std::vector<Case> cases(64);
  for (size_t i = 0; i < cases.size(); ++i) {
    cases[i].batch = 2;
    cases[i].x = random_image(2, 77u + static_cast<unsigned>(i));
    cases[i].expected = bytes_of(engine.run(feed(cases[i])).at(0));
  }
  std::string first;
  EXPECT_EQ(run_concurrently(engine, cases, &first), 0) << first;
}

// Loads race with each other (the process-wide state they share: kernel registries,
// oneDNN engines, the backend choice) and with runs on another engine.
TEST_F(Concurrency, ConcurrentLoadsAndRuns) {
  Engine reference = Engine::load(cnn_, options(Precision::kFp32));
  const auto cases = make_cases(reference, kThreads, 3);
  std::atomic<int> failures{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < kThreads; ++t) {
    workers.emplace_back([&, t] {
      for (int k = 0; k < 4; ++k) {
        try {
          Engine e = Engine::load(cnn_, options(Precision::kFp32));
          const Case& c = cases[static_cast<size_t>(t)];
          if (bytes_of(e.run(feed(c)).at(0)) != c.expected) ++failures;
          if (bytes_of(reference.run(feed(c)).at(0)) != c.expected) ++failures;
        } catch (const Error&) {
          ++failures;
        }
      }
    });
  }
  for (auto& w : workers) w.join();
  EXPECT_EQ(failures.load(), 0);
}

// Contexts keep the engine's internals alive: they may outlive the Engine and keep
// running on their threads after it is gone.
TEST_F(Concurrency, ContextsOutliveTheEngine) {
  std::vector<Case> cases;
  std::vector<ExecutionContext> contexts;
  {
    Engine engine = Engine::load(cnn_, options(Precision::kFp32));
    cases = make_cases(engine, kThreads, 2);
    for (int t = 0; t < kThreads; ++t) contexts.push_back(engine.create_context());
  }
  std::atomic<int> failures{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < kThreads; ++t) {
    workers.emplace_back([&, t] {
      const Case& c = cases[static_cast<size_t>(t)];
      for (int k = 0; k < 10; ++k)
        if (bytes_of(contexts[static_cast<size_t>(t)].run(feed(c)).at(0)) != c.expected) ++failures;
    });
  }
  for (auto& w : workers) w.join();
  EXPECT_EQ(failures.load(), 0);
}

// A real model with trained weights (mnist-8), when ../shared is present.
TEST(ConcurrencyShared, Mnist) {
  AMP_REQUIRE_SHARED();
  const fs::path model = amp::test::shared_dir() / "models" / "mnist-8" / "model.onnx";
  if (!fs::exists(model)) GTEST_SKIP() << model << " is absent";
  Options o;
  o.backend = BackendKind::kCpu;
  o.threads = 1;
  Engine engine = Engine::load(model.string(), o);
  const std::string in = engine.inputs().at(0).name;
  std::vector<std::vector<float>> xs;
  std::vector<std::vector<uint8_t>> expected;
  for (unsigned i = 0; i < kThreads; ++i) {
    std::mt19937 rng(i);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    std::vector<float> x(28 * 28);
    for (float& v : x) v = u(rng);
    xs.push_back(x);
    expected.push_back(bytes_of(engine.run({{in, Tensor::from(x, {1, 1, 28, 28})}}).at(0)));
  }
  std::atomic<int> failures{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < kThreads; ++t) {
    workers.emplace_back([&, t] {
      ExecutionContext ctx = engine.create_context();
      for (int k = 0; k < 20; ++k) {
        const auto i = static_cast<size_t>((t + k) % kThreads);
        auto out = (k % 2) ? engine.run({{in, Tensor::from(xs[i], {1, 1, 28, 28})}})
                           : ctx.run({{in, Tensor::from(xs[i], {1, 1, 28, 28})}});
        if (bytes_of(out.at(0)) != expected[i]) ++failures;
      }
    });
  }
  for (auto& w : workers) w.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace amp
