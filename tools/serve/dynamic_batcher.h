// DynamicBatcher: Triton-style dynamic batching for one model in amp-serve (issue 16).
//
// Concurrent requests whose inputs share everything but the first dim (the batch dim) are
// merged into one execution of up to max_batch_size rows, run on one of `instances` worker
// threads (each with its own ExecutionContext behind the RunFn), and the outputs are split
// back along their first dim, each request getting its own rows.
//
// Algorithm (one queue, FIFO; every worker runs this loop):
//   1. wait until the queue is not empty;
//   2. the oldest request opens a batch; its "key" is every input's name, dtype and dims
//      but the first. A request whose deadline has passed is answered with a timeout and
//      dropped;
//   3. walk the queue in order and take each request with the same key while the rows fit
//      max_batch_size (others keep their place: incompatible shapes are never merged, and a
//      request is never overtaken by a later one of its own key);
//   4. run now if the rows reached max_batch_size or a preferred batch size, or the oldest
//      request has waited max_queue_delay, or the batcher is stopping; else wait for more
//      requests (or that delay) and go back to 3;
//   5. concatenate each input along dim 0 (bytes: dim 0 is outermost), run, check every
//      output's first dim equals the rows, and answer each request with its slice.
// A request with more rows than max_batch_size is refused (as Triton does); submit() on a
// full queue or after stop() is refused at once, so memory stays bounded. stop() lets the
// workers finish everything already queued (SIGTERM drains) and joins them.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "amp/engine.h"
#include "amp/error.h"

namespace amp::serve {

using Clock = std::chrono::steady_clock;

struct BatcherConfig {
  int max_batch_size = 8;  // rows per execution; 0: no batch dim (run requests one by one)
  std::chrono::microseconds max_queue_delay{100};
  std::vector<int> preferred_batch_sizes;  // run as soon as the rows reach one of these
  size_t max_queue = 1024;                 // requests waiting; more are refused
  int instances = 1;                       // worker threads
};

struct Response {
  ErrorCode code = ErrorCode::kOk;
  std::string message;  // why, when code != kOk
  std::vector<NamedTensor> outputs;
  int64_t queue_us = 0;    // from submit() to the start of its execution
  int64_t compute_us = 0;  // the execution it was part of: input + infer + output
  // Its phases, as Triton's metrics split them: merging the batch's inputs, running the
  // model, and cutting this request's rows out of the outputs.
  int64_t compute_input_us = 0, compute_infer_us = 0, compute_output_us = 0;
  int batch_rows = 0;       // rows of that execution (its own and its companions')
  bool timed_out = false;   // its deadline passed in the queue
  bool overloaded = false;  // refused: the queue was full or the batcher stopping
};

struct BatcherStats {
  int64_t requests = 0;    // answered OK ("inference count" in Triton's metrics)
  int64_t executions = 0;  // model runs ("execution count"): requests / executions = batching
  int64_t failures = 0;    // answered with an error (refusals included)
};

class DynamicBatcher {
 public:
  // Runs the model on `instance`'s context (0 <= instance < config.instances); returns the
  // outputs in `output_names` order, or throws amp::Error.
  using RunFn = std::function<std::vector<Tensor>(int instance, const std::vector<NamedTensor>&)>;

  DynamicBatcher(BatcherConfig config, std::vector<std::string> output_names, RunFn run);
  ~DynamicBatcher();  // stop()
  DynamicBatcher(const DynamicBatcher&) = delete;
  DynamicBatcher& operator=(const DynamicBatcher&) = delete;

  // Queues the request; the future is ready when it has been answered. Refused at once (a
  // ready future with the error) when the queue is full, the batcher is stopping, or the
  // request has more rows than max_batch_size. `deadline`: answered with a timeout if its
  // execution has not started by then (Clock::time_point::max(): none).
  std::future<Response> submit(std::vector<NamedTensor> inputs,
                               Clock::time_point deadline = Clock::time_point::max());

  // Refuses new requests, answers every queued one, joins the workers. Idempotent.
  void stop();

  BatcherStats stats() const;

 private:
  struct Pending {
    std::vector<NamedTensor> inputs;
    Clock::time_point enqueued, deadline;
    int64_t rows = 1;
    std::string key;
    std::promise<Response> promise;
  };

  void worker(int instance);
  // Under mu_: the indices of the queue entries that form the batch opened by queue_[0].
  std::vector<size_t> gather(int64_t& rows) const;
  bool ready(int64_t rows, Clock::time_point now) const;
  void execute(int instance, std::vector<Pending> batch, int64_t rows);
  void answer_timeout(Pending& p, Clock::time_point now);

  const BatcherConfig config_;
  const std::vector<std::string> output_names_;
  const RunFn run_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Pending> queue_;
  bool stopping_ = false;
  BatcherStats stats_;
  std::vector<std::thread> workers_;
};

}  // namespace amp::serve
