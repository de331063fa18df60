#include "graph/passes/dead_code_elimination.h"

namespace amp::graph {

Result<bool> DeadCodeElimination::run(Graph& g) {
  std::vector<char> live(g.values.size(), 0);
  for (ValueId v : g.outputs) live[static_cast<size_t>(v)] = 1;

  std::vector<char> keep(g.nodes.size(), 0);
  for (size_t i = g.nodes.size(); i-- > 0;) {
    const Node& n = g.nodes[i];
    for (ValueId v : n.outputs)
      if (v != kNoValue && live[static_cast<size_t>(v)]) keep[i] = 1;
    if (!keep[i]) continue;
    for (ValueId v : n.inputs)
      if (v != kNoValue) live[static_cast<size_t>(v)] = 1;
  }

  size_t kept = 0;  // in place, like ConstantFolding
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (!keep[i]) continue;
    if (kept != i) g.nodes[kept] = std::move(g.nodes[i]);
    ++kept;
  }
  const size_t values_before = g.values.size();
  const bool nodes_removed = kept != g.nodes.size();
  g.nodes.resize(kept);
  g.compact_values();
  return nodes_removed || g.values.size() != values_before;
}

}  // namespace amp::graph
