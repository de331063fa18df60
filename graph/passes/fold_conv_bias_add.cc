#include "graph/passes/fold_conv_bias_add.h"

#include <optional>
#include <vector>

#include "graph/ir/name_table.h"
#include "graph/passes/pass_util.h"

namespace amp::graph {
namespace {

// c[o] for every output channel o (a one-element c repeated), when c's dims, aligned to the
// conv output's `rank` dims from the right, vary along the channel axis only; else nullopt.
std::optional<std::vector<float>> per_channel(const TensorData& c, size_t rank, int64_t m) {
  const std::vector<int64_t>& dims = c.dims();
  if (dims.size() > rank || (c.numel() != m && c.numel() != 1)) return std::nullopt;
  for (size_t j = 0; j < dims.size(); ++j) {
    const size_t axis = rank - dims.size() + j;
    if (dims[j] != 1 && !(axis == 1 && dims[j] == m)) return std::nullopt;
  }
  const float* p = c.data<float>();
  std::vector<float> out(static_cast<size_t>(m));
  for (int64_t o = 0; o < m; ++o) out[static_cast<size_t>(o)] = c.numel() == 1 ? p[0] : p[o];
  return out;
}

}  // namespace

Result<bool> FoldAddIntoConvBias::run(Graph& g) {
  const std::vector<std::vector<NodeId>> consumers = compute_consumers(g);
  const std::vector<NodeId> producer = compute_producers(g);
  std::vector<char> is_output(g.values.size(), 0);
  for (ValueId v : g.outputs) is_output[static_cast<size_t>(v)] = 1;
  std::vector<char> remove(g.nodes.size(), 0);
  NameTable names = NameTable::values_of(g);
  bool changed = false;

  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& add = g.nodes[i];
    if (add.op != OpType::kAdd || add.inputs.size() != 2 || add.outputs.size() != 1) continue;
    for (int side = 0; side < 2; ++side) {
      const ValueId y = add.inputs[static_cast<size_t>(side)];
      const ValueId c = add.inputs[static_cast<size_t>(1 - side)];
      if (y == kNoValue || y == c || producer[static_cast<size_t>(y)] < 0) continue;
      const size_t conv_id = static_cast<size_t>(producer[static_cast<size_t>(y)]);
      const Node& conv = g.nodes[conv_id];
      if ((conv.op != OpType::kConv && conv.op != OpType::kConvTranspose) ||
          conv.outputs.size() != 1 || conv.inputs.size() < 2)
        continue;
      if (consumers[static_cast<size_t>(y)].size() != 1 || is_output[static_cast<size_t>(y)])
        continue;
      const Value& yv = g.value(y);
      const bool has_bias = conv.inputs.size() > 2 && conv.inputs[2] != kNoValue;
      if (yv.dtype != DType::kF32 || !yv.shape || yv.shape->rank() < 3 ||
          !is_f32_constant(g, conv.inputs[1]) || !is_f32_constant(g, c) ||
          (has_bias && !is_f32_constant(g, conv.inputs[2])))
        continue;
      const std::optional<ConvWeightChannels> channels = conv_weight_channels(g, conv);
      if (!channels) continue;
      const int64_t m = channels->channels;
      std::optional<std::vector<float>> bias =
          per_channel(*g.value(c).constant, yv.shape->rank(), m);
      if (!bias) continue;
      if (has_bias) {
        const TensorData& old = *g.value(conv.inputs[2]).constant;
        if (old.numel() != m) continue;
        for (int64_t o = 0; o < m; ++o) (*bias)[static_cast<size_t>(o)] += old.data<float>()[o];
      }
      const ValueId z = add.outputs[0];
      const std::string base = conv.name + ".folded_bias";
      // add_constant may reallocate g.values, not g.nodes: `conv` and `add` stay valid.
      const ValueId b =
          add_constant(g, names, base, TensorData::from_vector(DType::kF32, {m}, *bias));
      Node& fused = g.nodes[conv_id];
      fused.inputs.resize(3, kNoValue);
      fused.inputs[2] = b;
      fused.outputs[0] = z;
      remove[i] = 1;
      changed = true;
      break;
    }
  }
  if (!changed) return false;
  remove_marked_nodes(g, remove);
  return true;
}

}  // namespace amp::graph
