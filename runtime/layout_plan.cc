#include "runtime/layout_plan.h"

namespace amp::runtime {

std::vector<char> plan_conv_layouts(const graph::Graph& g) {
  using graph::OpType;
  std::vector<char> out(g.values.size(), 0);
  const std::vector<graph::NodeId> producer = graph::compute_producers(g);
  const std::vector<std::vector<graph::NodeId>> consumers = graph::compute_consumers(g);
  std::vector<char> is_output(g.values.size(), 0);
  for (graph::ValueId v : g.outputs) is_output[static_cast<size_t>(v)] = 1;
  for (size_t v = 0; v < g.values.size(); ++v) {
    const graph::Value& val = g.values[v];
    if (val.is_constant() || is_output[v] || val.dtype != DType::kF32 || !val.shape) continue;
    const size_t rank = val.shape->rank();
    const graph::NodeId p = producer[v];
    if (rank < 3 || rank > 5 || p < 0 || g.nodes[static_cast<size_t>(p)].op != OpType::kConv ||
        consumers[v].empty())
      continue;
    bool only_convs = true;
    for (graph::NodeId c : consumers[v]) {
      const graph::Node& n = g.nodes[static_cast<size_t>(c)];
      if (n.op != OpType::kConv) only_convs = false;
      for (size_t k = 1; k < n.inputs.size(); ++k)
        if (n.inputs[k] == static_cast<graph::ValueId>(v)) only_convs = false;  // a weight
    }
    out[v] = only_convs ? 1 : 0;
  }
  return out;
}

}  // namespace amp::runtime
