#include "graph/passes/inline_constant_if.h"

#include "graph/ir/name_table.h"
#include "graph/ops/control_flow.h"

namespace amp::graph {
namespace {

// The condition's value when the If's input 0 is a one-element constant.
std::optional<bool> constant_condition(const Graph& g, const Node& n) {
  if (n.inputs.empty() || n.inputs[0] == kNoValue) return std::nullopt;
  const Value& c = g.value(n.inputs[0]);
  if (!c.is_constant() || c.constant->numel() != 1 || c.dtype != DType::kBool) return std::nullopt;
  return c.constant->bytes()[0] != 0;
}

// Appends the nodes that replace `n` (taking `branch`) to `out`.
Status inline_branch(Graph& g, const Node& n, const Graph& branch, NameTable& value_names,
                     NameTable& node_names, std::vector<Node>& out) {
  std::vector<ValueId> map(branch.values.size(), kNoValue);
  for (size_t k = 0; k < branch.inputs.size(); ++k)
    map[static_cast<size_t>(branch.inputs[k])] = n.inputs[1 + k];
  // Outputs produced by a branch node write into the If's outputs directly (once each).
  std::vector<NodeId> producer = compute_producers(branch);
  std::vector<char> claimed(branch.values.size(), 0);
  std::vector<std::pair<ValueId, ValueId>> identities;  // branch value -> If output
  for (size_t k = 0; k < branch.outputs.size(); ++k) {
    const ValueId b = branch.outputs[k];
    if (n.outputs[k] == kNoValue) continue;
    if (producer[static_cast<size_t>(b)] >= 0 && !claimed[static_cast<size_t>(b)]) {
      claimed[static_cast<size_t>(b)] = 1;
      map[static_cast<size_t>(b)] = n.outputs[k];
    } else {
      identities.emplace_back(b, n.outputs[k]);
    }
  }
  for (size_t v = 0; v < branch.values.size(); ++v) {
    if (map[v] != kNoValue) continue;
    Value copy = branch.values[v];
    copy.name = value_names.fresh(n.name + "/" + copy.name);
    map[v] = g.add_value(std::move(copy));
  }
  auto mapped = [&](ValueId v) { return v == kNoValue ? kNoValue : map[static_cast<size_t>(v)]; };
  for (const Node& bn : branch.nodes) {
    Node copy = bn;
    copy.name = node_names.fresh(n.name + "/" + bn.name);
    for (ValueId& v : copy.inputs) v = mapped(v);
    for (ValueId& v : copy.outputs) v = mapped(v);
    out.push_back(std::move(copy));
  }
  for (const auto& [from, to] : identities) {
    Node id;
    id.name = node_names.fresh(n.name + "/identity");
    id.op = OpType::kIdentity;
    id.op_version = n.op_version;
    id.inputs = {mapped(from)};
    id.outputs = {to};
    out.push_back(std::move(id));
  }
  return Status::ok();
}

}  // namespace

Result<bool> InlineConstantIf::run(Graph& g) {
  bool any = false;
  for (const Node& n : g.nodes)
    any = any || (n.op == OpType::kIf && constant_condition(g, n).has_value());
  if (!any) return false;
  NameTable value_names = NameTable::values_of(g);
  NameTable node_names = NameTable::nodes_of(g);
  std::vector<Node> nodes;
  nodes.reserve(g.nodes.size());
  for (Node& n : g.nodes) {
    const std::optional<bool> cond = n.op == OpType::kIf ? constant_condition(g, n) : std::nullopt;
    if (!cond) {
      nodes.push_back(std::move(n));
      continue;
    }
    AMP_ASSIGN_OR_RETURN(auto bodies, node_bodies(n));
    const Graph& branch = *bodies[*cond ? 0 : 1];
    if (branch.inputs.size() + 1 != n.inputs.size() || branch.outputs.size() != n.outputs.size())
      return invalid_model("node '" + n.name +
                           "' (If): its branch does not match its inputs and outputs");
    AMP_RETURN_IF_ERROR(inline_branch(g, n, branch, value_names, node_names, nodes));
  }
  g.nodes = std::move(nodes);
  g.compact_values();
  return true;
}

}  // namespace amp::graph
