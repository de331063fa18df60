// A server's shape: one Engine shared by N worker threads, each with its own
// ExecutionContext, answering requests from a queue. Prints throughput.
// Usage: sample_serve MODEL [WORKERS=2] [REQUESTS=200]
#include <amp/engine.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace {

// A minimal blocking queue; close() wakes all waiters.
template <typename T>
class Queue {
 public:
  void push(T v) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      q_.push_back(std::move(v));
    }
    cv_.notify_one();
  }
  bool pop(T& out) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return closed_ || !q_.empty(); });
    if (q_.empty()) return false;
    out = std::move(q_.front());
    q_.pop_front();
    return true;
  }
  void close() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      closed_ = true;
    }
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<T> q_;
  bool closed_ = false;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return std::fprintf(stderr, "usage: %s MODEL [WORKERS] [REQUESTS]\n", argv[0]), 2;
  const int workers = argc > 2 ? std::max(1, std::atoi(argv[2])) : 2;
  const int requests = argc > 3 ? std::max(1, std::atoi(argv[3])) : 200;
  try {
    amp::Options opt;
    opt.threads = 1;  // parallelism comes from the workers
    const amp::Engine engine = amp::Engine::load(argv[1], opt);
    const amp::TensorInfo& in = engine.inputs()[0];
    std::vector<int64_t> shape = in.shape;
    for (int64_t& d : shape) d = d < 0 ? 1 : d;

    Queue<amp::Tensor> queue;
    std::atomic<int> answered{0}, failed{0};
    std::vector<std::thread> pool;
    const auto t0 = std::chrono::steady_clock::now();
    for (int w = 0; w < workers; ++w) {
      pool.emplace_back([&] {
        amp::ExecutionContext ctx = engine.create_context();  // one per worker
        amp::Tensor request;
        while (queue.pop(request)) {
          try {
            ctx.run({{in.name, request}});
            ++answered;
          } catch (const amp::Error& e) {
            ++failed;
            std::fprintf(stderr, "request failed: %s\n", e.what());
          }
        }
      });
    }
    for (int r = 0; r < requests; ++r) queue.push(amp::Tensor::empty(in.dtype, shape));
    queue.close();
    for (auto& t : pool) t.join();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%d workers answered %d requests (%d failed) in %.3f s: %.1f requests/s\n", workers,
                answered.load(), failed.load(), s, answered.load() / s);
    return failed.load() ? 1 : 0;
  } catch (const amp::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
