#include "runtime/execution_plan.h"

#include <algorithm>
#include <functional>

#include "graph/ir/limits.h"
#include "graph/ops/shape_inference.h"
#include "graph/ops/shape_inputs.h"
#include "graph/passes/pipelines.h"
#include "graph/planning/memory_plan_check.h"
#include "kernels/kernel_evaluator.h"
#include "runtime/backend/backend.h"
#include "runtime/backend/cpu_backend.h"
#include "runtime/control_flow.h"
#include "runtime/empty_step.h"
#include "runtime/kernel_reuse.h"
#include "runtime/layout_plan.h"
#include "runtime/node_label.h"
#include "runtime/plan_split.h"
#include "runtime/weight_pages.h"

namespace amp::runtime {
namespace {

using graph::Graph;
using graph::kNoValue;
using graph::Node;
using graph::Value;
using graph::ValueId;

// Sets each graph input's shape to its bound dims. Inference follows in folding, which
// infers every node once, in order, as it goes.
Status bind_inputs(Graph& g, const std::vector<std::vector<int64_t>>& dims) {
  if (dims.size() != g.inputs.size())
    return internal_error("bound " + std::to_string(dims.size()) + " inputs, graph has " +
                          std::to_string(g.inputs.size()));
  for (size_t i = 0; i < dims.size(); ++i)
    g.value(g.inputs[i]).shape = graph::Shape::from_static(dims[i]);
  return Status::ok();
}

// A hostile model or input can make intermediate shapes explode (Expand to a shape read
// from an input, a 1e6 x 1e6 MatMul). Refuse before any kernel is prepared or memory is
// reserved, naming the value: the same per-tensor cap the graph enforces on recorded
// shapes (graph/ir/limits.h), applied to every shape bound for this plan.
Status check_value_sizes(const Graph& g) {
  for (const Value& v : g.values)
    if (!v.is_constant()) AMP_RETURN_IF_ERROR(graph::check_value_size(v));
  return Status::ok();
}

// ExecutionPlan::input_direct and output_direct: the inputs and outputs the memory planner
// put outside the arena (a buffer of their own: a graph output never aliases, runs in place
// or becomes a Concat's part, and graph inputs are only read, but a view or Split part of
// either may lie in its buffer, and then it stays in the arena and is copied). An output
// listed twice is written once, at its first listing; an input passed through is copied
// (ExecutionPlan::output_input names it).
void mark_direct_io(const Graph& g, const graph::MemoryPlan& memory, ExecutionPlan& plan) {
  auto outside = [&](ValueId v) {
    return memory.value_offset[static_cast<size_t>(v)] == graph::kOutsideArena;
  };
  std::vector<char> listed(g.values.size(), 0);  // inputs, and outputs listed before
  plan.input_direct.assign(g.inputs.size(), 0);
  for (size_t k = 0; k < g.inputs.size(); ++k) {
    plan.input_direct[k] = outside(g.inputs[k]);
    listed[static_cast<size_t>(g.inputs[k])] = 1;
  }
  plan.output_direct.assign(g.outputs.size(), 0);
  for (size_t k = 0; k < g.outputs.size(); ++k) {
    const auto i = static_cast<size_t>(g.outputs[k]);
    plan.output_direct[k] = outside(g.outputs[k]) && !listed[i];
    listed[i] = 1;
  }
  std::vector<int32_t> input_at(g.values.size(), -1);
  for (size_t k = 0; k < g.inputs.size(); ++k)
    input_at[static_cast<size_t>(g.inputs[k])] = static_cast<int32_t>(k);
  plan.output_input.assign(g.outputs.size(), -1);
  for (size_t k = 0; k < g.outputs.size(); ++k)
    plan.output_input[k] = input_at[static_cast<size_t>(g.outputs[k])];
}

// Step `i` of the plan, whose outputs `outputs` describes: every one holds zero elements,
// and none is data-dependent (runtime/empty_step.h).
bool writes_nothing(const ExecutionPlan& plan, size_t i,
                    const std::vector<kernels::TensorDesc>& outputs) {
  for (const ExecutionPlan::DynamicOutput& d : plan.dynamic)
    if (d.step == static_cast<int64_t>(i)) return false;
  return kernels::only_empty_outputs(outputs);
}

}  // namespace

Result<std::shared_ptr<const ExecutionPlan>> build_execution_plan(
    const Graph& engine_graph, const PlanKey& key,
    const std::vector<std::optional<graph::TensorData>>& shape_values, const PlanBuildOptions& opt,
    const ExecutionPlan* earlier) {
  auto plan = std::make_shared<ExecutionPlan>();
  plan->key = key;
  plan->graph = graph::copy_for_reinference(engine_graph);  // binding infers it again
  Graph& g = plan->graph;
  if (!shape_values.empty()) AMP_RETURN_IF_ERROR(graph::bind_shape_input_values(g, shape_values));
  AMP_RETURN_IF_ERROR(bind_inputs(g, key.dims));

  // Every CPU kernel folds (not only the graph layer's shape arithmetic), so shapes that
  // the model computes with any op resolve once the inputs are bound; an If whose condition
  // folds is inlined. Folding infers each node as it reaches it, after the nodes before it
  // folded: one inference per node, and each sees the constants folded upstream.
  AMP_RETURN_IF_ERROR(
      graph::run_folding(g, std::make_shared<kernels::KernelEvaluator>(cpu_kernel_registry()),
                         graph::FoldingChecks::kAtTheEnd));
  AMP_ASSIGN_OR_RETURN(std::optional<PlanSplit> split, split_at_data_dependent(g));
  AMP_RETURN_IF_ERROR(check_value_sizes(g));
  if (split) {
    for (const DynamicCut& d : split->dynamic) {
      const std::optional<ValueId> dyn = g.find_value(d.value);
      if (!dyn) return internal_error("the cut value '" + d.value + "' vanished");
      plan->dynamic.push_back({static_cast<int64_t>(d.step), *dyn, d.dim.axis});
    }
    auto cont = std::make_shared<Continuation>();
    if (split->control) {
      AMP_ASSIGN_OR_RETURN(cont->control, make_control_flow_step(*split, split->rest, opt));
    }
    cont->shape_inputs = graph::shape_determining_inputs(split->rest);
    cont->rest = std::move(split->rest);
    cont->options = opt;
    plan->continuation = std::move(cont);
  }

  // Kernels.
  const std::vector<char> conv_layout =
      opt.backend->kind() == kernels::Backend::kCpu && !opt.plain_layouts
          ? plan_conv_layouts(
                g, [&](DType t) { return opt.backend->conv_layout_dtype(t); },
                [&](const std::vector<int64_t>& dims) {
                  return opt.backend->conv_layout_blocked8(dims);
                })
          : std::vector<char>(g.values.size(), 0);
  auto describe = [&](ValueId v) {
    kernels::TensorDesc d = kernels::describe_value(g, v);
    d.conv_layout = v != kNoValue && conv_layout[static_cast<size_t>(v)];
    return d;
  };
  // A node that scales a conv-layout tensor per channel computes on physical dims
  // (runtime/layout_plan.h): its kernel sees plain tensors of those dims.
  auto physical = [&](const Node& n, std::vector<kernels::TensorDesc>& descs) {
    const ValueId out = n.outputs.empty() ? kNoValue : n.outputs[0];
    if (out == kNoValue || !conv_layout[static_cast<size_t>(out)] ||
        channel_operand(g, n, [&](DType t) { return opt.backend->conv_layout_dtype(t); }) < 0)
      return;
    const std::vector<int64_t> logical = g.value(out).shape->static_dims();
    const bool blocked8 = opt.backend->conv_layout_blocked8(logical);
    for (kernels::TensorDesc& d : descs) {
      d.dims = physical_conv_dims(d.dims, logical.size(), blocked8);
      d.conv_layout = false;
    }
  };
  // How many inputs read each value: a weight two nodes share (a tied embedding that a
  // Gather reads at run time and a MatMul packs) is left to the engine's pass over whole
  // plans (runtime/weight_pages.h), which keeps what any run() reads.
  std::vector<int> reads(g.values.size(), 0);
  for (const Node& n : g.nodes)
    for (ValueId v : n.inputs)
      if (v != kNoValue) ++reads[static_cast<size_t>(v)];
  const KernelReuse reuse(earlier);
  reuse.share_equal_constants(g);
  plan->steps.resize(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    const DType kd = kernels::kernel_dtype(g, n);
    const kernels::Backend kind = opt.backend->kind();
    const kernels::KernelDef* def = opt.backend->registry().find(n.op, kind, kd);
    if (!def)
      return unsupported(node_label(n) + ": no " + kernels::backend_name(kind) +
                         " kernel for dtype " + std::string(dtype_name(kd)));
    kernels::KernelConfig cfg;
    cfg.node = &n;
    cfg.num_threads = opt.threads;
    cfg.backend_handle = opt.backend->kernel_handle();
    for (ValueId v : n.inputs) cfg.inputs.push_back(describe(v));
    for (ValueId v : n.outputs) {
      if (v != kNoValue && (!g.value(v).shape || !g.value(v).shape->is_static()))
        return internal_error(node_label(n) + ": output '" + g.value(v).name +
                              "' has no static shape after binding");
      cfg.outputs.push_back(describe(v));
    }
    physical(n, cfg.inputs);
    physical(n, cfg.outputs);
    PlanStep& step = plan->steps[i];
    step.kernel = writes_nothing(*plan, i, cfg.outputs) ? std::make_shared<EmptyOutputsKernel>()
                                                        : reuse.find(n, cfg);
    if (!step.kernel) {
      step.kernel = def->create();
      if (Status s = step.kernel->prepare(cfg); !s.is_ok()) return s.with_context(node_label(n));
      // A weight the kernel now holds in a form of its own, and that no other node reads,
      // goes back to the OS at once, so that a load never holds every weight twice
      // (runtime/weight_pages.h). A reused kernel's went back when it was prepared.
      if (opt.weights_file)
        for (size_t k : step.kernel->replaced_constant_inputs())
          if (k < cfg.inputs.size() && cfg.inputs[k].constant_data != nullptr &&
              reads[static_cast<size_t>(n.inputs[k])] == 1)
            drop_constant_pages(*opt.weights_file, cfg.inputs[k].constant_data,
                                cfg.inputs[k].bytes());
    }
    step.prepared_inputs = std::move(cfg.inputs);
    step.prepared_outputs = std::move(cfg.outputs);
    step.prepared_threads = cfg.num_threads;
    step.inputs = n.inputs;
    step.outputs = n.outputs;
    step.in_place_input = def->in_place_input;
    for (ValueId v : n.outputs)
      if (v != kNoValue && is_low_float(g.value(v).dtype)) step.low_precision = true;
    plan->max_step_inputs = std::max(plan->max_step_inputs, n.inputs.size());
    plan->max_step_outputs = std::max(plan->max_step_outputs, n.outputs.size());
  }

  // Memory.
  graph::MemoryPlanOptions mopt = kernel_memory_options(*plan, opt.backend->alignment());
  // The executor keeps graph inputs and outputs in memory of their own, but for a
  // data-dependent output, written at its bound and returned at its real size: a copy.
  if (opt.backend->keeps_io_outside_arena())
    mopt.outside_arena = [&dynamic = plan->dynamic](ValueId v) {
      for (const ExecutionPlan::DynamicOutput& d : dynamic)
        if (v == d.value) return false;
      return true;
    };
  AMP_ASSIGN_OR_RETURN(plan->memory, graph::plan_memory(g, mopt));
  // Every plan is checked by simulating its kernels on tags (graph/planning/
  // memory_plan_check.h), so a planner bug is an error naming the value it would corrupt,
  // not a wrong answer. It takes about 0.1 ms for a 120-node detector, under 0.5% of a load;
  // a graph of Concats nested too deep to check within the budget runs unchecked (false).
  const Result<bool> checked = graph::check_memory_plan(g, plan->memory, mopt);
  if (!checked.is_ok()) return checked.status();
  for (size_t i = 0; i < plan->steps.size(); ++i)
    plan->steps[i].workspace_offset = plan->memory.workspace_offset[i];

  plan->values.resize(g.values.size());
  for (size_t i = 0; i < g.values.size(); ++i) {
    if (g.values[i].is_constant())
      plan->values[i].host_constant = g.values[i].constant->bytes();
    else
      plan->values[i].offset = plan->memory.value_offset[i];
  }
  mark_direct_io(g, plan->memory, *plan);
  AMP_RETURN_IF_ERROR(opt.backend->place_constants(*plan));
  if (opt.weights_file) plan->weight_reads = weight_ranges_read(*opt.weights_file, *plan);
  return std::shared_ptr<const ExecutionPlan>(std::move(plan));
}

graph::MemoryPlanOptions kernel_memory_options(const ExecutionPlan& plan, size_t alignment) {
  const ExecutionPlan* p = &plan;
  auto step = [p](const Node& n) -> const PlanStep& {
    return p->steps[static_cast<size_t>(&n - p->graph.nodes.data())];
  };
  graph::MemoryPlanOptions mopt;
  mopt.alignment = alignment;
  mopt.in_place_input = [step](const Node& n) { return step(n).in_place_input; };
  mopt.workspace_bytes = [p](graph::NodeId id) {
    return p->steps[static_cast<size_t>(id)].kernel->workspace_bytes();
  };
  mopt.part_offsets = [step](const Node& n) { return step(n).kernel->part_offsets(); };
  return mopt;
}

Result<PlanKey> plan_key_for(const std::vector<const Tensor*>& inputs,
                             const std::vector<size_t>& shape_inputs,
                             std::vector<std::optional<graph::TensorData>>& values) {
  PlanKey key;
  key.dims.reserve(inputs.size());
  for (const Tensor* t : inputs) key.dims.push_back(t->shape());
  values.clear();
  if (shape_inputs.empty()) return key;
  values.resize(inputs.size());
  for (size_t k : shape_inputs) {
    const Tensor* t = inputs[k];
    const auto* p = static_cast<const uint8_t*>(t->raw_data());
    std::vector<uint8_t> bytes(p, p + t->byte_size());
    key.shape_values.push_back(bytes);
    AMP_ASSIGN_OR_RETURN(values[k],
                         graph::TensorData::from_bytes(t->dtype(), t->shape(), std::move(bytes)));
  }
  return key;
}

Result<std::shared_ptr<const ExecutionPlan>> continuation_plan(
    const Continuation& c, const PlanKey& key,
    const std::vector<std::optional<graph::TensorData>>& shape_values) {
  std::lock_guard<std::mutex> lock(c.mu);
  if (auto it = c.plans.find(key); it != c.plans.end()) return it->second;
  const std::shared_ptr<const ExecutionPlan> earlier = c.last_built.lock();
  AMP_ASSIGN_OR_RETURN(auto plan,
                       build_execution_plan(c.rest, key, shape_values, c.options, earlier.get()));
  c.last_built = plan;
  // Bounded like the engine's cache: a detector sees many counts; drop the oldest-keyed.
  if (c.plans.size() >= 16) c.plans.erase(c.plans.begin());
  c.plans[key] = plan;
  return plan;
}

void for_each_plan(const ExecutionPlan& plan,
                   const std::function<void(const ExecutionPlan&)>& visit) {
  visit(plan);
  const Continuation* c = plan.continuation.get();
  if (c == nullptr) return;
  auto walk_cache = [&visit](const Continuation& cont) {
    std::lock_guard<std::mutex> lock(cont.mu);
    for (const auto& [key, p] : cont.plans) for_each_plan(*p, visit);
  };
  if (c->control)
    for (const auto& body : c->control->bodies) walk_cache(*body);
  walk_cache(*c);
}

void collect_held_constants(const ExecutionPlan& plan, std::vector<kernels::HeldConstant>& out) {
  for_each_plan(plan, [&out](const ExecutionPlan& p) {
    for (const PlanStep& step : p.steps) step.kernel->held_constants(out);
  });
}

size_t held_bytes(std::vector<kernels::HeldConstant> held) {
  std::sort(held.begin(), held.end(),
            [](const kernels::HeldConstant& a, const kernels::HeldConstant& b) {
              return std::less<const void*>()(a.id, b.id);
            });
  size_t bytes = 0;
  for (size_t i = 0; i < held.size(); ++i)
    if (i == 0 || held[i].id != held[i - 1].id) bytes += held[i].bytes;
  return bytes;
}

}  // namespace amp::runtime
