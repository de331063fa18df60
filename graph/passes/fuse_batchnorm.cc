#include "graph/passes/fuse_batchnorm.h"

#include <cmath>

#include "graph/ir/name_table.h"
#include "graph/passes/pass_util.h"

namespace amp::graph {
namespace {

// Returns the folded (weight, bias) or nullopt when shapes don't line up.
std::optional<std::pair<TensorData, TensorData>> fold(const Graph& g, const Node& conv,
                                                      const Node& bn) {
  const std::optional<ConvWeightChannels> channels = conv_weight_channels(g, conv);
  if (!channels) return std::nullopt;
  const TensorData& w = *g.value(conv.inputs[1]).constant;
  const int64_t cout = channels->channels;
  auto vec = [&](ValueId v) -> const TensorData& { return *g.value(v).constant; };
  const TensorData &s = vec(bn.inputs[1]), &b = vec(bn.inputs[2]), &m = vec(bn.inputs[3]),
                   &var = vec(bn.inputs[4]);
  for (const TensorData* t : {&s, &b, &m, &var})
    if (t->numel() != cout) return std::nullopt;
  auto eps_r = bn.attrs.get_float("epsilon", 1e-5f);
  if (!eps_r.is_ok()) return std::nullopt;
  const double eps = *eps_r;
  const float* conv_bias = nullptr;
  if (conv.inputs.size() > 2 && conv.inputs[2] != kNoValue) {
    const TensorData& cb = vec(conv.inputs[2]);
    if (cb.numel() != cout) return std::nullopt;
    conv_bias = cb.data<float>();
  }
  std::vector<double> scale(static_cast<size_t>(cout));
  std::vector<float> new_b(static_cast<size_t>(cout));
  for (int64_t o = 0; o < cout; ++o) {
    const double k = s.data<float>()[o] / std::sqrt(double(var.data<float>()[o]) + eps);
    scale[static_cast<size_t>(o)] = k;
    const double bias = conv_bias ? conv_bias[o] : 0.0;
    new_b[o] = static_cast<float>((bias - m.data<float>()[o]) * k + b.data<float>()[o]);
  }
  std::vector<float> new_w(static_cast<size_t>(w.numel()));
  const float* old_w = w.data<float>();
  for (int64_t i = 0; i < w.numel(); ++i)
    new_w[static_cast<size_t>(i)] =
        static_cast<float>(old_w[i] * scale[static_cast<size_t>(channels->of_element(i))]);
  return std::make_pair(TensorData::from_vector(DType::kF32, w.dims(), new_w),
                        TensorData::from_vector(DType::kF32, {cout}, new_b));
}

}  // namespace

Result<bool> FoldBatchNormIntoConv::run(Graph& g) {
  std::vector<std::vector<NodeId>> consumers = compute_consumers(g);
  std::vector<NodeId> producer = compute_producers(g);
  std::vector<char> is_output(g.values.size(), 0);
  for (ValueId v : g.outputs) is_output[static_cast<size_t>(v)] = 1;
  std::vector<char> remove(g.nodes.size(), 0);
  bool changed = false;
  NameTable names = NameTable::values_of(g);  // one table: a name per fold stays O(1)

  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& bn = g.nodes[i];
    if (bn.op != OpType::kBatchNormalization || bn.inputs.size() != 5) continue;
    if (bn.outputs.size() != 1 || bn.outputs[0] == kNoValue) continue;
    const ValueId y = bn.inputs[0];
    if (y == kNoValue || producer[static_cast<size_t>(y)] < 0) continue;
    Node& conv = g.nodes[static_cast<size_t>(producer[static_cast<size_t>(y)])];
    if ((conv.op != OpType::kConv && conv.op != OpType::kConvTranspose) || conv.outputs.size() != 1)
      continue;
    if (consumers[static_cast<size_t>(y)].size() != 1 || is_output[static_cast<size_t>(y)])
      continue;
    if (!is_f32_constant(g, conv.inputs[1])) continue;
    if (conv.inputs.size() > 2 && conv.inputs[2] != kNoValue && !is_f32_constant(g, conv.inputs[2]))
      continue;
    bool params_ok = true;
    for (size_t k = 1; k < 5; ++k) params_ok = params_ok && is_f32_constant(g, bn.inputs[k]);
    if (!params_ok) continue;
    auto folded = fold(g, conv, bn);
    if (!folded) continue;

    // add_constant may reallocate g.values; conv/bn are nodes, not values, so safe.
    const ValueId wid =
        add_constant(g, names, conv.name + ".folded_weight", std::move(folded->first));
    const ValueId bid =
        add_constant(g, names, conv.name + ".folded_bias", std::move(folded->second));
    conv.inputs.resize(3, kNoValue);
    conv.inputs[1] = wid;
    conv.inputs[2] = bid;
    conv.outputs[0] = bn.outputs[0];
    remove[i] = 1;
    changed = true;
  }
  if (!changed) return false;
  remove_marked_nodes(g, remove);
  return true;
}

}  // namespace amp::graph
