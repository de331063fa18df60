#include "tools/serve/inference_service.h"

#include <algorithm>

#include "tools/serve/serve_error.h"

namespace amp::serve {
namespace {

int64_t micros_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t)
      .count();
}

// Counts the request as pending while it is inside the service.
struct PendingGuard {
  std::atomic<int64_t>& n;
  explicit PendingGuard(std::atomic<int64_t>& c) : n(c) { ++n; }
  ~PendingGuard() { --n; }
};

}  // namespace

InferenceService::InferenceService(const std::vector<ModelConfig>& models, ServiceOptions options,
                                   const std::function<void(const std::string&)>& log)
    : options_(options) {
  for (const ModelConfig& c : models) {
    Entry e;
    try {
      e.model = std::make_unique<ServedModel>(c);
    } catch (const Error& err) {
      throw Error(err.code(), "model '" + c.name + "' (" + c.model_path + "): " + err.message());
    }
    e.metrics = std::make_unique<ModelMetrics>();
    e.metrics->model = c.name;
    e.metrics->plan = plan_summary_from_report(e.model->engine().precision_report_json());
    if (e.metrics->plan.target.empty()) {  // an fp32 engine has no AMP report ("{}")
      const std::string nodes = e.model->engine().plan_summary();  // one line per node
      e.metrics->plan.target = "f32";
      e.metrics->plan.nodes = std::count(nodes.begin(), nodes.end(), '\n');
    }
    if (log) {
      const ModelConfig& eff = e.model->config();
      std::string line = "model '" + c.name + "': " + std::to_string(e.metrics->plan.nodes) +
                         " nodes, " + std::to_string(e.metrics->plan.nodes_low) + " in " +
                         e.metrics->plan.target + ", " + std::to_string(e.metrics->plan.casts) +
                         " casts; " + std::to_string(eff.batching.instances) +
                         " instance(s), max_batch_size " +
                         std::to_string(eff.batching.max_batch_size);
      if (!e.model->note().empty()) line += " (" + e.model->note() + ")";
      log(line);
    }
    models_.emplace(c.name, std::move(e));
  }
}

InferenceService::~InferenceService() {
  stop();
}

std::vector<std::string> InferenceService::model_names() const {
  std::vector<std::string> names;
  for (const auto& [name, e] : models_) names.push_back(name);
  return names;
}

const InferenceService::Entry& InferenceService::entry(const std::string& name,
                                                       const std::string& version) const {
  auto it = models_.find(name);
  if (it == models_.end()) throw ServeError(ServeStatus::kNotFound, "unknown model '" + name + "'");
  if (!version.empty() && version != "1")
    throw ServeError(ServeStatus::kNotFound,
                     "model '" + name + "' has no version '" + version + "' (only \"1\")");
  return it->second;
}

const ServedModel& InferenceService::model(const std::string& name,
                                           const std::string& version) const {
  return *entry(name, version).model;
}

InferResult InferenceService::infer(const std::string& model, const std::string& version,
                                    const ParseFn& parse) {
  const Entry& e = entry(model, version);
  const auto start = std::chrono::steady_clock::now();
  PendingGuard pending(e.metrics->pending);
  try {
    if (shutting_down_) throw ServeError(ServeStatus::kUnavailable, "the server is shutting down");
    InferRequest request = parse(*e.model);
    request.model = model;
    check_request(request, e.model->engine().inputs(), e.model->engine().outputs());
    InferResult result = run(e, std::move(request));
    e.metrics->request_us += micros_since(start);
    ++e.metrics->success;
    ++answered_;
    return result;
  } catch (const ServeError&) {
    ++e.metrics->failure;
    e.metrics->request_us += micros_since(start);
    throw;
  } catch (const Error& err) {
    ++e.metrics->failure;
    throw ServeError(serve_status_of(err.code()), err.message());
  }
}

InferResult InferenceService::run(const Entry& e, InferRequest request) {
  const auto now = std::chrono::steady_clock::now();
  Clock::time_point deadline = Clock::time_point::max();
  // Capped at a year: a client's huge timeout must not overflow the clock's nanoseconds.
  constexpr int64_t kMaxTimeoutUs = int64_t{365} * 24 * 3600 * 1000000;
  const int64_t timeout_us =
      std::min(request.timeout_us.value_or(options_.default_timeout.count()), kMaxTimeoutUs);
  if (timeout_us > 0) deadline = now + std::chrono::microseconds(timeout_us);

  // Inferences, as Triton counts them: a request of n batch rows is n.
  int64_t rows = 1;
  if (e.model->config().batching.max_batch_size > 0 && !request.inputs.empty() &&
      !request.inputs[0].tensor.shape().empty())
    rows = request.inputs[0].tensor.shape()[0];
  Response r = e.model->batcher().submit(std::move(request.inputs), deadline).get();
  if (r.overloaded)
    throw ServeError(ServeStatus::kOverloaded, "model '" + request.model + "': " + r.message);
  if (r.timed_out)
    throw ServeError(ServeStatus::kTimeout, "model '" + request.model + "': " + r.message);
  if (r.code != ErrorCode::kOk)
    throw ServeError(serve_status_of(r.code), "model '" + request.model + "': " + r.message);

  ModelMetrics& m = *e.metrics;
  m.queue_us += r.queue_us;
  m.compute_input_us += r.compute_input_us;
  m.compute_infer_us += r.compute_infer_us;
  m.compute_output_us += r.compute_output_us;
  m.inference_count += rows;

  InferResult result;
  result.model = request.model;
  result.id = request.id;
  if (request.outputs.empty()) {
    for (NamedTensor& o : r.outputs) {
      result.outputs.push_back(std::move(o));
      result.binary.push_back(request.binary_outputs);
    }
    return result;
  }
  for (const RequestedOutput& want : request.outputs)
    for (NamedTensor& o : r.outputs)
      if (o.name == want.name) {
        result.outputs.push_back(o);
        result.binary.push_back(want.binary);
      }
  return result;
}

std::string InferenceService::metrics_text() const {
  std::vector<const ModelMetrics*> all;
  for (const auto& [name, e] : models_) {
    // Executions are the batcher's count, read when asked for rather than on every request.
    e.metrics->exec_count = e.model->batcher().stats().executions;
    all.push_back(e.metrics.get());
  }
  return render_prometheus(all);
}

void InferenceService::stop() {
  shutting_down_ = true;
  for (auto& [name, e] : models_) e.model->batcher().stop();
}

}  // namespace amp::serve
