// amp-serve's dynamic batcher (tools/serve/dynamic_batcher.h): merging, splitting, preferred
// sizes, incompatible shapes, ordering, timeouts, a full queue, draining on stop, and a real
// Engine behind it giving each request what running it alone gives.
#include "tools/serve/dynamic_batcher.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "tests/test_util/scratch_dir.h"
#include "tests/test_util/test_models.h"

namespace amp::serve {
namespace {

using namespace std::chrono_literals;

// rows x width, row r (counted across requests by `first_row`) filled with its own value.
NamedTensor rows_of(float base, int64_t rows, int64_t width = 4) {
  std::vector<float> v(static_cast<size_t>(rows * width));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < width; ++c) v[static_cast<size_t>(r * width + c)] = base + float(r);
  return {"x", Tensor::from(v, {rows, width})};
}

// A fake model: y = 2 x, recording the rows of every execution.
struct Doubler {
  std::mutex mu;
  std::vector<int64_t> executions;
  std::atomic<int> started{0};
  std::chrono::milliseconds delay{0};
  DynamicBatcher::RunFn fn() {
    return [this](int, const std::vector<NamedTensor>& in) {
      ++started;
      if (delay.count()) std::this_thread::sleep_for(delay);
      {
        std::lock_guard<std::mutex> lock(mu);
        executions.push_back(in[0].tensor.shape()[0]);
      }
      std::vector<float> v = in[0].tensor.to_float_vector();
      for (float& x : v) x *= 2;
      return std::vector<Tensor>{Tensor::from(v, in[0].tensor.shape())};
    };
  }
};

BatcherConfig config(int max_batch, std::chrono::microseconds delay) {
  BatcherConfig c;
  c.max_batch_size = max_batch;
  c.max_queue_delay = delay;
  return c;
}

TEST(DynamicBatcher, MergesConcurrentRequestsAndSplitsTheOutputs) {
  Doubler model;
  DynamicBatcher b(config(8, 200ms), {"y"}, model.fn());
  std::vector<std::future<Response>> f;
  for (int i = 0; i < 3; ++i) f.push_back(b.submit({rows_of(10.0f * i, i + 1)}));  // 1+2+3 rows
  for (int i = 0; i < 3; ++i) {
    Response r = f[i].get();
    ASSERT_EQ(r.code, ErrorCode::kOk) << r.message;
    ASSERT_EQ(r.outputs.size(), 1u);
    EXPECT_EQ(r.outputs[0].name, "y");
    EXPECT_EQ(r.outputs[0].tensor.shape(), (std::vector<int64_t>{i + 1, 4}));
    const std::vector<float> y = r.outputs[0].tensor.to_float_vector();
    for (int64_t row = 0; row <= i; ++row)
      EXPECT_EQ(y[static_cast<size_t>(row * 4)], 2 * (10.0f * i + row));
    EXPECT_EQ(r.batch_rows, 6);
  }
  b.stop();
  EXPECT_EQ(model.executions, (std::vector<int64_t>{6}));
  EXPECT_EQ(b.stats().requests, 3);
  EXPECT_EQ(b.stats().executions, 1);
}

TEST(DynamicBatcher, RunsAtAPreferredSizeWithoutWaitingOutTheDelay) {
  Doubler model;
  BatcherConfig c = config(8, 10s);  // the delay alone would make the test hang
  c.preferred_batch_sizes = {2};
  DynamicBatcher b(c, {"y"}, model.fn());
  auto f1 = b.submit({rows_of(1, 1)});
  auto f2 = b.submit({rows_of(2, 1)});
  ASSERT_EQ(f1.wait_for(5s), std::future_status::ready);
  EXPECT_EQ(f1.get().batch_rows, 2);
  EXPECT_EQ(f2.get().code, ErrorCode::kOk);
}

TEST(DynamicBatcher, NeverMergesIncompatibleShapesAndKeepsOrder) {
  Doubler model;
  DynamicBatcher b(config(8, 100ms), {"y"}, model.fn());
  auto a = b.submit({rows_of(1, 1, 4)});
  auto c = b.submit({rows_of(2, 1, 5)});  // another width: a batch of its own
  auto d = b.submit({rows_of(3, 2, 4)});  // joins a
  EXPECT_EQ(a.get().batch_rows, 3);
  EXPECT_EQ(d.get().outputs[0].tensor.to_float_vector()[0], 6.0f);
  const Response rc = c.get();
  EXPECT_EQ(rc.batch_rows, 1);
  EXPECT_EQ(rc.outputs[0].tensor.shape(), (std::vector<int64_t>{1, 5}));
  b.stop();
  EXPECT_EQ(model.executions, (std::vector<int64_t>{3, 1}));  // the older key first
}

TEST(DynamicBatcher, RefusesOversizedBatchesAFullQueueAndExpiredDeadlines) {
  Doubler model;
  model.delay = 200ms;  // keeps the only worker busy
  BatcherConfig c = config(4, 0us);
  c.max_queue = 2;
  DynamicBatcher b(c, {"y"}, model.fn());
  Response big = b.submit({rows_of(0, 5)}).get();
  EXPECT_EQ(big.code, ErrorCode::kInvalidInput);
  EXPECT_NE(big.message.find("exceeds max_batch_size 4"), std::string::npos) << big.message;

  auto running = b.submit({rows_of(0, 4)});  // taken by the worker at once
  for (int i = 0; i < 5000 && model.started == 0; ++i) std::this_thread::sleep_for(1ms);
  ASSERT_EQ(model.started, 1);
  auto expired = b.submit({rows_of(1, 4)}, Clock::now() + 1ms);  // waits 80 ms: too long
  auto queued = b.submit({rows_of(2, 4)});
  const Response full = b.submit({rows_of(3, 4)}).get();
  EXPECT_TRUE(full.overloaded);
  EXPECT_NE(full.message.find("queue is full"), std::string::npos) << full.message;
  EXPECT_EQ(running.get().code, ErrorCode::kOk);
  const Response late = expired.get();
  EXPECT_TRUE(late.timed_out) << late.message;
  EXPECT_EQ(queued.get().code, ErrorCode::kOk);
  EXPECT_EQ(b.stats().failures, 3);
}

TEST(DynamicBatcher, StopDrainsWhatWasQueuedAndRefusesTheRest) {
  Doubler model;
  model.delay = 20ms;
  DynamicBatcher b(config(1, 0us), {"y"}, model.fn());
  std::vector<std::future<Response>> f;
  for (int i = 0; i < 5; ++i) f.push_back(b.submit({rows_of(float(i), 1)}));
  b.stop();
  for (auto& x : f) EXPECT_EQ(x.get().code, ErrorCode::kOk);
  EXPECT_TRUE(b.submit({rows_of(0, 1)}).get().overloaded);
}

TEST(DynamicBatcher, ModelErrorsReachEveryRequestOfTheBatch) {
  DynamicBatcher b(config(8, 50ms), {"y"},
                   [](int, const std::vector<NamedTensor>&) -> std::vector<Tensor> {
                     throw Error(ErrorCode::kInvalidInput, "input 'x' has dtype i32, expected f32");
                   });
  auto f1 = b.submit({rows_of(0, 1)});
  auto f2 = b.submit({rows_of(1, 1)});
  for (auto* f : {&f1, &f2}) {
    const Response r = f->get();
    EXPECT_EQ(r.code, ErrorCode::kInvalidInput);
    EXPECT_NE(r.message.find("expected f32"), std::string::npos);
  }
}

// A real Engine (a small CNN with a symbolic batch) behind two instances: each request gets
// exactly what running it alone gives.
TEST(DynamicBatcher, RealEngineGivesEachRequestItsOwnRows) {
  const test::ScratchDir dir("amp_batcher");
  Options opt;
  opt.backend = BackendKind::kCpu;
  opt.threads = 1;
  const Engine engine = Engine::load(test::write_small_cnn(dir.path()), opt);
  std::vector<ExecutionContext> contexts;
  for (int i = 0; i < 2; ++i) contexts.push_back(engine.create_context());
  BatcherConfig c = config(8, 100ms);
  c.instances = 2;
  DynamicBatcher b(c, {engine.outputs()[0].name},
                   [&](int instance, const std::vector<NamedTensor>& in) {
                     return contexts[static_cast<size_t>(instance)].run(in);
                   });
  std::mt19937 rng(3);
  std::normal_distribution<float> d(0.f, 1.f);
  std::vector<Tensor> xs;
  std::vector<std::future<Response>> f;
  for (int i = 0; i < 6; ++i) {
    std::vector<float> v(static_cast<size_t>((i % 2 + 1) * 3 * 16 * 16));
    for (float& x : v) x = d(rng);
    xs.push_back(Tensor::from(v, {i % 2 + 1, 3, 16, 16}));
    f.push_back(b.submit({{engine.inputs()[0].name, xs.back()}}));
  }
  for (int i = 0; i < 6; ++i) {
    const Response r = f[static_cast<size_t>(i)].get();
    ASSERT_EQ(r.code, ErrorCode::kOk) << r.message;
    const std::vector<float> alone =
        engine.run({{engine.inputs()[0].name, xs[static_cast<size_t>(i)]}})[0].to_float_vector();
    const std::vector<float> got = r.outputs[0].tensor.to_float_vector();
    ASSERT_EQ(got.size(), alone.size());
    for (size_t k = 0; k < got.size(); ++k) EXPECT_NEAR(got[k], alone[k], 1e-5);
  }
  b.stop();
  EXPECT_LT(b.stats().executions, 6);  // some requests were merged
}

}  // namespace
}  // namespace amp::serve
