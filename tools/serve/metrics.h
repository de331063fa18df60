// Per-model counters of amp-serve, rendered as Prometheus text (GET /metrics) under the
// names and labels of Triton's metrics, so dashboards built for Triton read them:
//
//   nv_inference_request_success / _failure    requests answered OK / with an error
//   nv_inference_count / nv_inference_exec_count
//                                               requests vs model executions: their ratio
//                                               is how much dynamic batching merged
//   nv_inference_request_duration_us            cumulative, arrival to answer, in the server
//   nv_inference_queue_duration_us              cumulative, waiting in the batcher's queue
//   nv_inference_compute_input_duration_us      cumulative, merging inputs into a batch
//   nv_inference_compute_infer_duration_us      cumulative, running the model
//   nv_inference_compute_output_duration_us     cumulative, splitting outputs per request
//   nv_inference_pending_request_count          gauge: requests in the server now
//
// and AMPRT's own gauges of the model's AMP plan: amp_plan_nodes{precision="low"|"all"},
// amp_plan_casts, amp_plan_low_flops_fraction. Counters are atomics: recording a request
// takes no lock.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace amp::serve {

struct PlanSummary {
  int64_t nodes = 0, nodes_low = 0, casts = 0;
  double low_flops_fraction = 0;
  std::string target;  // "f16", "bf16", "f32"
};

// Reads the summary out of Engine::precision_report_json().
PlanSummary plan_summary_from_report(const std::string& precision_report_json);

struct ModelMetrics {
  std::string model;
  PlanSummary plan;
  std::atomic<int64_t> success{0}, failure{0};
  std::atomic<int64_t> inference_count{0};  // batch rows answered OK
  std::atomic<int64_t> exec_count{0};       // executions those rows took (the batcher's
                                            // count, copied in when the metrics are read)
  std::atomic<int64_t> request_us{0}, queue_us{0}, compute_input_us{0}, compute_infer_us{0},
      compute_output_us{0};
  std::atomic<int64_t> pending{0};
};

// The Prometheus text exposition of every model's metrics.
std::string render_prometheus(const std::vector<const ModelMetrics*>& models);

}  // namespace amp::serve
