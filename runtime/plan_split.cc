#include "runtime/plan_split.h"

#include "graph/ops/op_types.h"
#include "runtime/node_label.h"

namespace amp::runtime {
namespace {

using graph::Graph;
using graph::kNoValue;
using graph::ValueId;

bool static_value(const Graph& g, ValueId v) {
  return v == kNoValue || (g.value(v).shape && g.value(v).shape->is_static());
}

bool is_control_flow(const graph::Node& n) {
  return graph::has_trait(n.op, graph::kControlFlow);
}

// NonZero, Compress, NonMaxSuppression (graph/ops/data_dependent.h).
bool is_data_dependent(const graph::Node& n) {
  return !is_control_flow(n) && graph::has_trait(n.op, graph::kDataDependent);
}

// Moves up, right after the data-dependent node at `cut`, every later node that reads only
// values known in the prefix (graph inputs, constants, static outputs of nodes before it or
// moved): data-dependent nodes (their outputs are then not known) and nodes whose outputs
// are all static. The others keep their order after them, so the order stays topological.
// Returns how many moved.
size_t move_independent_nodes_up(Graph& g, size_t cut) {
  std::vector<char> known(g.values.size(), 0);
  for (ValueId v : g.inputs) known[static_cast<size_t>(v)] = 1;
  for (size_t v = 0; v < g.values.size(); ++v)
    if (g.values[v].is_constant()) known[v] = 1;
  for (size_t i = 0; i < cut; ++i)
    for (ValueId v : g.nodes[i].outputs)
      if (v != kNoValue) known[static_cast<size_t>(v)] = 1;
  std::vector<graph::Node> moved, stay;
  for (size_t i = cut + 1; i < g.nodes.size(); ++i) {
    graph::Node& n = g.nodes[i];
    bool reads_known = !is_control_flow(n);
    for (ValueId v : n.inputs)
      reads_known = reads_known && (v == kNoValue || known[static_cast<size_t>(v)]);
    const bool dynamic = is_data_dependent(n);
    bool outputs_static = true;
    for (ValueId v : n.outputs) outputs_static = outputs_static && static_value(g, v);
    if (reads_known && (dynamic || outputs_static)) {
      if (!dynamic)
        for (ValueId v : n.outputs)
          if (v != kNoValue) known[static_cast<size_t>(v)] = 1;
      moved.push_back(std::move(n));
    } else {
      stay.push_back(std::move(n));
    }
  }
  const size_t count = moved.size();
  g.nodes.resize(cut + 1);
  for (graph::Node& n : moved) g.nodes.push_back(std::move(n));
  for (graph::Node& n : stay) g.nodes.push_back(std::move(n));
  return count;
}

}  // namespace

Result<std::optional<PlanSplit>> split_at_data_dependent(Graph& g) {
  size_t cut = g.nodes.size();
  for (size_t i = 0; i < g.nodes.size() && cut == g.nodes.size(); ++i) {
    if (is_control_flow(g.nodes[i])) cut = i;
    for (ValueId v : g.nodes[i].outputs)
      if (!static_value(g, v)) cut = i;
  }
  if (cut == g.nodes.size()) return std::optional<PlanSplit>();
  const graph::Node& n = g.nodes[cut];
  const std::string label = node_label(n);
  const bool control = is_control_flow(n);
  const bool data_dependent = !control && graph::has_trait(n.op, graph::kDataDependent);
  // Otherwise the shape must wait for a computed shape value: cut before.
  bool computed_shape_value = false;
  for (size_t i = 0; i < n.inputs.size() && !data_dependent && !control; ++i)
    computed_shape_value =
        computed_shape_value || (n.inputs[i] != kNoValue && graph::is_shape_input(n.op, i) &&
                                 !g.value(n.inputs[i]).is_constant());
  if (!control && !data_dependent && (!computed_shape_value || cut == 0)) {
    for (ValueId v : n.outputs)
      if (!static_value(g, v))
        return internal_error(label + ": output '" + g.value(v).name +
                              "' has no static shape after binding");
  }
  PlanSplit split;
  // The prefix is nodes [0, last); the rest starts at `first_rest`.
  size_t last = cut, first_rest = cut;
  if (data_dependent) {
    last = first_rest = cut + 1 + move_independent_nodes_up(g, cut);
    for (size_t i = cut; i < last; ++i) {
      const graph::Node& d = g.nodes[i];
      if (is_data_dependent(d)) {
        DynamicCut c;
        c.step = i;
        AMP_ASSIGN_OR_RETURN(c.dim, graph::data_dependent_dim(g, d));
        c.value = g.value(d.outputs[0]).name;
        split.dynamic.push_back(std::move(c));
      }
    }
  } else if (control) {
    first_rest = cut + 1;
  }

  // Live values: produced by the prefix (or graph inputs), read after it or model outputs.
  std::vector<char> produced(g.values.size(), 0), read_later(g.values.size(), 0);
  for (ValueId v : g.inputs) produced[static_cast<size_t>(v)] = 1;
  for (size_t i = 0; i < last; ++i)
    for (ValueId v : g.nodes[i].outputs)
      if (v != kNoValue) produced[static_cast<size_t>(v)] = 1;
  for (size_t i = last; i < g.nodes.size(); ++i)
    for (ValueId v : g.nodes[i].inputs)
      if (v != kNoValue) read_later[static_cast<size_t>(v)] = 1;
  for (ValueId v : g.outputs) read_later[static_cast<size_t>(v)] = 1;
  std::vector<ValueId> live;
  for (size_t v = 0; v < g.values.size(); ++v)
    if (produced[v] && read_later[v]) live.push_back(static_cast<ValueId>(v));
  for (ValueId v : live) split.stage.push_back(g.value(v).name);

  split.rest = g;
  Graph& rest = split.rest;
  rest.inputs = live;
  if (control) {
    ControlCut c;
    c.node = n;
    for (ValueId v : n.inputs) {
      c.inputs.push_back(v == kNoValue ? "" : g.value(v).name);
      c.constants.push_back(v != kNoValue && g.value(v).is_constant() ? g.value(v).constant
                                                                      : std::nullopt);
    }
    for (ValueId v : n.outputs) c.outputs.push_back(v == kNoValue ? "" : g.value(v).name);
    // The rest reads the live values it still needs, then the node's outputs it needs.
    std::vector<char> used_after(g.values.size(), 0);
    for (size_t i = first_rest; i < g.nodes.size(); ++i)
      for (ValueId v : g.nodes[i].inputs)
        if (v != kNoValue) used_after[static_cast<size_t>(v)] = 1;
    for (ValueId v : g.outputs) used_after[static_cast<size_t>(v)] = 1;
    rest.inputs.clear();
    for (ValueId v : live)
      if (used_after[static_cast<size_t>(v)]) rest.inputs.push_back(v);
    for (ValueId v : n.outputs)
      if (v != kNoValue && used_after[static_cast<size_t>(v)]) rest.inputs.push_back(v);
    split.control = std::move(c);
  }
  rest.nodes.erase(rest.nodes.begin(),
                   rest.nodes.begin() + static_cast<std::ptrdiff_t>(first_rest));
  rest.compact_values();

  g.nodes.resize(last);
  g.outputs = live;
  for (const DynamicCut& c : split.dynamic) {
    const std::optional<ValueId> id = g.find_value(c.value);
    if (!id) return internal_error("the cut value '" + c.value + "' vanished");
    graph::Value& v = g.value(*id);
    graph::Shape bound = *v.shape;
    bound.dims[c.dim.axis] = graph::Dim(c.dim.bound);
    v.shape = bound;
  }
  g.compact_values();
  return std::optional<PlanSplit>(std::move(split));
}

}  // namespace amp::runtime
