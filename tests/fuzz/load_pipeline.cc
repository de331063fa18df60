#include "tests/fuzz/load_pipeline.h"

#include <memory>
#include <vector>

#include "graph/ir/graph.h"
#include "graph/onnx/onnx_importer.h"
#include "graph/ops/shape_inference.h"
#include "graph/passes/amp/amp_planner.h"
#include "graph/passes/amp/precision_report.h"
#include "graph/passes/pipelines.h"
#include "graph/planning/memory_planner.h"
#include "graph/serialize/amp_reader.h"
#include "graph/serialize/amp_writer.h"

namespace amp::fuzz {
namespace {

bool all_static(const graph::Graph& g) {
  for (const graph::Value& v : g.values)
    if (!v.is_constant() && (!v.shape || !v.shape->is_static())) return false;
  return true;
}

// Engine::load after the graph exists: runtime passes, AMP planning, memory planning.
Status load_graph(graph::Graph& g) {
  AMP_RETURN_IF_ERROR(graph::run_runtime_passes(g));
  graph::AmpPolicy policy;
  policy.target = DType::kF16;
  auto has_kernel = [](const graph::Node&, DType) { return true; };
  AMP_ASSIGN_OR_RETURN(graph::AmpReport report, graph::plan_mixed_precision(g, policy, has_kernel));
  (void)graph::precision_report_json(report);
  (void)graph::precision_report_dot(g, report);
  if (all_static(g)) {
    graph::MemoryPlanOptions mopt;
    AMP_ASSIGN_OR_RETURN(graph::MemoryPlan plan, graph::plan_memory(g, mopt));
    (void)plan;
  }
  return Status::ok();
}

Result<graph::Graph> read_amp(std::vector<uint8_t> bytes) {
  return graph::read_amp_bytes(std::make_shared<const std::vector<uint8_t>>(std::move(bytes)));
}

}  // namespace

Status load_amp_untrusted(const uint8_t* data, size_t size) {
  // A fresh heap copy: the reader keeps views into it, and ASan sees reads past its end.
  AMP_ASSIGN_OR_RETURN(graph::Graph g, read_amp(std::vector<uint8_t>(data, data + size)));
  AMP_RETURN_IF_ERROR(graph::infer_shapes(g));
  return load_graph(g);
}

Status load_onnx_untrusted(const uint8_t* data, size_t size) {
  AMP_ASSIGN_OR_RETURN(graph::Graph g, graph::import_onnx_bytes(data, size));
  AMP_RETURN_IF_ERROR(graph::run_conversion_passes(g));
  // amp-convert writes this graph; Engine::load must read it back unchanged.
  Result<std::vector<uint8_t>> image = graph::write_amp_bytes(g);
  if (image.is_ok()) {
    Result<graph::Graph> back = read_amp(std::move(image).value());
    if (!back.is_ok())
      return internal_error("the .amp writer produced a file the reader rejects: " +
                            back.status().to_string());
    if (!(back.value() == g)) return internal_error("the .amp file re-reads as a different graph");
    AMP_RETURN_IF_ERROR(graph::infer_shapes(back.value()));
    return load_graph(back.value());
  }
  if (image.status().code() == ErrorCode::kInternal) return image.status();
  return load_graph(g);
}

}  // namespace amp::fuzz
