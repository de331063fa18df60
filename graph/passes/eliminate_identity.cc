#include "graph/passes/eliminate_identity.h"

#include <vector>

#include "graph/passes/pass_util.h"

namespace amp::graph {

Result<bool> EliminateIdentity::run(Graph& g) {
  const size_t count = g.values.size();
  std::vector<ValueId> alias(count);
  for (size_t v = 0; v < count; ++v) alias[v] = static_cast<ValueId>(v);
  auto resolve = [&alias](ValueId v) {
    while (v != kNoValue && alias[static_cast<size_t>(v)] != v) v = alias[static_cast<size_t>(v)];
    return v;
  };
  std::vector<char> is_output(count, 0), is_input(count, 0);
  for (ValueId v : g.outputs) ++is_output[static_cast<size_t>(v)];
  for (ValueId v : g.inputs) is_input[static_cast<size_t>(v)] = 1;
  const std::vector<NodeId> producer = compute_producers(g);

  std::vector<char> remove(g.nodes.size(), 0);
  bool changed = false;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& n = g.nodes[i];
    if (n.op != OpType::kIdentity || n.inputs.size() != 1 || n.outputs.size() != 1 ||
        n.inputs[0] == kNoValue || n.outputs[0] == kNoValue)
      continue;
    const ValueId x = resolve(n.inputs[0]), y = n.outputs[0];
    const size_t xi = static_cast<size_t>(x), yi = static_cast<size_t>(y);
    if (g.value(x).dtype != g.value(y).dtype) continue;  // inference not run yet: leave it
    if (!is_output[yi]) {
      alias[yi] = x;
    } else {
      // y is a graph output: x's producer writes it, if x is an ordinary computed value.
      const NodeId p = producer[xi];
      if (p < 0 || is_input[xi] || is_output[xi] || g.value(x).is_constant() || is_output[yi] > 1)
        continue;
      for (ValueId& o : g.nodes[static_cast<size_t>(p)].outputs)
        if (o == x) o = y;
      alias[xi] = y;
    }
    remove[i] = 1;
    changed = true;
  }
  if (!changed) return false;
  for (Node& n : g.nodes)
    for (ValueId& v : n.inputs) v = resolve(v);
  remove_marked_nodes(g, remove);
  return true;
}

}  // namespace amp::graph
