#include "runtime/profiler.h"

#include <utility>

namespace amp::runtime {

std::string shape_text(const graph::Shape& shape) {
  if (shape.rank() == 0) return "scalar";
  std::string s;
  for (size_t i = 0; i < shape.rank(); ++i) {
    if (i) s += 'x';
    const graph::Dim& d = shape.dims[i];
    s += d.is_static() ? std::to_string(d.value) : (d.symbol.empty() ? "?" : d.symbol);
  }
  return s;
}

namespace {

std::string dims_text(const graph::Graph& g, graph::ValueId id) {
  if (id == graph::kNoValue) return "-";
  const graph::Value& v = g.value(id);
  return v.shape ? shape_text(*v.shape) : "?";
}

NodeProfile describe(const graph::Graph& g, const graph::Node& n, int depth) {
  NodeProfile p;
  p.name = n.name;
  p.op = graph::op_name(n.op);
  p.depth = depth;
  for (size_t i = 0; i < n.inputs.size(); ++i)
    p.shapes += (i ? " " : "") + dims_text(g, n.inputs[i]);
  p.shapes += " ->";
  for (graph::ValueId o : n.outputs) p.shapes += " " + dims_text(g, o);
  if (!n.outputs.empty() && n.outputs[0] != graph::kNoValue)
    p.dtype = dtype_name(g.value(n.outputs[0]).dtype);
  return p;
}

}  // namespace

void RunProfiler::begin(std::string own_kernels) {
  origin_ = std::chrono::steady_clock::now();
  own_kernels_ = std::move(own_kernels);
  profile_ = RunProfile{};
  depth_ = 0;
}

double RunProfiler::now_ms() const {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - origin_)
      .count();
}

void RunProfiler::add_step(const ExecutionPlan& plan, size_t step, double start_ms, double end_ms) {
  NodeProfile p = describe(plan.graph, plan.graph.nodes[step], depth_);
  p.implementation = plan.steps[step].kernel->implementation();
  if (p.implementation.empty()) p.implementation = own_kernels_;
  p.start_ms = start_ms;
  p.duration_ms = end_ms - start_ms;
  profile_.nodes.push_back(std::move(p));
}

size_t RunProfiler::begin_span(const graph::Node& n) {
  NodeProfile p;
  p.name = n.name;
  p.op = graph::op_name(n.op);
  p.depth = depth_++;
  p.implementation = "runs its bodies";
  p.control_flow = true;
  p.start_ms = now_ms();
  profile_.nodes.push_back(std::move(p));
  return profile_.nodes.size() - 1;
}

void RunProfiler::end_span(size_t span, std::string shapes, DType dtype) {
  --depth_;
  NodeProfile& p = profile_.nodes[span];
  p.duration_ms = now_ms() - p.start_ms;
  p.shapes = std::move(shapes);
  p.dtype = dtype_name(dtype);
}

RunProfile RunProfiler::finish(double total_ms) {
  profile_.total_ms = total_ms;
  return std::move(profile_);
}

}  // namespace amp::runtime
