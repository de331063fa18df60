#include "graph/passes/fuse_activation.h"

#include <cfloat>

#include "graph/passes/pass_util.h"

namespace amp::graph {
namespace {

bool fusable_producer(OpType op) {
  return op == OpType::kConv || op == OpType::kConvTranspose || op == OpType::kGemm ||
         op == OpType::kMatMul;
}

// Fills the fused attributes for `act`, or returns false when it cannot be fused.
bool describe_activation(const Graph& g, const Node& act, Attributes& out) {
  switch (act.op) {
    case OpType::kRelu:
    case OpType::kSigmoid:
    case OpType::kTanh:
    case OpType::kHardSwish:
      out.set("fused_activation", std::string(op_name(act.op)));
      return true;
    case OpType::kGelu: {
      auto approximate = act.attrs.get_string("approximate", "none");
      if (!approximate.is_ok() || (*approximate != "none" && *approximate != "tanh")) return false;
      out.set("fused_activation", std::string(*approximate == "tanh" ? "GeluTanh" : "Gelu"));
      return true;
    }
    case OpType::kLeakyRelu: {
      auto alpha = act.attrs.get_float("alpha", 0.01f);
      if (!alpha.is_ok()) return false;
      out.set("fused_activation", std::string("LeakyRelu"));
      out.set("fused_alpha", *alpha);
      return true;
    }
    case OpType::kHardSigmoid: {
      auto alpha = act.attrs.get_float("alpha", 0.2f);
      auto beta = act.attrs.get_float("beta", 0.5f);
      if (!alpha.is_ok() || !beta.is_ok()) return false;
      out.set("fused_activation", std::string("HardSigmoid"));
      out.set("fused_alpha", *alpha);
      out.set("fused_beta", *beta);
      return true;
    }
    case OpType::kClip: {
      float lo = -FLT_MAX, hi = FLT_MAX;
      for (size_t k = 1; k < act.inputs.size() && k < 3; ++k) {
        const ValueId v = act.inputs[k];
        if (v == kNoValue) continue;
        const Value& val = g.value(v);
        if (!val.is_constant() || val.constant->numel() != 1 || !is_float(val.dtype)) return false;
        const float bound = static_cast<float>(val.constant->to_f64_vector()[0]);
        (k == 1 ? lo : hi) = bound;
      }
      out.set("fused_activation", std::string("Clip"));
      out.set("fused_alpha", lo);
      out.set("fused_beta", hi);
      return true;
    }
    default:
      return false;
  }
}

}  // namespace

Result<bool> FuseActivation::run(Graph& g) {
  std::vector<std::vector<NodeId>> consumers = compute_consumers(g);
  std::vector<NodeId> producer = compute_producers(g);
  std::vector<char> is_output(g.values.size(), 0);
  for (ValueId v : g.outputs) is_output[static_cast<size_t>(v)] = 1;
  std::vector<char> remove(g.nodes.size(), 0);
  bool changed = false;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& act = g.nodes[i];
    if (act.inputs.empty() || act.outputs.size() != 1 || act.inputs[0] == kNoValue) continue;
    const ValueId y = act.inputs[0];
    const NodeId p = producer[static_cast<size_t>(y)];
    if (p < 0) continue;
    Node& prod = g.nodes[static_cast<size_t>(p)];
    if (!fusable_producer(prod.op) || prod.attrs.has("fused_activation")) continue;
    if (consumers[static_cast<size_t>(y)].size() != 1 || is_output[static_cast<size_t>(y)])
      continue;
    if (prod.outputs.size() != 1 || g.value(y).dtype != g.value(act.outputs[0]).dtype) continue;
    Attributes fused;
    if (!describe_activation(g, act, fused)) continue;
    for (const auto& [k, v] : fused.all()) prod.attrs.set(k, v);
    prod.outputs[0] = act.outputs[0];
    remove[i] = 1;
    changed = true;
  }
  if (!changed) return false;
  remove_marked_nodes(g, remove);
  return true;
}

}  // namespace amp::graph
