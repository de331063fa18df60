#include "graph/ir/verifier.h"

#include "graph/ir/limits.h"

#include <algorithm>
#include <string>
#include <string_view>

namespace amp::graph {
namespace {

std::string node_label(const Graph& g, size_t i) {
  const Node& n = g.nodes[i];
  return "node " + std::to_string(i) + " '" + n.name + "' (" +
         (static_cast<int>(n.op) >= 0 && static_cast<int>(n.op) < kOpCount
              ? std::string(op_name(n.op))
              : std::string("?")) +
         ")";
}

Status verify_at_depth(const Graph& g, int depth);

// Whether `shape` is static with exactly these dims (without building a dims vector).
bool same_static_dims(const Shape& shape, const std::vector<int64_t>& dims) {
  if (shape.dims.size() != dims.size()) return false;
  for (size_t i = 0; i < dims.size(); ++i)
    if (!shape.dims[i].is_static() || shape.dims[i].value != dims[i]) return false;
  return true;
}

// 8. A node's subgraphs are graphs of their own, verified recursively; nesting is capped.
Status verify_subgraphs(const Graph& g, size_t i, int depth) {
  for (const auto& [name, attr] : g.nodes[i].attrs.all()) {
    const auto* sub = std::get_if<SubgraphAttr>(&attr);
    if (!sub) continue;
    if (!sub->graph) return invalid_model(node_label(g, i) + " attribute '" + name + "' is empty");
    if (depth + 1 > kMaxSubgraphDepth)
      return invalid_model(node_label(g, i) + " attribute '" + name +
                           "': subgraphs nest deeper than " + std::to_string(kMaxSubgraphDepth) +
                           " levels");
    AMP_RETURN_IF_ERROR(verify_at_depth(*sub->graph, depth + 1)
                            .with_context(node_label(g, i) + " attribute '" + name + "'"));
  }
  return Status::ok();
}

Status verify_at_depth(const Graph& g, int depth) {
  const size_t nv = g.values.size();
  // 2. names
  {
    // Views of the graph's own strings, sorted, duplicates adjacent: verification runs after
    // every pass and at every plan build, and copying each name into a set, then a hash
    // set's node per name, was most of its cost.
    std::vector<std::string_view> names;
    names.reserve(std::max(nv, g.nodes.size()));
    for (size_t i = 0; i < nv; ++i) {
      const std::string& name = g.values[i].name;
      if (name.empty()) return invalid_model("value " + std::to_string(i) + " has no name");
      names.push_back(name);
      // 7. sizes, before anything downstream multiplies dims
      AMP_RETURN_IF_ERROR(check_value_size(g.values[i]));
    }
    std::sort(names.begin(), names.end());
    if (auto d = std::adjacent_find(names.begin(), names.end()); d != names.end())
      return invalid_model("duplicate value name '" + std::string(*d) + "'");
    names.clear();
    for (const Node& n : g.nodes)
      if (!n.name.empty()) names.push_back(n.name);
    std::sort(names.begin(), names.end());
    if (auto d = std::adjacent_find(names.begin(), names.end()); d != names.end())
      return invalid_model("duplicate node name '" + std::string(*d) + "'");
  }

  // 3. definitions. 0 = undefined, 1 = defined (available to later nodes).
  std::vector<uint8_t> defined(nv, 0);
  for (ValueId id : g.inputs) {
    if (!g.valid_value(id))
      return invalid_model("graph input id " + std::to_string(id) + " out of range");
    const Value& v = g.value(id);
    if (v.is_constant()) return invalid_model("graph input '" + v.name + "' is a constant");
    if (defined[id]) return invalid_model("graph input '" + v.name + "' listed twice");
    defined[id] = 1;
  }
  for (size_t i = 0; i < nv; ++i) {
    const Value& v = g.values[i];
    if (!v.is_constant()) continue;
    // 5. constants agree with their value
    if (v.constant->dtype() != v.dtype)
      return invalid_model("constant '" + v.name + "' stores " +
                           std::string(dtype_name(v.constant->dtype())) + " but is declared " +
                           std::string(dtype_name(v.dtype)));
    if (v.shape && !same_static_dims(*v.shape, v.constant->dims()))
      return invalid_model("constant '" + v.name + "' has data of shape " +
                           Shape::from_static(v.constant->dims()).to_string() +
                           " but is declared " + v.shape->to_string());
    defined[i] = 1;
  }

  // 4. topological order, 1. ranges, 6. outputs
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (static_cast<int>(n.op) < 0 || static_cast<int>(n.op) >= kOpCount)
      return invalid_model(node_label(g, i) + " has an unknown op type");
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      ValueId id = n.inputs[k];
      if (id == kNoValue) continue;
      if (!g.valid_value(id))
        return invalid_model(node_label(g, i) + " input " + std::to_string(k) + " id " +
                             std::to_string(id) + " out of range");
      if (!defined[id])
        return invalid_model(node_label(g, i) + " uses '" + g.value(id).name +
                             "' before it is defined (graph not in topological order, or a "
                             "cycle, or an undefined value)");
    }
    bool any_output = false;
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      ValueId id = n.outputs[k];
      if (id == kNoValue) continue;
      if (!g.valid_value(id))
        return invalid_model(node_label(g, i) + " output " + std::to_string(k) + " id " +
                             std::to_string(id) + " out of range");
      if (defined[id])
        return invalid_model(node_label(g, i) + " redefines '" + g.value(id).name +
                             "' (each value must have exactly one producer)");
      defined[id] = 1;
      any_output = true;
    }
    if (!any_output && n.op != OpType::kLoop)
      return invalid_model(node_label(g, i) + " has no outputs");
    AMP_RETURN_IF_ERROR(verify_subgraphs(g, i, depth));
  }
  for (ValueId id : g.outputs) {
    if (!g.valid_value(id))
      return invalid_model("graph output id " + std::to_string(id) + " out of range");
    if (!defined[id])
      return invalid_model("graph output '" + g.value(id).name + "' is never produced");
  }
  return Status::ok();
}

}  // namespace

Status verify_graph(const Graph& g) {
  return verify_at_depth(g, 0);
}

}  // namespace amp::graph
