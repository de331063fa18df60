#include "graph/passes/lower_einsum.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "graph/ir/name_table.h"
#include "graph/ops/op_attrs.h"
#include "graph/passes/pass_util.h"

namespace amp::graph {
namespace {

// Where each label sits in a term, -1 when absent; nullopt when a label repeats.
std::optional<std::vector<int>> positions(const std::vector<int>& labels, size_t ids) {
  std::vector<int> at(ids, -1);
  for (size_t i = 0; i < labels.size(); ++i) {
    int& p = at[static_cast<size_t>(labels[i])];
    if (p >= 0) return std::nullopt;
    p = static_cast<int>(i);
  }
  return at;
}

bool same_size(const Dim& a, const Dim& b) {
  if (a.is_static() || b.is_static()) return a.is_static() && b.is_static() && a.value == b.value;
  return !a.symbol.empty() && a.symbol == b.symbol;
}

// Whether the labels of `order` that `at` lacks all come before those it has.
bool missing_lead(const std::vector<int>& order, const std::vector<int>& at) {
  bool seen_present = false;
  for (int id : order) {
    const bool present = at[static_cast<size_t>(id)] >= 0;
    if (!present && seen_present) return false;
    seen_present = seen_present || present;
  }
  return true;
}

bool is_identity(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int64_t>(i)) return false;
  return true;
}

struct Lowering {
  std::vector<int64_t> perm_a, perm_b, perm_out;  // perm_out maps [L, m*, n*] to the output
};

std::optional<Lowering> plan_lowering(const Graph& g, const Node& n) {
  if (n.inputs.size() != 2 || n.outputs.size() != 1) return std::nullopt;
  const auto* e = std::get_if<EinsumAttrs>(&n.resolved);
  if (e == nullptr || e->inputs.size() != 2) return std::nullopt;
  const Value& a = g.value(n.inputs[0]);
  const Value& b = g.value(n.inputs[1]);
  if (!a.shape || !b.shape || a.dtype != b.dtype ||
      (a.dtype != DType::kF32 && a.dtype != DType::kF16 && a.dtype != DType::kBF16))
    return std::nullopt;
  size_t ids = 0;
  for (const auto* labels : {&e->inputs[0], &e->inputs[1], &e->output})
    for (int id : *labels) ids = std::max(ids, static_cast<size_t>(id) + 1);
  auto at_a = positions(e->inputs[0], ids), at_b = positions(e->inputs[1], ids),
       at_o = positions(e->output, ids);
  if (!at_a || !at_b || !at_o) return std::nullopt;
  int k = -1, m = -1, nn = -1;
  for (size_t id = 0; id < ids; ++id) {
    const bool in_a = (*at_a)[id] >= 0, in_b = (*at_b)[id] >= 0, in_o = (*at_o)[id] >= 0;
    if (!in_o && in_a != in_b) return std::nullopt;  // summed within one operand
    if (in_a && in_b && !in_o) {
      if (k >= 0) return std::nullopt;  // more than one summed label
      k = static_cast<int>(id);
    }
    // The m / n label that comes last in the output.
    if (in_a && !in_b && in_o && (m < 0 || (*at_o)[id] > (*at_o)[static_cast<size_t>(m)]))
      m = static_cast<int>(id);
    if (in_b && !in_a && in_o && (nn < 0 || (*at_o)[id] > (*at_o)[static_cast<size_t>(nn)]))
      nn = static_cast<int>(id);
  }
  if (k < 0 || m < 0 || nn < 0) return std::nullopt;
  const auto ku = static_cast<size_t>(k);
  if (!same_size(a.shape->dims[static_cast<size_t>((*at_a)[ku])],
                 b.shape->dims[static_cast<size_t>((*at_b)[ku])]))
    return std::nullopt;
  std::vector<int> batch;  // L
  for (int id : e->output)
    if (id != m && id != nn) batch.push_back(id);
  if (!missing_lead(batch, *at_a) || !missing_lead(batch, *at_b)) return std::nullopt;
  Lowering l;
  for (int id : batch) {
    if ((*at_a)[static_cast<size_t>(id)] >= 0) l.perm_a.push_back((*at_a)[static_cast<size_t>(id)]);
    if ((*at_b)[static_cast<size_t>(id)] >= 0) l.perm_b.push_back((*at_b)[static_cast<size_t>(id)]);
  }
  l.perm_a.push_back((*at_a)[static_cast<size_t>(m)]);
  l.perm_a.push_back((*at_a)[ku]);
  l.perm_b.push_back((*at_b)[ku]);
  l.perm_b.push_back((*at_b)[static_cast<size_t>(nn)]);
  std::vector<int> product = batch;  // Y' = [L, m*, n*]
  product.push_back(m);
  product.push_back(nn);
  for (int id : e->output)
    l.perm_out.push_back(std::find(product.begin(), product.end(), id) - product.begin());
  return l;
}

Node transpose_node(std::string name, ValueId in, ValueId out, std::vector<int64_t> perm) {
  Node t;
  t.name = std::move(name);
  t.op = OpType::kTranspose;
  t.op_version = 13;
  t.inputs = {in};
  t.outputs = {out};
  t.attrs.set("perm", std::move(perm));
  return t;
}

}  // namespace

Result<bool> LowerEinsum::run(Graph& g) {
  NameTable value_names = NameTable::values_of(g);
  NameTable node_names = NameTable::nodes_of(g);
  std::vector<Node> nodes;
  nodes.reserve(g.nodes.size());
  bool changed = false;
  for (Node& n : g.nodes) {
    std::optional<Lowering> l =
        n.op == OpType::kEinsum ? plan_lowering(g, n) : std::optional<Lowering>();
    if (!l) {
      nodes.push_back(std::move(n));
      continue;
    }
    changed = true;
    const DType dtype = g.value(n.inputs[0]).dtype;
    // The operands in the product's order, each through a Transpose unless already there.
    auto arrange = [&](ValueId v, const std::vector<int64_t>& perm, const char* side) {
      if (is_identity(perm)) return v;
      const ValueId out = add_computed_value(g, value_names, n.name + "." + side, dtype);
      nodes.push_back(
          transpose_node(node_names.fresh(n.name + "." + side + "_transpose"), v, out, perm));
      return out;
    };
    const ValueId a = arrange(n.inputs[0], l->perm_a, "lhs");
    const ValueId b = arrange(n.inputs[1], l->perm_b, "rhs");
    const ValueId y = n.outputs[0];
    const bool reorder = !is_identity(l->perm_out);
    const ValueId product =
        reorder ? add_computed_value(g, value_names, n.name + ".product", dtype) : y;
    Node mm;
    mm.name = n.name;
    mm.op = OpType::kMatMul;
    mm.op_version = 13;
    mm.inputs = {a, b};
    mm.outputs = {product};
    nodes.push_back(std::move(mm));
    if (reorder)
      nodes.push_back(
          transpose_node(node_names.fresh(n.name + ".output_transpose"), product, y, l->perm_out));
  }
  g.nodes = std::move(nodes);
  return changed;
}

}  // namespace amp::graph
