#include "graph/passes/fuse_matmul_bias.h"

#include <optional>
#include <string>
#include <vector>

#include "graph/ir/name_table.h"
#include "graph/passes/pass_util.h"

namespace amp::graph {
namespace {

// The bias operand of `add` (the one that is not `y`) as a [n] constant of y's dtype that
// broadcasts along y's last axis only, or nullopt.
std::optional<ValueId> bias_vector(Graph& g, NameTable& names, const Node& add, ValueId y,
                                   int64_t n, size_t y_rank) {
  if (add.inputs.size() != 2) return std::nullopt;
  const ValueId b = add.inputs[0] == y ? add.inputs[1] : add.inputs[0];
  if (b == y || (add.inputs[0] != y && add.inputs[1] != y)) return std::nullopt;
  const Value& bv = g.value(b);
  if (!bv.is_constant() || bv.dtype != g.value(y).dtype || bv.constant->dims().size() > y_rank)
    return std::nullopt;
  return constant_as_vector(g, names, b, n);
}

}  // namespace

Result<bool> FuseMatMulBias::run(Graph& g) {
  const std::vector<std::vector<NodeId>> consumers = compute_consumers(g);
  std::vector<char> is_output(g.values.size(), 0);
  for (ValueId v : g.outputs) is_output[static_cast<size_t>(v)] = 1;

  NameTable value_names = NameTable::values_of(g);
  NameTable node_names = NameTable::nodes_of(g);
  // The new node list: the old nodes, a Gemm group in place of each fused MatMul, its Add
  // (and a moved activation) dropped.
  std::vector<Node> nodes;
  nodes.reserve(g.nodes.size());
  std::vector<char> drop(g.nodes.size(), 0);
  bool changed = false;
  const size_t old_count = g.nodes.size();
  for (size_t i = 0; i < old_count; ++i) {
    if (drop[i]) continue;
    Node& mm = g.nodes[i];
    auto keep = [&] { nodes.push_back(std::move(g.nodes[i])); };
    if (mm.op != OpType::kMatMul || mm.inputs.size() != 2 || mm.outputs.size() != 1 ||
        mm.attrs.has("fused_activation")) {
      keep();
      continue;
    }
    const ValueId a = mm.inputs[0], w = mm.inputs[1], y = mm.outputs[0];
    const auto& uses = consumers[static_cast<size_t>(y)];
    const Value& wv = g.value(w);
    const Value& av = g.value(a);
    if (uses.size() != 1 || is_output[static_cast<size_t>(y)] || !wv.is_constant() ||
        wv.constant->dims().size() != 2 || !av.shape || av.shape->rank() < 2 ||
        !av.shape->dims.back().is_static()) {
      keep();
      continue;
    }
    Node& add = g.nodes[static_cast<size_t>(uses[0])];
    const int64_t k = av.shape->dims.back().value, n = wv.constant->dims()[1];
    const size_t rank = av.shape->rank();
    if (add.op != OpType::kAdd || add.outputs.size() != 1 || wv.constant->dims()[0] != k) {
      keep();
      continue;
    }
    // The output Reshape's target: the leading dims, one of them possibly -1, then N.
    std::vector<int64_t> out_dims;
    int unknown = 0;
    for (size_t d = 0; d + 1 < rank; ++d) {
      const Dim& dim = av.shape->dims[d];
      out_dims.push_back(dim.is_static() ? dim.value : -1);
      unknown += dim.is_static() ? 0 : 1;
    }
    out_dims.push_back(n);
    const DType dtype = av.dtype;
    std::optional<ValueId> bias =
        unknown <= 1 ? bias_vector(g, value_names, add, y, n, rank) : std::nullopt;
    if (!bias) {
      keep();
      continue;
    }
    // From here on `mm`, `add`, `av` and `wv` may dangle (values were added): use ids.
    const std::string mm_name = g.nodes[i].name;
    const ValueId z = g.nodes[static_cast<size_t>(uses[0])].outputs[0];
    drop[static_cast<size_t>(uses[0])] = 1;
    changed = true;
    Node gemm;
    gemm.name = mm_name;
    gemm.op = OpType::kGemm;
    gemm.op_version = 13;
    if (rank == 2) {
      gemm.inputs = {a, w, *bias};
      gemm.outputs = {z};
      nodes.push_back(std::move(gemm));
      continue;
    }
    // A unary elementwise op (an activation) that is z's only use commutes with the output
    // Reshape: it moves before it, where FuseActivation finds it right after the Gemm.
    ValueId out = z;
    const auto& z_uses = consumers[static_cast<size_t>(z)];
    NodeId act = -1;
    if (z_uses.size() == 1 && !is_output[static_cast<size_t>(z)]) {
      const Node& c = g.nodes[static_cast<size_t>(z_uses[0])];
      if (has_trait(c.op, kElementwise) && has_trait(c.op, kUnary) && c.inputs.size() == 1 &&
          c.outputs.size() == 1 && g.value(c.outputs[0]).dtype == dtype) {
        act = z_uses[0];
        out = c.outputs[0];
        drop[static_cast<size_t>(act)] = 1;
      }
    }
    const ValueId a2 = add_computed_value(g, value_names, mm_name + ".rows", dtype);
    const ValueId y2 = add_computed_value(g, value_names, mm_name + ".gemm", dtype);
    Node to_rows;
    to_rows.name = node_names.fresh(mm_name + ".to_rows");
    to_rows.op = OpType::kReshape;
    to_rows.op_version = 14;
    to_rows.inputs = {
        a, add_constant(g, value_names, mm_name + ".rows_shape", TensorData::vector_i64({-1, k}))};
    to_rows.outputs = {a2};
    gemm.inputs = {a2, w, *bias};
    gemm.outputs = {y2};
    Node back;
    back.name = node_names.fresh(mm_name + ".from_rows");
    back.op = OpType::kReshape;
    back.op_version = 14;
    nodes.push_back(std::move(to_rows));
    nodes.push_back(std::move(gemm));
    ValueId rows_out = y2;  // what the output Reshape reads: the Gemm's or the activation's
    if (act >= 0) {
      Node moved = std::move(g.nodes[static_cast<size_t>(act)]);
      rows_out = add_computed_value(g, value_names, moved.name + ".rows", dtype);
      moved.inputs = {y2};
      moved.outputs = {rows_out};
      nodes.push_back(std::move(moved));
    }
    back.inputs = {rows_out, add_constant(g, value_names, mm_name + ".out_shape",
                                          TensorData::vector_i64(out_dims))};
    back.outputs = {out};
    nodes.push_back(std::move(back));
  }
  g.nodes = std::move(nodes);  // every node was moved into `nodes`, changed or not
  if (changed) g.compact_values();
  return changed;
}

}  // namespace amp::graph
