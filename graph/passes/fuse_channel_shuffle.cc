#include "graph/passes/fuse_channel_shuffle.h"

#include <optional>
#include <vector>

#include "graph/ir/name_table.h"
#include "graph/passes/pass_util.h"

namespace amp::graph {
namespace {

// The channel permutation of Reshape(x) -> Transpose -> Reshape starting at `first`, or
// nullopt: idx[c'] is the input channel that output channel c' reads.
std::optional<std::vector<int64_t>> shuffle_indices(const Graph& g, const Node& first,
                                                    const Node& transpose, const Node& last) {
  auto dims = [&](const std::vector<ValueId>& values) -> std::optional<std::vector<int64_t>> {
    if (values.empty() || values[0] == kNoValue) return std::nullopt;
    return g.value(values[0]).static_dims();
  };
  const auto x = dims(first.inputs), split = dims(first.outputs), y = dims(last.outputs);
  if (!dims(transpose.outputs) || !x || !split || !y || x->size() < 3 || x->size() > 5 ||
      *y != *x || split->size() != x->size() + 1)
    return std::nullopt;
  const size_t r = x->size();
  const int64_t c = (*x)[1], groups = (*split)[1], per_group = (*split)[2];
  if ((*split)[0] != (*x)[0] || groups < 1 || per_group < 1 || groups * per_group != c)
    return std::nullopt;
  for (size_t i = 2; i < r; ++i)
    if ((*split)[i + 1] != (*x)[i]) return std::nullopt;
  auto perm = transpose.attrs.get_ints("perm");
  std::vector<int64_t> want = {0, 2, 1};
  for (size_t i = 3; i <= r; ++i) want.push_back(static_cast<int64_t>(i));
  if (!perm.is_ok() || *perm != want) return std::nullopt;
  std::vector<int64_t> idx(static_cast<size_t>(c));
  for (int64_t k = 0; k < per_group; ++k)
    for (int64_t j = 0; j < groups; ++j)
      idx[static_cast<size_t>(k * groups + j)] = j * per_group + k;
  return idx;
}

Node gather_node(const std::string& name, ValueId data, ValueId indices, ValueId out) {
  Node n;
  n.name = name;
  n.op = OpType::kGather;
  n.op_version = 13;
  n.inputs = {data, indices};
  n.outputs = {out};
  n.attrs.set("axis", int64_t{1});
  return n;
}

}  // namespace

Result<bool> FuseChannelShuffle::run(Graph& g) {
  std::vector<std::vector<NodeId>> consumers = compute_consumers(g);
  std::vector<NodeId> producer = compute_producers(g);
  std::vector<char> is_output(g.values.size(), 0);
  for (ValueId v : g.outputs) is_output[static_cast<size_t>(v)] = 1;
  NameTable names = NameTable::values_of(g);
  // The only reader of v, or nullptr (none, several, or v is a graph output).
  auto sole_reader = [&](ValueId v) -> const Node* {
    if (v == kNoValue || is_output[static_cast<size_t>(v)] ||
        consumers[static_cast<size_t>(v)].size() != 1)
      return nullptr;
    return &g.nodes[static_cast<size_t>(consumers[static_cast<size_t>(v)][0])];
  };
  std::vector<char> remove(g.nodes.size(), 0);
  // Per node index: the Gather that replaces the chain ending there (built in place of the
  // last Reshape, so the order stays topological).
  std::vector<std::optional<Node>> replacement(g.nodes.size());
  bool changed = false;

  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& first = g.nodes[i];
    if (first.op != OpType::kReshape || first.outputs.size() != 1) continue;
    const Node* transpose = sole_reader(first.outputs[0]);
    if (!transpose || transpose->op != OpType::kTranspose) continue;
    const Node* last = sole_reader(transpose->outputs[0]);
    if (!last || last->op != OpType::kReshape) continue;
    const std::optional<std::vector<int64_t>> idx = shuffle_indices(g, first, *transpose, *last);
    if (!idx) continue;
    const size_t t = static_cast<size_t>(producer[static_cast<size_t>(transpose->outputs[0])]);
    const size_t l = static_cast<size_t>(producer[static_cast<size_t>(last->outputs[0])]);
    const ValueId indices = add_constant(
        g, names, last->name + ".shuffle",
        TensorData::from_vector(DType::kI64, {static_cast<int64_t>(idx->size())}, *idx));
    // add_constant may reallocate g.values, not g.nodes.
    replacement[l] =
        gather_node(g.nodes[l].name, g.nodes[i].inputs[0], indices, g.nodes[l].outputs[0]);
    remove[i] = remove[t] = 1;
    changed = true;
  }

  // A Split of a shuffle's channels: one Gather per part, in the Split's place.
  std::vector<std::vector<Node>> split_gathers(g.nodes.size());
  for (size_t l = 0; l < g.nodes.size(); ++l) {
    if (!replacement[l]) continue;
    const ValueId y = replacement[l]->outputs[0];
    const Node* split = sole_reader(y);
    if (!split || split->op != OpType::kSplit) continue;
    auto axis = split->attrs.get_int("axis", 0);
    if (!axis.is_ok() ||
        (*axis != 1 && *axis != 1 - static_cast<int64_t>(g.value(y).shape->rank())))
      continue;
    const TensorData& shuffle = *g.value(replacement[l]->inputs[1]).constant;
    const std::vector<int64_t> idx(shuffle.data<int64_t>(),
                                   shuffle.data<int64_t>() + shuffle.numel());
    std::vector<int64_t> sizes;
    int64_t total = 0;
    for (ValueId part : split->outputs) {  // every part used, of a static shape
      if (part == kNoValue) break;
      const auto d = g.value(part).static_dims();
      if (!d || d->size() < 2) break;
      sizes.push_back((*d)[1]);
      total += (*d)[1];
    }
    if (sizes.size() != split->outputs.size() || total != static_cast<int64_t>(idx.size()))
      continue;
    const size_t s = static_cast<size_t>(consumers[static_cast<size_t>(y)][0]);
    int64_t at = 0;
    for (size_t p = 0; p < sizes.size(); ++p) {
      const std::vector<int64_t> part(idx.begin() + at, idx.begin() + at + sizes[p]);
      at += sizes[p];
      const ValueId indices = add_constant(g, names, g.nodes[s].name + ".part" + std::to_string(p),
                                           TensorData::from_vector(DType::kI64, {sizes[p]}, part));
      split_gathers[s].push_back(gather_node(g.nodes[s].name + ".part" + std::to_string(p),
                                             replacement[l]->inputs[0], indices,
                                             g.nodes[s].outputs[p]));
    }
    replacement[l].reset();  // the whole shuffle is the Split's Gathers now
    remove[l] = 1;
  }
  if (!changed) return false;

  std::vector<Node> nodes;
  nodes.reserve(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (replacement[i]) {
      nodes.push_back(std::move(*replacement[i]));
    } else if (!split_gathers[i].empty()) {
      for (Node& n : split_gathers[i]) nodes.push_back(std::move(n));
    } else if (!remove[i]) {
      nodes.push_back(std::move(g.nodes[i]));
    }
  }
  g.nodes = std::move(nodes);
  // The chains' inner values are unreferenced now: drop them.
  remove_marked_nodes(g, std::vector<char>(g.nodes.size(), 0));
  return true;
}

}  // namespace amp::graph
