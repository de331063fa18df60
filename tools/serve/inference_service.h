// InferenceService: the protocol-neutral core of amp-serve. It owns the served models (each
// an Engine, its contexts and its dynamic batcher), runs requests that a frontend (REST or
// gRPC) parsed, keeps each model's metrics, and knows whether the server is ready.
//
// A request's life: the frontend names the model and hands a parse function; the service
// finds the model (404 if unknown), parses and checks the request against the model's
// inputs (400), queues it with its deadline (503 when the queue is full, 504 when the
// deadline passes in the queue), waits for its batch, and returns the requested outputs.
// Every outcome is counted in the model's metrics.
//
// Shutdown (SIGTERM) is two steps so no accepted request is lost: begin_shutdown() makes
// the server not ready and refuses new requests (503 "shutting down") while requests already
// inside keep going; the frontends then stop (waiting for their handlers), and stop() drains
// and joins the batchers.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tools/serve/infer_request.h"
#include "tools/serve/metrics.h"
#include "tools/serve/model_repository.h"

namespace amp::serve {

struct ServiceOptions {
  // Used when a request has no "timeout" parameter; 0: none.
  std::chrono::microseconds default_timeout{0};
};

struct InferResult {
  std::string model, id;
  std::vector<NamedTensor> outputs;  // requested ones, in request order (all: model order)
  std::vector<bool> binary;          // per output: REST binary data
};

class InferenceService {
 public:
  // Loads every model; throws amp::Error naming the model that failed.
  InferenceService(const std::vector<ModelConfig>& models, ServiceOptions options,
                   const std::function<void(const std::string&)>& log = nullptr);
  ~InferenceService();  // stop()

  bool ready() const { return !shutting_down_.load(); }
  std::vector<std::string> model_names() const;
  // The model, or ServeError kNotFound. `version`: "" or "1" (each model has one version).
  const ServedModel& model(const std::string& name, const std::string& version = "") const;

  using ParseFn = std::function<InferRequest(const ServedModel&)>;
  // Runs one request; throws ServeError.
  InferResult infer(const std::string& model, const std::string& version, const ParseFn& parse);

  std::string metrics_text() const;
  // Requests answered OK since start, all models.
  int64_t answered() const { return answered_.load(); }

  void begin_shutdown() { shutting_down_ = true; }
  void stop();  // drains every batcher; idempotent

 private:
  struct Entry {
    std::unique_ptr<ServedModel> model;
    std::unique_ptr<ModelMetrics> metrics;
  };
  const Entry& entry(const std::string& name, const std::string& version) const;
  InferResult run(const Entry& e, InferRequest request);

  ServiceOptions options_;
  std::map<std::string, Entry> models_;
  std::atomic<bool> shutting_down_{false};
  std::atomic<int64_t> answered_{0};
};

}  // namespace amp::serve
