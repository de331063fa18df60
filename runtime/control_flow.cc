#include "runtime/control_flow.h"

#include <cstring>

#include "graph/ops/shape_inputs.h"
#include "runtime/node_label.h"

namespace amp::runtime {
namespace {

using graph::Graph;

int64_t product(const std::vector<int64_t>& dims, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to; ++i) p *= dims[i];
  return p;
}

// Step `index` of `t` along `axis` (that dim removed).
Tensor slice_axis(const Tensor& t, size_t axis, int64_t index) {
  std::vector<int64_t> dims = t.shape();
  const int64_t len = dims[axis];
  const size_t elem = dtype_size(t.dtype());
  const int64_t outer = product(dims, 0, axis);
  const size_t inner = static_cast<size_t>(product(dims, axis + 1, dims.size())) * elem;
  dims.erase(dims.begin() + static_cast<std::ptrdiff_t>(axis));
  Tensor out = Tensor::empty(t.dtype(), dims);
  const auto* src = static_cast<const uint8_t*>(t.raw_data());
  auto* dst = static_cast<uint8_t*>(out.raw_data());
  for (int64_t o = 0; o < outer && inner; ++o)
    std::memcpy(dst + static_cast<size_t>(o) * inner,
                src + static_cast<size_t>(o * len + index) * inner, inner);
  return out;
}

// Stacks `parts` (one shape) along a new `axis`, part k at position positions[k], in a tensor
// of `count` steps (positions not written stay zero).
Result<Tensor> stack_axis(const std::vector<Tensor>& parts, const std::vector<int64_t>& positions,
                          size_t axis, int64_t count, const std::string& what) {
  std::vector<int64_t> dims = parts.front().shape();
  for (const Tensor& p : parts)
    if (p.shape() != dims || p.dtype() != parts.front().dtype())
      return invalid_input(what + " changes shape between iterations (" + parts.front().describe() +
                           ", then " + p.describe() + "); stacked outputs need one shape");
  const size_t elem = dtype_size(parts.front().dtype());
  const int64_t outer = product(dims, 0, axis);
  const size_t inner = static_cast<size_t>(product(dims, axis, dims.size())) * elem;
  dims.insert(dims.begin() + static_cast<std::ptrdiff_t>(axis), count);
  Tensor out = Tensor::empty(parts.front().dtype(), dims);
  auto* dst = static_cast<uint8_t*>(out.raw_data());
  for (size_t k = 0; k < parts.size(); ++k) {
    const auto* src = static_cast<const uint8_t*>(parts[k].raw_data());
    for (int64_t o = 0; o < outer && inner; ++o)
      std::memcpy(dst + static_cast<size_t>(o * count + positions[k]) * inner,
                  src + static_cast<size_t>(o) * inner, inner);
  }
  return out;
}

Tensor copy_of(const Tensor& t) {
  return Tensor::from_bytes(t.dtype(), t.shape(), t.raw_data(), t.byte_size());
}

// An output stacked over zero iterations: [0] + the body output's static dims, when known.
Tensor empty_stack(const Graph& body, size_t body_output, size_t axis) {
  const graph::Value& v = body.value(body.outputs[body_output]);
  std::vector<int64_t> dims;
  if (v.shape && v.shape->is_static()) dims = v.shape->static_dims();
  dims.insert(dims.begin() + static_cast<std::ptrdiff_t>(std::min(axis, dims.size())), 0);
  return Tensor::empty(v.dtype, dims);
}

Result<int64_t> scalar_i64(const Tensor* t, const std::string& what) {
  if (t->numel() != 1 || t->dtype() != DType::kI64)
    return invalid_input(what + " must be one i64, got " + t->describe());
  int64_t v;
  std::memcpy(&v, t->raw_data(), sizeof v);
  return v;
}

Result<bool> scalar_bool(const Tensor& t, const std::string& what) {
  if (t.numel() != 1 || t.dtype() != DType::kBool)
    return invalid_input(what + " must be one bool, got " + t.describe());
  return *static_cast<const uint8_t*>(t.raw_data()) != 0;
}

// The node's inputs as tensors: stage entries, constant views, nullptr when absent.
std::vector<const Tensor*> node_inputs(const ControlFlowStep& s, const std::vector<Tensor>& stage) {
  std::vector<const Tensor*> in(s.input_stage.size(), nullptr);
  for (size_t i = 0; i < in.size(); ++i) {
    if (s.input_stage[i] >= 0)
      in[i] = &stage[static_cast<size_t>(s.input_stage[i])];
    else if (s.constant_inputs[i].defined())
      in[i] = &s.constant_inputs[i];
  }
  return in;
}

// The captures a body still takes as inputs (constant ones were folded into it).
void append_captures(const ControlFlowStep& s, const std::vector<const Tensor*>& in,
                     std::vector<const Tensor*>& body_in) {
  const size_t first = in.size() - s.layout.captures;
  for (size_t k = 0; k < s.layout.captures; ++k)
    if (!s.capture_is_constant[k]) body_in.push_back(in[first + k]);
}

std::string branch_name(bool cond) {
  return cond ? "then_branch" : "else_branch";
}

Result<std::vector<Tensor>> run_if(const ControlFlowStep& s, const std::vector<const Tensor*>& in,
                                   Executor& ex, const RunConfig& cfg) {
  AMP_ASSIGN_OR_RETURN(bool cond, scalar_bool(*in[0], "the condition"));
  std::vector<const Tensor*> body_in;
  append_captures(s, in, body_in);
  Result<std::vector<Tensor>> outs = run_graph(*s.bodies[cond ? 0 : 1], body_in, ex, cfg);
  // The model loaded, so both branches fit some shapes; one the inputs' values chose that does
  // not fit their shapes (Silero VAD's 8 kHz branch given a 16 kHz chunk) is the inputs' fault.
  if (!outs.is_ok() && outs.status().code() == ErrorCode::kInvalidModel)
    return invalid_input(branch_name(cond) +
                         ", chosen by the condition, does not fit the values it receives: " +
                         outs.status().message());
  return outs;
}

Result<std::vector<Tensor>> run_loop(const ControlFlowStep& s, const std::vector<const Tensor*>& in,
                                     Executor& ex, const RunConfig& cfg) {
  const graph::ControlFlowLayout& l = s.layout;
  std::optional<int64_t> trips;
  if (in[0]) {
    AMP_ASSIGN_OR_RETURN(trips, scalar_i64(in[0], "the trip count M"));
  }
  bool cond = true;
  if (in[1]) {
    AMP_ASSIGN_OR_RETURN(cond, scalar_bool(*in[1], "the initial condition"));
  }
  std::vector<Tensor> carried;
  for (size_t k = 0; k < l.carried; ++k) carried.push_back(copy_of(*in[2 + k]));
  std::vector<std::vector<Tensor>> scans(l.scan_outputs);
  const Graph& body = s.bodies[0]->rest;
  int64_t iter = 0;
  for (; (!trips || iter < *trips) && cond; ++iter) {
    if (iter >= kMaxLoopIterations)
      return invalid_input("ran " + std::to_string(kMaxLoopIterations) +
                           " iterations without its condition turning false (the most allowed)");
    const uint8_t running = 1;  // the body runs only while the condition holds
    const Tensor iter_t = Tensor::from_bytes(DType::kI64, {}, &iter, sizeof iter);
    const Tensor cond_t = Tensor::from_bytes(DType::kBool, {}, &running, 1);
    std::vector<const Tensor*> body_in = {&iter_t, &cond_t};
    for (const Tensor& t : carried) body_in.push_back(&t);
    append_captures(s, in, body_in);
    AMP_ASSIGN_OR_RETURN(std::vector<Tensor> outs, run_graph(*s.bodies[0], body_in, ex, cfg));
    AMP_ASSIGN_OR_RETURN(cond, scalar_bool(outs[0], "the body's condition output"));
    for (size_t k = 0; k < l.carried; ++k) carried[k] = std::move(outs[1 + k]);
    for (size_t k = 0; k < l.scan_outputs; ++k)
      scans[k].push_back(std::move(outs[1 + l.carried + k]));
  }
  std::vector<Tensor> result = std::move(carried);
  for (size_t k = 0; k < l.scan_outputs; ++k) {
    if (scans[k].empty()) {
      result.push_back(empty_stack(body, 1 + l.carried + k, 0));
      continue;
    }
    std::vector<int64_t> positions(scans[k].size());
    for (size_t t = 0; t < positions.size(); ++t) positions[t] = static_cast<int64_t>(t);
    AMP_ASSIGN_OR_RETURN(Tensor stacked, stack_axis(scans[k], positions, 0, iter,
                                                    "scan output " + std::to_string(k)));
    result.push_back(std::move(stacked));
  }
  return result;
}

// One Scan over `states` and `xs` (scan inputs with their sequence axes), `length` steps of a
// sequence of `max_length`; returns the final states and the stacked outputs.
Result<std::vector<Tensor>> scan_sequence(const ControlFlowStep& s, std::vector<Tensor> states,
                                          const std::vector<const Tensor*>& xs,
                                          const std::vector<size_t>& x_axes,
                                          const std::vector<const Tensor*>& in, int64_t length,
                                          int64_t max_length, Executor& ex, const RunConfig& cfg) {
  const graph::ControlFlowLayout& l = s.layout;
  const graph::ControlFlowAttrs& a = s.attrs;
  std::vector<std::vector<Tensor>> ys(l.scan_outputs);
  std::vector<std::vector<int64_t>> positions(l.scan_outputs);
  for (int64_t t = 0; t < length; ++t) {
    std::vector<Tensor> slices;
    slices.reserve(xs.size());
    for (size_t j = 0; j < xs.size(); ++j) {
      const int64_t index = a.scan_input_directions[j] ? length - 1 - t : t;
      slices.push_back(slice_axis(*xs[j], x_axes[j], index));
    }
    std::vector<const Tensor*> body_in;
    for (const Tensor& st : states) body_in.push_back(&st);
    for (const Tensor& x : slices) body_in.push_back(&x);
    append_captures(s, in, body_in);
    AMP_ASSIGN_OR_RETURN(std::vector<Tensor> outs, run_graph(*s.bodies[0], body_in, ex, cfg));
    for (size_t k = 0; k < l.carried; ++k) states[k] = std::move(outs[k]);
    for (size_t k = 0; k < l.scan_outputs; ++k) {
      ys[k].push_back(std::move(outs[l.carried + k]));
      positions[k].push_back(a.scan_output_directions[k] ? length - 1 - t : t);
    }
  }
  std::vector<Tensor> result = std::move(states);
  const Graph& body = s.bodies[0]->rest;
  for (size_t k = 0; k < l.scan_outputs; ++k) {
    const size_t axis = l.scan8 ? 0 : static_cast<size_t>(a.scan_output_axes[k]);
    if (ys[k].empty()) {
      result.push_back(empty_stack(body, l.carried + k, axis));
      continue;
    }
    AMP_ASSIGN_OR_RETURN(Tensor y, stack_axis(ys[k], positions[k], axis, max_length,
                                              "scan output " + std::to_string(k)));
    result.push_back(std::move(y));
  }
  return result;
}

Result<std::vector<Tensor>> run_scan(const ControlFlowStep& s, const std::vector<const Tensor*>& in,
                                     Executor& ex, const RunConfig& cfg) {
  const graph::ControlFlowLayout& l = s.layout;
  const size_t first_x = l.first_carried + l.carried;
  if (!l.scan8) {
    std::vector<Tensor> states;
    for (size_t k = 0; k < l.carried; ++k) states.push_back(copy_of(*in[l.first_carried + k]));
    std::vector<const Tensor*> xs(
        in.begin() + static_cast<std::ptrdiff_t>(first_x),
        in.begin() + static_cast<std::ptrdiff_t>(first_x + l.scan_inputs));
    std::vector<size_t> axes;
    int64_t length = -1;
    for (size_t j = 0; j < xs.size(); ++j) {
      axes.push_back(static_cast<size_t>(s.attrs.scan_input_axes[j]));
      const int64_t len = xs[j]->shape()[axes.back()];
      if (length >= 0 && len != length)
        return invalid_input("scan inputs have sequence lengths " + std::to_string(length) +
                             " and " + std::to_string(len));
      length = len;
    }
    return scan_sequence(s, std::move(states), xs, axes, in, length, length, ex, cfg);
  }
  // Opset 8: [batch, sequence, ...] scan inputs and [batch, ...] states, one batch entry at a
  // time; sequence_lens (input 0) shortens an entry's sequence.
  const int64_t batch = in[first_x]->shape()[0];
  const int64_t max_length = in[first_x]->shape()[1];
  // Each state and scan input is sliced at every batch entry (inference checks this too;
  // the slices below would read past a smaller tensor).
  for (size_t k = 0; k < l.carried + l.scan_inputs; ++k) {
    const Tensor& t = *in[l.first_carried + k];
    const bool scan = k >= l.carried;
    if (t.shape().size() < (scan ? 2u : 1u) || t.shape()[0] != batch ||
        (scan && t.shape()[1] != max_length))
      return invalid_input(std::string(scan ? "scan input " : "state ") +
                           std::to_string(scan ? k - l.carried : k) + " is " + t.describe() +
                           ", the first scan input gives batch " + std::to_string(batch) +
                           " and sequence length " + std::to_string(max_length));
  }
  std::vector<std::vector<Tensor>> per_batch;
  for (int64_t b = 0; b < batch; ++b) {
    int64_t length = max_length;
    if (in[0]) {
      if (in[0]->numel() != batch || in[0]->dtype() != DType::kI64)
        return invalid_input("sequence_lens must be " + std::to_string(batch) +
                             " i64 values, got " + in[0]->describe());
      length = static_cast<const int64_t*>(in[0]->raw_data())[b];
      if (length < 0 || length > max_length)
        return invalid_input("sequence_lens[" + std::to_string(b) + "] is " +
                             std::to_string(length) + ", outside [0, " +
                             std::to_string(max_length) + "]");
    }
    std::vector<Tensor> states, xs_b;
    for (size_t k = 0; k < l.carried; ++k) states.push_back(slice_axis(*in[1 + k], 0, b));
    for (size_t j = 0; j < l.scan_inputs; ++j) xs_b.push_back(slice_axis(*in[first_x + j], 0, b));
    std::vector<const Tensor*> xs;
    for (const Tensor& x : xs_b) xs.push_back(&x);
    AMP_ASSIGN_OR_RETURN(std::vector<Tensor> outs,
                         scan_sequence(s, std::move(states), xs, std::vector<size_t>(xs.size(), 0),
                                       in, length, max_length, ex, cfg));
    per_batch.push_back(std::move(outs));
  }
  std::vector<Tensor> result;
  for (size_t k = 0; k < l.carried + l.scan_outputs; ++k) {
    std::vector<Tensor> parts;
    std::vector<int64_t> positions;
    for (int64_t b = 0; b < batch; ++b) {
      parts.push_back(std::move(per_batch[static_cast<size_t>(b)][k]));
      positions.push_back(b);
    }
    if (parts.empty()) return unsupported("Scan-8 over an empty batch");
    AMP_ASSIGN_OR_RETURN(Tensor t,
                         stack_axis(parts, positions, 0, batch, "output " + std::to_string(k)));
    result.push_back(std::move(t));
  }
  return result;
}

// A body ready to plan: captured constants folded in as constants.
std::shared_ptr<const Continuation> compile_body(
    const Graph& body, size_t captures, const std::vector<char>& capture_is_constant,
    const std::vector<std::optional<graph::TensorData>>& capture_values,
    const PlanBuildOptions& options) {
  auto c = std::make_shared<Continuation>();
  c->rest = body;
  Graph& g = c->rest;
  const size_t first = g.inputs.size() - captures;
  std::vector<graph::ValueId> inputs(g.inputs.begin(),
                                     g.inputs.begin() + static_cast<std::ptrdiff_t>(first));
  for (size_t k = 0; k < captures; ++k) {
    const graph::ValueId v = g.inputs[first + k];
    if (!capture_is_constant[k]) {
      inputs.push_back(v);
      continue;
    }
    graph::Value& val = g.value(v);
    val.constant = capture_values[k];
    val.dtype = capture_values[k]->dtype();
    val.shape = graph::Shape::from_static(capture_values[k]->dims());
  }
  g.inputs = std::move(inputs);
  c->shape_inputs = graph::shape_determining_inputs(g);
  c->options = options;
  return c;
}

}  // namespace

Result<std::shared_ptr<const ControlFlowStep>> make_control_flow_step(
    const PlanSplit& split, const Graph& rest, const PlanBuildOptions& options) {
  auto s = std::make_shared<ControlFlowStep>();
  s->cut = *split.control;
  const graph::Node& n = s->cut.node;
  AMP_ASSIGN_OR_RETURN(s->layout, graph::control_flow_layout(n));
  if (const auto* a = std::get_if<graph::ControlFlowAttrs>(&n.resolved)) s->attrs = *a;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    int64_t pos = -1;
    for (size_t k = 0; k < split.stage.size() && !s->cut.inputs[i].empty(); ++k)
      if (split.stage[k] == s->cut.inputs[i]) pos = static_cast<int64_t>(k);
    s->input_stage.push_back(pos);
    const auto& c = s->cut.constants[i];
    s->constant_inputs.push_back(
        c ? Tensor::wrap_bytes(c->dtype(), c->dims(), const_cast<uint8_t*>(c->bytes())) : Tensor());
    if (!s->cut.inputs[i].empty() && pos < 0 && !c)
      return internal_error(node_label(n) + ": input '" + s->cut.inputs[i] + "' crosses no cut");
  }
  const size_t first_capture = n.inputs.size() - s->layout.captures;
  std::vector<std::optional<graph::TensorData>> capture_values;
  for (size_t k = 0; k < s->layout.captures; ++k) {
    capture_values.push_back(s->cut.constants[first_capture + k]);
    s->capture_is_constant.push_back(capture_values.back().has_value());
  }
  AMP_ASSIGN_OR_RETURN(auto bodies, graph::node_bodies(n));
  for (const auto& b : bodies)
    s->bodies.push_back(
        compile_body(*b, s->layout.captures, s->capture_is_constant, capture_values, options));
  // The rest reads stage values and the node's outputs by name.
  for (graph::ValueId v : rest.inputs) {
    const std::string& name = rest.value(v).name;
    size_t src = split.stage.size() + s->cut.outputs.size();
    for (size_t k = 0; k < split.stage.size() && src == split.stage.size() + s->cut.outputs.size();
         ++k)
      if (split.stage[k] == name) src = k;
    for (size_t k = 0; k < s->cut.outputs.size(); ++k)
      if (s->cut.outputs[k] == name) src = split.stage.size() + k;
    if (src == split.stage.size() + s->cut.outputs.size())
      return internal_error(node_label(n) + ": the rest reads '" + name +
                            "', which crosses no cut");
    s->sources.push_back(src);
  }
  return std::shared_ptr<const ControlFlowStep>(std::move(s));
}

Result<std::vector<Tensor>> run_control_flow(const ControlFlowStep& step,
                                             const std::vector<Tensor>& stage, Executor& executor,
                                             const RunConfig& config) {
  const std::vector<const Tensor*> in = node_inputs(step, stage);
  Result<std::vector<Tensor>> outs = std::vector<Tensor>{};
  switch (step.cut.node.op) {
    case graph::OpType::kIf:
      outs = run_if(step, in, executor, config);
      break;
    case graph::OpType::kLoop:
      outs = run_loop(step, in, executor, config);
      break;
    case graph::OpType::kScan:
      outs = run_scan(step, in, executor, config);
      break;
    default:
      return internal_error(node_label(step.cut.node) + " is not a control-flow node");
  }
  if (!outs.is_ok()) return outs.status().with_context(node_label(step.cut.node));
  if (outs->size() != step.cut.outputs.size())
    return internal_error(node_label(step.cut.node) + ": produced " + std::to_string(outs->size()) +
                          " outputs, has " + std::to_string(step.cut.outputs.size()));
  return outs;
}

namespace {

// "4 2x3 -> 2x3": the shapes a control-flow node ran with, for its profile span.
std::string ran_shapes(const ControlFlowStep& step, const std::vector<Tensor>& stage,
                       const std::vector<Tensor>& outs) {
  auto text = [](const Tensor& t) { return shape_text(graph::Shape::from_static(t.shape())); };
  std::string s;
  const std::vector<const Tensor*> in = node_inputs(step, stage);
  for (size_t k = 0; k < in.size(); ++k) s += (k ? " " : "") + (in[k] ? text(*in[k]) : "-");
  s += " ->";
  for (const Tensor& t : outs) s += " " + text(t);
  return s;
}

}  // namespace

Result<std::vector<Tensor>> run_plan_chain(std::shared_ptr<const ExecutionPlan> plan,
                                           const std::vector<const Tensor*>& inputs,
                                           Executor& executor, const RunConfig& config) {
  AMP_ASSIGN_OR_RETURN(std::vector<Tensor> outs, executor.run(plan, inputs, config));
  // A plan cut at a data-dependent node (runtime/plan_split.h) returned the values the rest
  // of the model reads, the node's output at its real size; one cut at a control-flow node
  // returned the node's inputs too, and the node runs here. Plan the rest for those sizes and
  // run it on them, once per cut on the way to the model's outputs.
  while (plan->continuation) {
    std::vector<Tensor> stage = std::move(outs);
    const Continuation& c = *plan->continuation;
    if (c.control) {
      const size_t span = config.profiler ? config.profiler->begin_span(c.control->cut.node) : 0;
      AMP_ASSIGN_OR_RETURN(std::vector<Tensor> node_outs,
                           run_control_flow(*c.control, stage, executor, config));
      if (config.profiler)
        config.profiler->end_span(span, ran_shapes(*c.control, stage, node_outs),
                                  node_outs.empty() ? DType::kUndefined : node_outs[0].dtype());
      std::vector<Tensor> next;
      for (size_t src : c.control->sources)
        next.push_back(src < stage.size() ? std::move(stage[src])
                                          : std::move(node_outs[src - stage.size()]));
      stage = std::move(next);
    }
    std::vector<const Tensor*> stage_inputs;
    for (const Tensor& t : stage) stage_inputs.push_back(&t);
    std::vector<std::optional<graph::TensorData>> values;
    AMP_ASSIGN_OR_RETURN(PlanKey key, plan_key_for(stage_inputs, c.shape_inputs, values));
    AMP_ASSIGN_OR_RETURN(plan, continuation_plan(c, key, values));
    AMP_ASSIGN_OR_RETURN(outs, executor.run(plan, stage_inputs, config));
  }
  return outs;
}

Result<std::vector<Tensor>> run_graph(const Continuation& c,
                                      const std::vector<const Tensor*>& inputs, Executor& executor,
                                      const RunConfig& config) {
  if (inputs.size() != c.rest.inputs.size())
    return internal_error("a body takes " + std::to_string(c.rest.inputs.size()) + " inputs, got " +
                          std::to_string(inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const graph::Value& v = c.rest.value(c.rest.inputs[i]);
    if (v.dtype != DType::kUndefined && inputs[i]->dtype() != v.dtype)
      return invalid_input("body input '" + v.name + "' is " + std::string(dtype_name(v.dtype)) +
                           " but receives " + inputs[i]->describe());
  }
  std::vector<std::optional<graph::TensorData>> values;
  AMP_ASSIGN_OR_RETURN(PlanKey key, plan_key_for(inputs, c.shape_inputs, values));
  AMP_ASSIGN_OR_RETURN(auto plan, continuation_plan(c, key, values));
  return run_plan_chain(plan, inputs, executor, config);
}

}  // namespace amp::runtime
