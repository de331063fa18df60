#include "runtime/layout_plan.h"

#include "graph/ops/op_types.h"

namespace amp::runtime {
namespace {

using graph::Graph;
using graph::Node;
using graph::OpType;
using graph::ValueId;

// An elementwise node that computes element i of its output from element i of each input
// whatever the layout: every input has the output's shape or is a single element.
bool layout_free_elementwise(const Graph& g, const Node& n,
                             const std::function<bool(DType)>& native) {
  if (!graph::has_trait(n.op, graph::kElementwise) || n.outputs.size() != 1 ||
      n.outputs[0] == graph::kNoValue)
    return false;
  const graph::Value& out = g.value(n.outputs[0]);
  if (!out.shape || !native(out.dtype)) return false;
  for (ValueId v : n.inputs) {
    if (v == graph::kNoValue) continue;
    const graph::Value& in = g.value(v);
    if (!in.shape) return false;
    const std::optional<int64_t> numel = in.shape->numel();
    if (numel && *numel == 1) continue;
    if (!(*in.shape == *out.shape)) return false;
  }
  return true;
}

}  // namespace

std::vector<char> plan_conv_layouts(const Graph& g, const std::function<bool(DType)>& native) {
  const size_t count = g.values.size();
  std::vector<char> in(count, 0);
  const std::vector<graph::NodeId> producer = graph::compute_producers(g);
  const std::vector<std::vector<graph::NodeId>> consumers = graph::compute_consumers(g);
  std::vector<char> is_output(count, 0);
  for (ValueId v : g.outputs) is_output[static_cast<size_t>(v)] = 1;
  std::vector<char> free_node(g.nodes.size(), 0);
  for (size_t i = 0; i < g.nodes.size(); ++i)
    free_node[i] = layout_free_elementwise(g, g.nodes[i], native) ? 1 : 0;

  // Candidates: natively computed activations of rank 3..5 made by a Conv or a layout-free
  // elementwise node.
  for (size_t v = 0; v < count; ++v) {
    const graph::Value& val = g.values[v];
    const graph::NodeId p = producer[v];
    if (val.is_constant() || is_output[v] || !native(val.dtype) || !val.shape || p < 0 ||
        consumers[v].empty())
      continue;
    const size_t rank = val.shape->rank();
    const Node& n = g.nodes[static_cast<size_t>(p)];
    if (rank >= 3 && rank <= 5 && (n.op == OpType::kConv || free_node[static_cast<size_t>(p)]))
      in[v] = 1;
  }
  // Drop candidates until every one is read only by Convs (as data) and by layout-free nodes
  // whose output is a candidate, and every candidate made elementwise reads candidates or
  // single elements only. Each round removes at least one value, so it ends.
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t v = 0; v < count; ++v) {
      if (!in[v]) continue;
      bool keep = true;
      for (graph::NodeId c : consumers[v]) {
        const Node& n = g.nodes[static_cast<size_t>(c)];
        if (n.op == OpType::kConv) {
          for (size_t k = 1; k < n.inputs.size(); ++k)
            if (n.inputs[k] == static_cast<ValueId>(v)) keep = false;  // a weight or bias
        } else if (!free_node[static_cast<size_t>(c)] || !in[static_cast<size_t>(n.outputs[0])]) {
          keep = false;
        }
      }
      const Node& p = g.nodes[static_cast<size_t>(producer[v])];
      if (p.op != OpType::kConv)
        for (ValueId x : p.inputs) {
          if (x == graph::kNoValue || in[static_cast<size_t>(x)]) continue;
          const std::optional<int64_t> numel = g.value(x).shape->numel();
          if (!numel || *numel != 1) keep = false;  // a full-size input in plain layout
        }
      if (!keep) {
        in[v] = 0;
        changed = true;
      }
    }
  }
  return in;
}

}  // namespace amp::runtime
