#include "graph/ir/name_table.h"

namespace amp::graph {

NameTable NameTable::values_of(const Graph& g) {
  NameTable t;
  t.used_.reserve(g.values.size());
  for (const Value& v : g.values) t.used_.insert(v.name);
  return t;
}

NameTable NameTable::nodes_of(const Graph& g) {
  NameTable t;
  t.used_.reserve(g.nodes.size());
  for (const Node& n : g.nodes) t.used_.insert(n.name);
  return t;
}

std::string NameTable::fresh(const std::string& base) {
  if (claim(base)) return base;
  int64_t& next = next_suffix_[base];
  for (;;) {
    std::string candidate = base + "_" + std::to_string(++next);
    if (claim(candidate)) return candidate;
  }
}

}  // namespace amp::graph
