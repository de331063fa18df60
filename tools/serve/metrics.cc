#include "tools/serve/metrics.h"

#include <nlohmann/json.hpp>
#include <sstream>

namespace amp::serve {

PlanSummary plan_summary_from_report(const std::string& precision_report_json) {
  PlanSummary s;
  const nlohmann::json j = nlohmann::json::parse(precision_report_json, nullptr, false);
  if (!j.is_object()) return s;
  s.nodes = j.value("nodes", int64_t{0});
  s.nodes_low = j.value("nodes_low", int64_t{0});
  s.casts = j.value("casts", int64_t{0});
  s.low_flops_fraction = j.value("low_flops_fraction", 0.0);
  s.target = j.value("target", std::string());
  return s;
}

namespace {

struct Family {
  const char* name;
  const char* type;
  const char* help;
  std::atomic<int64_t> ModelMetrics::*field;
};

constexpr Family kFamilies[] = {
    {"nv_inference_request_success", "counter", "Number of successful inference requests",
     &ModelMetrics::success},
    {"nv_inference_request_failure", "counter", "Number of failed inference requests",
     &ModelMetrics::failure},
    {"nv_inference_count", "counter", "Number of inferences performed (a batch of n counts n)",
     &ModelMetrics::inference_count},
    {"nv_inference_exec_count", "counter",
     "Number of model executions performed (a batch counts once)", &ModelMetrics::exec_count},
    {"nv_inference_request_duration_us", "counter",
     "Cumulative inference request duration in microseconds", &ModelMetrics::request_us},
    {"nv_inference_queue_duration_us", "counter",
     "Cumulative inference queuing duration in microseconds", &ModelMetrics::queue_us},
    {"nv_inference_compute_input_duration_us", "counter",
     "Cumulative compute input duration in microseconds", &ModelMetrics::compute_input_us},
    {"nv_inference_compute_infer_duration_us", "counter",
     "Cumulative compute inference duration in microseconds", &ModelMetrics::compute_infer_us},
    {"nv_inference_compute_output_duration_us", "counter",
     "Cumulative inference compute output duration in microseconds",
     &ModelMetrics::compute_output_us},
    {"nv_inference_pending_request_count", "gauge",
     "Instantaneous number of pending requests awaiting execution", &ModelMetrics::pending},
};

std::string labels(const ModelMetrics& m, const std::string& extra = "") {
  return "{model=\"" + m.model + "\",version=\"1\"" + extra + "}";
}

}  // namespace

std::string render_prometheus(const std::vector<const ModelMetrics*>& models) {
  std::ostringstream out;
  for (const Family& f : kFamilies) {
    out << "# HELP " << f.name << " " << f.help << "\n# TYPE " << f.name << " " << f.type << "\n";
    for (const ModelMetrics* m : models)
      out << f.name << labels(*m) << " " << (m->*f.field).load(std::memory_order_relaxed) << "\n";
  }
  out << "# HELP amp_plan_nodes Nodes of the model's AMP plan, all and in low precision\n"
         "# TYPE amp_plan_nodes gauge\n";
  for (const ModelMetrics* m : models) {
    out << "amp_plan_nodes" << labels(*m, ",precision=\"all\"") << " " << m->plan.nodes << "\n";
    out << "amp_plan_nodes" << labels(*m, ",precision=\"low\"") << " " << m->plan.nodes_low << "\n";
  }
  out << "# HELP amp_plan_casts Casts the AMP plan inserted\n# TYPE amp_plan_casts gauge\n";
  for (const ModelMetrics* m : models)
    out << "amp_plan_casts" << labels(*m) << " " << m->plan.casts << "\n";
  out << "# HELP amp_plan_low_flops_fraction Fraction of the model's FLOPs run in fp16/bf16\n"
         "# TYPE amp_plan_low_flops_fraction gauge\n";
  for (const ModelMetrics* m : models)
    out << "amp_plan_low_flops_fraction" << labels(*m, ",target=\"" + m->plan.target + "\"") << " "
        << m->plan.low_flops_fraction << "\n";
  return out.str();
}

}  // namespace amp::serve
