#include "graph/passes/amp/cast_cleanup.h"

#include <set>

namespace amp::graph {
namespace {

bool is_cast_to(const Graph& g, const Node& n, DType t) {
  return n.op == OpType::kCast && n.outputs.size() == 1 && n.outputs[0] != kNoValue &&
         g.value(n.outputs[0]).dtype == t;
}

// Redirections of consumers from one value to another, applied to the whole graph in one
// sweep at the end: rewriting every node per removed cast would be quadratic in a graph
// with a cast per node.
class Redirects {
 public:
  explicit Redirects(size_t num_values) : to_(num_values, kNoValue) {}
  void add(ValueId from, ValueId to) { to_[static_cast<size_t>(from)] = resolve(to); }
  // Where a consumer of `v` reads from now (v itself when not redirected).
  ValueId resolve(ValueId v) const {
    while (v != kNoValue && to_[static_cast<size_t>(v)] != kNoValue)
      v = to_[static_cast<size_t>(v)];
    return v;
  }
  void apply(Graph& g) const {
    for (Node& n : g.nodes)
      for (ValueId& v : n.inputs) v = resolve(v);
    for (ValueId& v : g.outputs) v = resolve(v);
  }

 private:
  std::vector<ValueId> to_;
};

}  // namespace

Result<CastCleanupStats> cleanup_casts(Graph& g, const std::vector<NodeId>& inserted) {
  CastCleanupStats stats;
  std::vector<NodeId> producer = compute_producers(g);
  std::set<ValueId> graph_outputs(g.outputs.begin(), g.outputs.end());

  // 1. low -> f32 -> low round trips. Nodes are visited in topological order and read
  // their inputs through the redirects made so far, as if each had been applied at once.
  Redirects round_trips(g.values.size());
  for (Node& outer : g.nodes) {
    if (outer.op != OpType::kCast || outer.inputs.empty() || outer.inputs[0] == kNoValue) continue;
    const DType low = g.value(outer.outputs[0]).dtype;
    if (!is_low_float(low) || graph_outputs.count(outer.outputs[0])) continue;
    const NodeId p = producer[static_cast<size_t>(round_trips.resolve(outer.inputs[0]))];
    if (p < 0) continue;
    const Node& inner = g.nodes[static_cast<size_t>(p)];
    if (!is_cast_to(g, inner, DType::kF32) || inner.inputs.empty() || inner.inputs[0] == kNoValue)
      continue;
    const ValueId x = round_trips.resolve(inner.inputs[0]);
    if (g.value(x).dtype != low) continue;
    round_trips.add(outer.outputs[0], x);
    ++stats.round_trips_removed;
  }
  round_trips.apply(g);

  // 2. model Cast(-> f32) feeding only an inserted Cast(-> low): retarget.
  std::vector<std::vector<NodeId>> consumers = compute_consumers(g);
  std::set<NodeId> inserted_set(inserted.begin(), inserted.end());
  Redirects retargeted(g.values.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& model_cast = g.nodes[i];
    if (inserted_set.count(static_cast<NodeId>(i)) || !is_cast_to(g, model_cast, DType::kF32))
      continue;
    const ValueId y = model_cast.outputs[0];
    if (graph_outputs.count(y) || consumers[static_cast<size_t>(y)].size() != 1) continue;
    const NodeId c = consumers[static_cast<size_t>(y)][0];
    if (!inserted_set.count(c)) continue;
    const Node& amp_cast = g.nodes[static_cast<size_t>(c)];
    const ValueId z = amp_cast.outputs[0];
    const DType low = g.value(z).dtype;
    if (!is_low_float(low) || graph_outputs.count(z)) continue;
    // The model cast now writes the low type into y; z's consumers read y instead.
    model_cast.attrs.set("to", static_cast<int64_t>(low));
    g.value(y).dtype = low;
    retargeted.add(z, y);
    ++stats.casts_retargeted;
  }
  retargeted.apply(g);
  return stats;
}

}  // namespace amp::graph
