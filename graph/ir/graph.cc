#include "graph/ir/graph.h"

#include <algorithm>

namespace amp::graph {

std::optional<ValueId> Graph::find_value(const std::string& name) const {
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i].name == name) return static_cast<ValueId>(i);
  return std::nullopt;
}

void Graph::compact_values() {
  std::vector<char> used(values.size(), 0);
  auto mark = [&](ValueId id) {
    if (valid_value(id)) used[static_cast<size_t>(id)] = 1;
  };
  for (const Node& n : nodes) {
    for (ValueId v : n.inputs) mark(v);
    for (ValueId v : n.outputs) mark(v);
  }
  for (ValueId v : inputs) mark(v);
  for (ValueId v : outputs) mark(v);

  const auto live = static_cast<size_t>(std::count(used.begin(), used.end(), 1));
  if (live == values.size()) return;  // nothing to drop (DeadCodeElimination after folding)
  std::vector<ValueId> remap(values.size(), kNoValue);
  size_t kept = 0;  // values that stay move down in place
  for (size_t i = 0; i < values.size(); ++i) {
    if (!used[i]) continue;
    remap[i] = static_cast<ValueId>(kept);
    if (kept != i) values[kept] = std::move(values[i]);
    ++kept;
  }
  values.resize(kept);
  auto fix = [&](ValueId& id) {
    if (id != kNoValue) id = remap[static_cast<size_t>(id)];
  };
  for (Node& n : nodes) {
    for (ValueId& v : n.inputs) fix(v);
    for (ValueId& v : n.outputs) fix(v);
  }
  for (ValueId& v : inputs) fix(v);
  for (ValueId& v : outputs) fix(v);
}

bool operator==(const Value& a, const Value& b) {
  return a.name == b.name && a.dtype == b.dtype && a.shape == b.shape && a.constant == b.constant;
}
bool operator==(const Node& a, const Node& b) {
  return a.name == b.name && a.op == b.op && a.op_version == b.op_version && a.inputs == b.inputs &&
         a.outputs == b.outputs && a.attrs == b.attrs;
}
bool operator==(const Metadata& a, const Metadata& b) {
  return a.producer == b.producer && a.source_opset == b.source_opset &&
         a.source_format == b.source_format && a.properties == b.properties;
}

bool SubgraphAttr::operator==(const SubgraphAttr& o) const {
  if (graph == o.graph) return true;
  return graph && o.graph && *graph == *o.graph;
}

bool Graph::operator==(const Graph& o) const {
  return values == o.values && nodes == o.nodes && inputs == o.inputs && outputs == o.outputs &&
         metadata == o.metadata;
}

Graph copy_for_reinference(const Graph& g) {
  Graph out;
  out.values.reserve(g.values.size());
  for (const Value& v : g.values) {
    Value& c = out.values.emplace_back();
    c.name = v.name;
    c.dtype = v.dtype;
    c.shape = v.shape;
    c.constant = v.constant;
  }
  out.nodes.reserve(g.nodes.size());
  for (const Node& n : g.nodes) {
    Node& c = out.nodes.emplace_back();
    c.name = n.name;
    c.op = n.op;
    c.op_version = n.op_version;
    c.inputs = n.inputs;
    c.outputs = n.outputs;
    c.attrs = n.attrs;
  }
  out.inputs = g.inputs;
  out.outputs = g.outputs;
  out.metadata = g.metadata;
  return out;
}

std::vector<NodeId> compute_producers(const Graph& g) {
  std::vector<NodeId> prod(g.values.size(), -1);
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (ValueId v : g.nodes[i].outputs)
      if (g.valid_value(v)) prod[static_cast<size_t>(v)] = static_cast<NodeId>(i);
  return prod;
}

std::vector<std::vector<NodeId>> compute_consumers(const Graph& g) {
  std::vector<std::vector<NodeId>> cons(g.values.size());
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (ValueId v : g.nodes[i].inputs)
      if (g.valid_value(v)) cons[static_cast<size_t>(v)].push_back(static_cast<NodeId>(i));
  return cons;
}

}  // namespace amp::graph
