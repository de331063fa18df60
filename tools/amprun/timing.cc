#include "tools/amprun/timing.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <mutex>
#include <numeric>
#include <thread>

namespace amprun {

using Clock = std::chrono::steady_clock;

LatencyStats summarize(std::vector<double> ms, double wall_s) {
  LatencyStats s;
  if (ms.empty()) return s;
  std::sort(ms.begin(), ms.end());
  auto pct = [&](double p) {
    size_t idx = static_cast<size_t>(std::ceil(p / 100.0 * ms.size()));
    return ms[std::min(ms.size() - 1, idx == 0 ? 0 : idx - 1)];
  };
  s.min = ms.front();
  s.max = ms.back();
  s.mean = std::accumulate(ms.begin(), ms.end(), 0.0) / ms.size();
  s.median = ms.size() % 2 ? ms[ms.size() / 2] : 0.5 * (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]);
  s.p90 = pct(90);
  s.p95 = pct(95);
  s.p99 = pct(99);
  s.iterations = static_cast<int>(ms.size());
  s.wall_s = wall_s;
  s.throughput_qps = wall_s > 0 ? ms.size() / wall_s : 0;
  return s;
}

LatencyStats run_timed(const amp::Engine& engine, const std::vector<amp::NamedTensor>& inputs,
                       int warmup, int iterations, double duration_s, int streams) {
  std::vector<amp::ExecutionContext> contexts;
  for (int i = 0; i < streams; ++i) contexts.push_back(engine.create_context());
  for (auto& ctx : contexts)
    for (int i = 0; i < warmup; ++i) ctx.run(inputs);

  std::atomic<int> started{0};
  std::mutex mu;
  std::vector<double> latencies;
  std::exception_ptr error;
  std::atomic<bool> failed{false};
  const auto t0 = Clock::now();
  auto deadline_passed = [&] {
    return std::chrono::duration<double>(Clock::now() - t0).count() >= duration_s;
  };
  auto worker = [&](amp::ExecutionContext& ctx) {
    std::vector<double> mine;
    try {
      while (true) {
        const int n = started.fetch_add(1);
        if (n >= iterations && deadline_passed()) break;
        const auto s = Clock::now();
        ctx.run(inputs);
        mine.push_back(std::chrono::duration<double, std::milli>(Clock::now() - s).count());
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu);
      if (!error) error = std::current_exception();
      failed = true;
    }
    std::lock_guard<std::mutex> lock(mu);
    latencies.insert(latencies.end(), mine.begin(), mine.end());
  };
  std::vector<std::thread> threads;
  for (int i = 1; i < streams; ++i) threads.emplace_back(worker, std::ref(contexts[i]));
  // Progress from the main thread's loop for long runs.
  std::thread progress([&] {
    auto last = Clock::now();
    while (started.load() < iterations || !deadline_passed()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (failed) break;
      if (Clock::now() - last > std::chrono::seconds(2)) {
        std::fprintf(stderr, "[amprun] %d runs, %.1f s\n", started.load(),
                     std::chrono::duration<double>(Clock::now() - t0).count());
        last = Clock::now();
      }
    }
  });
  worker(contexts[0]);
  for (auto& t : threads) t.join();
  progress.join();
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  if (error) std::rethrow_exception(error);
  return summarize(std::move(latencies), wall);
}

}  // namespace amprun
