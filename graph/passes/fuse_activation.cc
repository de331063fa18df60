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

// For Mul(y, Sigmoid(y)) in either order: the Sigmoid node, when y has no other consumer
// than those two and the Sigmoid's output no other than the Mul; else -1.
NodeId swish_sigmoid(const Graph& g, const Node& mul,
                     const std::vector<std::vector<NodeId>>& consumers,
                     const std::vector<NodeId>& producer) {
  if (mul.op != OpType::kMul || mul.inputs.size() != 2) return -1;
  for (int k = 0; k < 2; ++k) {
    const ValueId y = mul.inputs[static_cast<size_t>(k)];
    const ValueId s = mul.inputs[static_cast<size_t>(1 - k)];
    if (y == kNoValue || s == kNoValue || y == s) continue;
    const NodeId sig = producer[static_cast<size_t>(s)];
    if (sig < 0) continue;
    const Node& sn = g.nodes[static_cast<size_t>(sig)];
    if (sn.op != OpType::kSigmoid || sn.inputs.size() != 1 || sn.inputs[0] != y) continue;
    if (consumers[static_cast<size_t>(s)].size() != 1 ||
        consumers[static_cast<size_t>(y)].size() != 2)
      continue;
    return sig;
  }
  return -1;
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
    // The fused value y, and what the activation is: one node reading y alone, or SiLU's
    // Sigmoid and Mul (swish_sigmoid checked y's and the Sigmoid's readers).
    ValueId y = act.inputs[0];
    Attributes fused;
    const NodeId sig = swish_sigmoid(g, act, consumers, producer);
    if (sig >= 0) {
      const Node& sn = g.nodes[static_cast<size_t>(sig)];
      y = sn.inputs[0];
      if (is_output[static_cast<size_t>(sn.outputs[0])]) continue;
      fused.set("fused_activation", std::string("Swish"));
    } else if (consumers[static_cast<size_t>(y)].size() != 1 ||
               !describe_activation(g, act, fused)) {
      continue;
    }
    const NodeId p = producer[static_cast<size_t>(y)];
    if (p < 0) continue;
    Node& prod = g.nodes[static_cast<size_t>(p)];
    if (!fusable_producer(prod.op) || prod.attrs.has("fused_activation") ||
        prod.outputs.size() != 1 || is_output[static_cast<size_t>(y)] ||
        g.value(y).dtype != g.value(act.outputs[0]).dtype)
      continue;
    for (const auto& [k, v] : fused.all()) prod.attrs.set(k, v);
    prod.outputs[0] = act.outputs[0];
    remove[i] = 1;
    if (sig >= 0) remove[static_cast<size_t>(sig)] = 1;
    changed = true;
  }
  if (!changed) return false;
  remove_marked_nodes(g, remove);
  return true;
}

}  // namespace amp::graph
