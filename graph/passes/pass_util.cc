#include "graph/passes/pass_util.h"

namespace amp::graph {

void remove_marked_nodes(Graph& g, const std::vector<char>& remove) {
  std::vector<Node> kept;
  kept.reserve(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (!remove[i]) kept.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(kept);
  g.compact_values();
}

bool is_f32_constant(const Graph& g, ValueId v) {
  return v != kNoValue && g.value(v).is_constant() && g.value(v).dtype == DType::kF32;
}

ValueId add_constant(Graph& g, NameTable& names, const std::string& base, TensorData data) {
  Value v;
  v.name = names.fresh(base);
  v.dtype = data.dtype();
  v.shape = Shape::from_static(data.dims());
  v.constant = std::move(data);
  return g.add_value(std::move(v));
}

ValueId add_computed_value(Graph& g, NameTable& names, const std::string& base, DType dtype) {
  Value v;
  v.name = names.fresh(base);
  v.dtype = dtype;
  return g.add_value(std::move(v));
}

std::optional<ValueId> constant_as_vector(Graph& g, NameTable& names, ValueId v, int64_t n) {
  if (v == kNoValue) return std::nullopt;
  const Value& val = g.value(v);
  if (!val.is_constant() || val.constant->numel() != n) return std::nullopt;
  const std::vector<int64_t>& dims = val.constant->dims();
  if (dims.empty() || dims.back() != n) return std::nullopt;  // numel == n: the rest are 1
  if (dims.size() == 1) return v;
  const uint8_t* bytes = val.constant->bytes();
  auto vec = TensorData::from_bytes(val.dtype, {n},
                                    std::vector<uint8_t>(bytes, bytes + val.constant->byte_size()));
  if (!vec.is_ok()) return std::nullopt;
  const std::string base = val.name + ".as_vector";  // before add_constant moves g.values
  return add_constant(g, names, base, std::move(*vec));
}

std::optional<ConvWeightChannels> conv_weight_channels(const Graph& g, const Node& conv) {
  if ((conv.op != OpType::kConv && conv.op != OpType::kConvTranspose) || conv.inputs.size() < 2 ||
      conv.inputs[1] == kNoValue || !g.value(conv.inputs[1]).is_constant())
    return std::nullopt;
  const std::vector<int64_t>& w = g.value(conv.inputs[1]).constant->dims();
  auto group = conv.attrs.get_int("group", 1);
  if (w.size() < 3 || !group.is_ok() || *group < 1 || w[0] < 1 || w[1] < 1) return std::nullopt;
  int64_t window = 1;
  for (size_t i = 2; i < w.size(); ++i) window *= w[i];
  if (window < 1) return std::nullopt;
  ConvWeightChannels m;
  m.window = window;
  if (conv.op == OpType::kConv) {
    if (w[0] % *group != 0) return std::nullopt;
    m.channels = w[0];
    m.in_per_group = w[1];
    m.out_per_group = w[0] / *group;
    return m;
  }
  if (w[0] % *group != 0) return std::nullopt;
  m.transposed = true;
  m.channels = w[1] * *group;
  m.in_per_group = w[0] / *group;
  m.out_per_group = w[1];
  return m;
}

}  // namespace amp::graph
