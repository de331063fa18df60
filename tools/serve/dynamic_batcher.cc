#include "tools/serve/dynamic_batcher.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <utility>

namespace amp::serve {
namespace {

int64_t micros(Clock::duration d) {
  return std::chrono::duration_cast<std::chrono::microseconds>(d).count();
}

std::future<Response> ready_future(Response r) {
  std::promise<Response> p;
  p.set_value(std::move(r));
  return p.get_future();
}

Response error_response(ErrorCode code, std::string message) {
  Response r;
  r.code = code;
  r.message = std::move(message);
  return r;
}

}  // namespace

DynamicBatcher::DynamicBatcher(BatcherConfig config, std::vector<std::string> output_names,
                               RunFn run)
    : config_(std::move(config)), output_names_(std::move(output_names)), run_(std::move(run)) {
  const int n = std::max(1, config_.instances);
  for (int i = 0; i < n; ++i) workers_.emplace_back([this, i] { worker(i); });
}

DynamicBatcher::~DynamicBatcher() {
  stop();
}

std::future<Response> DynamicBatcher::submit(std::vector<NamedTensor> inputs,
                                             Clock::time_point deadline) {
  auto refuse = [this](ErrorCode code, std::string message) {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.failures;
    return ready_future(error_response(code, std::move(message)));
  };
  // One order for every request of a key: by input name.
  std::sort(inputs.begin(), inputs.end(),
            [](const NamedTensor& a, const NamedTensor& b) { return a.name < b.name; });
  Pending p;
  p.deadline = deadline;
  if (config_.max_batch_size > 0) {
    for (const NamedTensor& in : inputs) {
      if (in.tensor.shape().empty())
        return refuse(ErrorCode::kInvalidInput,
                      "input '" + in.name + "' is a scalar; this model batches along dim 0");
      if (in.tensor.shape()[0] != inputs[0].tensor.shape()[0])
        return refuse(ErrorCode::kInvalidInput,
                      "input '" + in.name + "' has " + std::to_string(in.tensor.shape()[0]) +
                          " rows, input '" + inputs[0].name + "' " +
                          std::to_string(inputs[0].tensor.shape()[0]) + " (dim 0 is the batch)");
    }
    p.rows = inputs.empty() ? 1 : inputs[0].tensor.shape()[0];
    if (p.rows > config_.max_batch_size)
      return refuse(ErrorCode::kInvalidInput, "a batch of " + std::to_string(p.rows) +
                                                  " rows exceeds max_batch_size " +
                                                  std::to_string(config_.max_batch_size));
    for (const NamedTensor& in : inputs) {
      p.key += in.name + ":" + std::string(dtype_name(in.tensor.dtype()));
      for (size_t d = 1; d < in.tensor.shape().size(); ++d)
        p.key += "x" + std::to_string(in.tensor.shape()[d]);
      p.key += ";";
    }
  }
  p.inputs = std::move(inputs);
  std::future<Response> f = p.promise.get_future();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ || queue_.size() >= config_.max_queue) {
      ++stats_.failures;
      Response r = error_response(
          stopping_ ? ErrorCode::kBackendFailure : ErrorCode::kOutOfMemory,
          stopping_
              ? "the server is stopping"
              : "the queue is full (" + std::to_string(config_.max_queue) + " requests waiting)");
      r.overloaded = true;
      return ready_future(std::move(r));
    }
    p.enqueued = Clock::now();
    queue_.push_back(std::move(p));
  }
  cv_.notify_all();
  return f;
}

void DynamicBatcher::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : workers_)
    if (t.joinable()) t.join();
}

BatcherStats DynamicBatcher::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

std::vector<size_t> DynamicBatcher::gather(int64_t& rows) const {
  std::vector<size_t> picked = {0};
  rows = queue_[0].rows;
  if (config_.max_batch_size <= 0) return picked;
  const Clock::time_point now = Clock::now();
  for (size_t i = 1; i < queue_.size() && rows < config_.max_batch_size; ++i) {
    const Pending& p = queue_[i];
    if (p.key != queue_[0].key || p.deadline <= now) continue;
    if (rows + p.rows > config_.max_batch_size) break;  // FIFO within a key: no overtaking
    picked.push_back(i);
    rows += p.rows;
  }
  return picked;
}

bool DynamicBatcher::ready(int64_t rows, Clock::time_point now) const {
  if (stopping_ || config_.max_batch_size <= 0 || rows >= config_.max_batch_size) return true;
  const auto& pref = config_.preferred_batch_sizes;
  if (std::find(pref.begin(), pref.end(), rows) != pref.end()) return true;
  return now - queue_.front().enqueued >= config_.max_queue_delay;
}

void DynamicBatcher::answer_timeout(Pending& p, Clock::time_point now) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.failures;
  }
  Response r = error_response(
      ErrorCode::kInvalidInput,
      "timed out after " + std::to_string(micros(now - p.enqueued)) + " us in the queue");
  r.timed_out = true;
  p.promise.set_value(std::move(r));
}

void DynamicBatcher::worker(int instance) {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and everything answered
    const Clock::time_point now = Clock::now();
    if (queue_.front().deadline <= now) {
      Pending p = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      answer_timeout(p, now);
      lock.lock();
      continue;
    }
    int64_t rows = 0;
    const std::vector<size_t> picked = gather(rows);
    if (!ready(rows, now)) {
      // Wait for companions, or until the oldest request has waited max_queue_delay; a
      // submit() wakes us to look again.
      cv_.wait_until(lock, queue_.front().enqueued + config_.max_queue_delay);
      continue;
    }
    std::vector<Pending> batch;
    for (size_t i : picked) batch.push_back(std::move(queue_[i]));
    for (auto it = picked.rbegin(); it != picked.rend(); ++it)
      queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(*it));
    lock.unlock();
    execute(instance, std::move(batch), rows);
    lock.lock();
  }
}

void DynamicBatcher::execute(int instance, std::vector<Pending> batch, int64_t rows) {
  const Clock::time_point start = Clock::now();
  // Merged inputs: each input's rows of every request, in request order (dim 0 is
  // outermost, so the bytes simply follow each other).
  std::vector<NamedTensor> merged;
  if (batch.size() == 1) {
    merged = std::move(batch[0].inputs);
  } else {
    for (size_t k = 0; k < batch[0].inputs.size(); ++k) {
      const Tensor& first = batch[0].inputs[k].tensor;
      std::vector<int64_t> dims = first.shape();
      dims[0] = rows;
      Tensor t = Tensor::empty(first.dtype(), dims);
      auto* dst = static_cast<uint8_t*>(t.raw_data());
      for (const Pending& p : batch) {
        const Tensor& src = p.inputs[k].tensor;
        if (src.byte_size()) std::memcpy(dst, src.raw_data(), src.byte_size());
        dst += src.byte_size();
      }
      merged.push_back({batch[0].inputs[k].name, std::move(t)});
    }
  }
  const Clock::time_point merged_at = Clock::now();
  std::vector<Tensor> outs;
  ErrorCode code = ErrorCode::kOk;
  std::string message;
  try {
    outs = run_(instance, merged);
    if (outs.size() != output_names_.size()) {
      code = ErrorCode::kInternal;
      message = "the model returned " + std::to_string(outs.size()) + " outputs, expected " +
                std::to_string(output_names_.size());
    }
    for (size_t o = 0; code == ErrorCode::kOk && batch.size() > 1 && o < outs.size(); ++o)
      if (outs[o].shape().empty() || outs[o].shape()[0] != rows) {
        code = ErrorCode::kInvalidArgument;
        message = "output '" + output_names_[o] + "' does not keep the batch dim (" +
                  outs[o].describe() + " for " + std::to_string(rows) +
                  " rows): set max_batch_size 0 for this model";
      }
  } catch (const Error& e) {
    code = e.code();
    message = e.what();
  } catch (const std::exception& e) {
    code = ErrorCode::kInternal;
    message = e.what();
  }
  const Clock::time_point ran_at = Clock::now();
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.executions;
    if (code == ErrorCode::kOk)
      stats_.requests += static_cast<int64_t>(batch.size());
    else
      stats_.failures += static_cast<int64_t>(batch.size());
  }
  int64_t offset = 0;  // rows before this request
  for (Pending& p : batch) {
    const Clock::time_point split_at = Clock::now();
    Response r;
    r.code = code;
    r.message = message;
    r.queue_us = micros(start - p.enqueued);
    r.compute_input_us = micros(merged_at - start);
    r.compute_infer_us = micros(ran_at - merged_at);
    r.batch_rows = static_cast<int>(rows);
    if (code == ErrorCode::kOk) {
      for (size_t o = 0; o < outs.size(); ++o) {
        if (batch.size() == 1) {
          r.outputs.push_back({output_names_[o], std::move(outs[o])});
          continue;
        }
        std::vector<int64_t> dims = outs[o].shape();
        const size_t row_bytes = dims[0] ? outs[o].byte_size() / static_cast<size_t>(dims[0]) : 0;
        dims[0] = p.rows;
        const auto* src = static_cast<const uint8_t*>(outs[o].raw_data()) +
                          static_cast<size_t>(offset) * row_bytes;
        r.outputs.push_back(
            {output_names_[o], Tensor::from_bytes(outs[o].dtype(), dims, src,
                                                  static_cast<size_t>(p.rows) * row_bytes)});
      }
    }
    offset += p.rows;
    r.compute_output_us = micros(Clock::now() - split_at);
    r.compute_us = r.compute_input_us + r.compute_infer_us + r.compute_output_us;
    p.promise.set_value(std::move(r));
  }
}

}  // namespace amp::serve
