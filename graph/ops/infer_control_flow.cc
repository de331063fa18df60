// Shape and dtype rules of If, Loop and Scan (layout: graph/ops/control_flow.h).
//
// Each rule types a copy of every body's inputs from the node's inputs, infers the body
// (recursively, bodies inside it included) and reads the node's outputs off the body's
// outputs. The inferred bodies go to ControlFlowAttrs, which infer_node writes back into the
// node's graph attributes, so everything after inference sees typed bodies.
//
// An If whose condition is a constant infers only the branch it takes; with an unknown
// condition a branch that does not infer for these (perhaps symbolic) shapes is tolerated
// while the other one does: it is an error only if taken, when its plan is built.
//
// Shapes a body cannot promise are left symbolic: an If output whose branches disagree on
// a dim, a Loop's carried values (they may change shape from one iteration to the next, so
// the body sees their rank only) and the iteration count of Loop's stacked outputs. The
// runtime plans each body for the shapes it actually receives (runtime/control_flow.h).
#include <memory>

#include "graph/ops/control_flow.h"
#include "graph/ops/infer_rules.h"
#include "graph/ops/infer_util.h"
#include "graph/ops/shape_inference.h"

namespace amp::graph {
namespace {

struct BodyInput {
  DType dtype = DType::kUndefined;
  std::optional<Shape> shape;
};

Shape rank_only(size_t rank) {
  return Shape(std::vector<Dim>(rank, Dim::symbolic("")));
}

BodyInput input_of(const Value* v) {
  return v ? BodyInput{v->dtype, v->shape} : BodyInput{};
}

// `body` with its inputs typed as `types` (one per input), inferred. A body input that
// records a dtype must receive that dtype.
Result<std::shared_ptr<const Graph>> infer_body(const Graph& body,
                                                const std::vector<BodyInput>& types,
                                                const std::string& which) {
  auto g = std::make_shared<Graph>(body);
  for (size_t i = 0; i < types.size(); ++i) {
    Value& in = g->value(g->inputs[i]);
    const BodyInput& t = types[i];
    if (t.dtype == DType::kUndefined) continue;
    if (in.dtype != DType::kUndefined && in.dtype != t.dtype)
      return invalid_model(which + " input '" + in.name + "' is declared " +
                           std::string(dtype_name(in.dtype)) + " but receives " +
                           std::string(dtype_name(t.dtype)));
    in.dtype = t.dtype;
    in.shape = t.shape;
  }
  AMP_RETURN_IF_ERROR(infer_shapes(*g).with_context(which));
  for (ValueId v : g->outputs)
    if (g->value(v).dtype == DType::kUndefined)
      return invalid_model(which + " output '" + g->value(v).name + "' has no dtype");
  return std::shared_ptr<const Graph>(std::move(g));
}

// The dims two shapes agree on; the others symbolic. Unknown when the ranks differ.
std::optional<Shape> merge(const std::optional<Shape>& a, const std::optional<Shape>& b) {
  if (!a || !b || a->rank() != b->rank()) return std::nullopt;
  Shape s = *a;
  for (size_t i = 0; i < s.rank(); ++i)
    if (!(a->dims[i] == b->dims[i])) s.dims[i] = Dim::symbolic("");
  return s;
}

const Value& out(const Graph& g, size_t k) {
  return g.value(g.outputs[k]);
}

Status check_scalar_like(const Value* v, size_t index, DTypeSet set, const char* what) {
  if (!v) return Status::ok();
  AMP_RETURN_IF_ERROR(check_dtype(*v, index, set));
  if (v->shape && v->shape->numel() && *v->shape->numel() != 1)
    return invalid_model(std::string(what) + " (input " + std::to_string(index) + ") has shape " +
                         v->shape->to_string() + ", expected one element");
  return Status::ok();
}

}  // namespace

Status infer_if(const Node& node, const std::vector<const Value*>& inputs,
                std::vector<OutputInfo>& outputs, OpAttrs& attrs) {
  AMP_RETURN_IF_ERROR(control_flow_layout(node).status());
  AMP_RETURN_IF_ERROR(require_input(inputs, 0));
  AMP_RETURN_IF_ERROR(check_scalar_like(inputs[0], 0, DTypeSet::kBool, "cond"));
  AMP_ASSIGN_OR_RETURN(auto bodies, node_bodies(node));
  std::vector<BodyInput> types;
  for (size_t i = 1; i < inputs.size(); ++i) types.push_back(input_of(inputs[i]));
  // A known condition: only the branch taken matters (the If is about to be inlined), and
  // the other may not even fit these shapes (AffineGrid's expansion picks its 2-D or 3-D
  // branch by the input's rank).
  std::optional<size_t> taken;
  if (inputs[0]->is_constant() && inputs[0]->constant->numel() == 1)
    taken = inputs[0]->constant->bytes()[0] ? 0 : 1;
  ControlFlowAttrs cf;
  std::vector<Status> failed(bodies.size(), Status::ok());
  for (size_t k = 0; k < bodies.size(); ++k) {
    if (taken && *taken != k) {
      cf.bodies.push_back(bodies[k]);
      continue;
    }
    Result<std::shared_ptr<const Graph>> b =
        infer_body(*bodies[k], types, body_attr_names(node.op)[k]);
    failed[k] = b.status();
    cf.bodies.push_back(b.is_ok() ? std::move(b).value() : bodies[k]);
  }
  // An unknown condition: a branch that fails for these (perhaps symbolic) shapes is an error
  // only if it is taken, when its plan is built for real shapes; if both fail, the model is.
  size_t ref = taken.value_or(failed[0].is_ok() ? 0 : 1);
  if (!failed[ref].is_ok()) return failed[taken ? ref : 0];
  const bool both = !taken && failed[0].is_ok() && failed[1].is_ok();
  const Graph& then_g = *cf.bodies[both ? 0 : ref];
  const Graph& else_g = *cf.bodies[both ? 1 : ref];
  for (size_t k = 0; k < outputs.size(); ++k) {
    const Value& t = out(then_g, k);
    const Value& e = out(else_g, k);
    if (t.dtype != e.dtype)
      return invalid_model("output " + std::to_string(k) + " is " +
                           std::string(dtype_name(t.dtype)) + " in then_branch but " +
                           std::string(dtype_name(e.dtype)) + " in else_branch");
    outputs[k].dtype = t.dtype;
    outputs[k].shape = merge(t.shape, e.shape);
  }
  attrs = std::move(cf);
  return Status::ok();
}

Status infer_loop(const Node& node, const std::vector<const Value*>& inputs,
                  std::vector<OutputInfo>& outputs, OpAttrs& attrs) {
  AMP_ASSIGN_OR_RETURN(ControlFlowLayout l, control_flow_layout(node));
  AMP_RETURN_IF_ERROR(check_scalar_like(inputs[0], 0, DTypeSet::kI64, "M"));
  AMP_RETURN_IF_ERROR(check_scalar_like(inputs[1], 1, DTypeSet::kBool, "cond"));
  AMP_ASSIGN_OR_RETURN(auto bodies, node_bodies(node));
  std::vector<BodyInput> types;
  types.push_back({DType::kI64, Shape()});
  types.push_back({DType::kBool, Shape()});
  for (size_t i = 2; i < inputs.size(); ++i) {
    if (!inputs[i]) return invalid_model("input " + std::to_string(i) + " is required but absent");
    BodyInput t = input_of(inputs[i]);
    // A carried value may change shape between iterations: the body sees its rank only.
    if (i < 2 + l.carried && t.shape) t.shape = rank_only(t.shape->rank());
    types.push_back(std::move(t));
  }
  ControlFlowAttrs cf;
  AMP_ASSIGN_OR_RETURN(auto b, infer_body(*bodies[0], types, "body"));
  cf.bodies.push_back(std::move(b));
  const Graph& body = *cf.bodies[0];
  if (out(body, 0).dtype != DType::kBool)
    return invalid_model("body output 0 (the condition) is " +
                         std::string(dtype_name(out(body, 0).dtype)) + ", expected bool");
  for (size_t k = 0; k < l.carried; ++k) {
    const Value& o = out(body, 1 + k);
    const Value& init = *inputs[2 + k];
    if (o.dtype != init.dtype)
      return invalid_model("carried value " + std::to_string(k) + " enters as " +
                           std::string(dtype_name(init.dtype)) + " but the body returns " +
                           std::string(dtype_name(o.dtype)));
    outputs[k].dtype = o.dtype;
    outputs[k].shape = merge(init.shape, o.shape);
  }
  for (size_t k = 0; k < l.scan_outputs; ++k) {
    const Value& o = out(body, 1 + l.carried + k);
    outputs[l.carried + k].dtype = o.dtype;
    if (o.shape) {
      Shape s = *o.shape;
      s.dims.insert(s.dims.begin(), Dim::symbolic(""));
      outputs[l.carried + k].shape = s;
    }
  }
  attrs = std::move(cf);
  return Status::ok();
}

Status infer_scan(const Node& node, const std::vector<const Value*>& inputs,
                  std::vector<OutputInfo>& outputs, OpAttrs& attrs) {
  AMP_ASSIGN_OR_RETURN(ControlFlowLayout l, control_flow_layout(node));
  AMP_ASSIGN_OR_RETURN(auto bodies, node_bodies(node));
  ControlFlowAttrs cf;
  const size_t m = l.scan_inputs, n_state = l.carried;
  if (l.scan8) {
    if (inputs[0]) AMP_RETURN_IF_ERROR(check_dtype(*inputs[0], 0, DTypeSet::kI64));
    AMP_ASSIGN_OR_RETURN(cf.scan_input_directions,
                         node.attrs.get_ints("directions", std::vector<int64_t>(m, 0)));
    cf.scan_input_axes.assign(m, 1);  // [batch, sequence, ...]
    cf.scan_output_axes.assign(l.scan_outputs, 1);
    cf.scan_output_directions.assign(l.scan_outputs, 0);
  } else {
    AMP_ASSIGN_OR_RETURN(cf.scan_input_axes,
                         node.attrs.get_ints("scan_input_axes", std::vector<int64_t>(m, 0)));
    AMP_ASSIGN_OR_RETURN(cf.scan_input_directions,
                         node.attrs.get_ints("scan_input_directions", std::vector<int64_t>(m, 0)));
    AMP_ASSIGN_OR_RETURN(
        cf.scan_output_axes,
        node.attrs.get_ints("scan_output_axes", std::vector<int64_t>(l.scan_outputs, 0)));
    AMP_ASSIGN_OR_RETURN(
        cf.scan_output_directions,
        node.attrs.get_ints("scan_output_directions", std::vector<int64_t>(l.scan_outputs, 0)));
  }
  if (cf.scan_input_axes.size() != m || cf.scan_input_directions.size() != m)
    return invalid_model("scan input axes and directions need " + std::to_string(m) + " entries");
  if (cf.scan_output_axes.size() != l.scan_outputs ||
      cf.scan_output_directions.size() != l.scan_outputs)
    return invalid_model("scan output axes and directions need " + std::to_string(l.scan_outputs) +
                         " entries");
  for (int64_t d : cf.scan_input_directions)
    if (d != 0 && d != 1) return invalid_model("a scan direction is " + std::to_string(d));
  for (int64_t d : cf.scan_output_directions)
    if (d != 0 && d != 1) return invalid_model("a scan direction is " + std::to_string(d));

  // The body's view: states and captures as given (Scan-8: minus the batch dim), one
  // sequence step of every scan input.
  std::vector<BodyInput> types;
  Dim seq = Dim::symbolic(""), batch = Dim::symbolic("");
  for (size_t i = l.first_carried; i < inputs.size(); ++i) {
    if (!inputs[i]) return invalid_model("input " + std::to_string(i) + " is required but absent");
    BodyInput t = input_of(inputs[i]);
    const size_t k = i - l.first_carried;
    const bool is_state = k < n_state, is_scan = !is_state && k < n_state + m;
    if (!t.shape) return invalid_model("input " + std::to_string(i) + " has an unknown rank");
    const int64_t rank = static_cast<int64_t>(t.shape->rank());
    if (l.scan8 && (is_state || is_scan)) {
      if (rank < (is_scan ? 2 : 1))
        return invalid_model("input " + std::to_string(i) + " lacks the batch dim");
      // Every state and scan input is read at each batch entry: one batch for all.
      const Dim b = t.shape->dims[0];
      if (b.is_static() && batch.is_static() && b.value != batch.value)
        return invalid_model("Scan-8 states and scan inputs have batch sizes " +
                             std::to_string(batch.value) + " and " + std::to_string(b.value) +
                             " (input " + std::to_string(i) + ")");
      if (b.is_static() || !batch.is_static()) batch = b;
      t.shape->dims.erase(t.shape->dims.begin());
    }
    if (is_scan) {
      const size_t j = k - n_state;
      const int64_t axis_rank = static_cast<int64_t>(t.shape->rank());
      AMP_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(l.scan8 ? 0 : cf.scan_input_axes[j],
                                                        axis_rank, "scan_input_axes"));
      cf.scan_input_axes[j] = l.scan8 ? 1 : axis;
      const Dim d = t.shape->dims[static_cast<size_t>(axis)];
      if (d.is_static() && seq.is_static() && d.value != seq.value)
        return invalid_model("scan inputs have sequence lengths " + std::to_string(seq.value) +
                             " and " + std::to_string(d.value));
      if (d.is_static()) seq = d;
      t.shape->dims.erase(t.shape->dims.begin() + axis);
    }
    types.push_back(std::move(t));
  }
  AMP_ASSIGN_OR_RETURN(auto b, infer_body(*bodies[0], types, "body"));
  cf.bodies.push_back(std::move(b));
  const Graph& body = *cf.bodies[0];
  for (size_t k = 0; k < n_state; ++k) {
    const Value& o = out(body, k);
    if (o.dtype != types[k].dtype)
      return invalid_model("state " + std::to_string(k) + " enters as " +
                           std::string(dtype_name(types[k].dtype)) + " but the body returns " +
                           std::string(dtype_name(o.dtype)));
    outputs[k].dtype = o.dtype;
    std::optional<Shape> s = merge(types[k].shape, o.shape);
    if (s && l.scan8) s->dims.insert(s->dims.begin(), batch);
    outputs[k].shape = s;
  }
  for (size_t k = 0; k < l.scan_outputs; ++k) {
    const Value& o = out(body, n_state + k);
    outputs[n_state + k].dtype = o.dtype;
    if (!o.shape) continue;
    Shape s = *o.shape;
    if (l.scan8) {
      s.dims.insert(s.dims.begin(), seq);
      s.dims.insert(s.dims.begin(), batch);
    } else {
      AMP_ASSIGN_OR_RETURN(
          int64_t axis, normalize_axis(cf.scan_output_axes[k], static_cast<int64_t>(s.rank()) + 1,
                                       "scan_output_axes"));
      cf.scan_output_axes[k] = axis;
      s.dims.insert(s.dims.begin() + axis, seq);
    }
    outputs[n_state + k].shape = s;
  }
  attrs = std::move(cf);
  return Status::ok();
}

}  // namespace amp::graph
