#include "passes/constant_folding.h"

#include "ops/shape_inference.h"

namespace amp::graph {
namespace {

bool reads_only_shape(OpType op) {
  return op == OpType::kShape || op == OpType::kSize;
}

bool foldable(const Graph& g, const Node& n) {
  if (n.inputs.empty() && n.op != OpType::kConstantOfShape) return false;
  for (ValueId v : n.inputs) {
    if (v == kNoValue) continue;
    const Value& val = g.value(v);
    if (val.is_constant()) continue;
    if (reads_only_shape(n.op) && val.shape && val.shape->is_static()) continue;
    return false;
  }
  return true;
}

size_t constant_input_bytes(const Graph& g, const Node& n) {
  size_t total = 0;
  for (ValueId v : n.inputs)
    if (v != kNoValue && g.value(v).is_constant()) total += g.value(v).constant->byte_size();
  return total;
}

size_t output_bytes(const Graph& g, const Node& n) {
  size_t total = 0;
  for (ValueId v : n.outputs) {
    if (v == kNoValue) continue;
    const Value& val = g.value(v);
    if (!val.shape || !val.shape->is_static()) return SIZE_MAX;
    auto numel = val.shape->numel();
    if (!numel) return SIZE_MAX;
    total += static_cast<size_t>(*numel) * dtype_size(val.dtype);
  }
  return total;
}

}  // namespace

ConstantFolding::ConstantFolding(std::shared_ptr<ConstantEvaluator> evaluator,
                                 size_t max_folded_bytes)
    : evaluator_(evaluator ? std::move(evaluator) : std::make_shared<ReferenceEvaluator>()),
      max_folded_bytes_(max_folded_bytes) {}

Result<bool> ConstantFolding::run(Graph& g) {
  std::vector<Node> kept;
  kept.reserve(g.nodes.size());
  bool changed = false;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    // Inference reads g.nodes[i]; nodes before i have been moved to `kept`, which is
    // fine: inference looks only at this node and its values.
    AMP_RETURN_IF_ERROR(infer_node(g, static_cast<NodeId>(i)));
    Node& n = g.nodes[i];
    bool folded = false;
    if (foldable(g, n)) {
      const size_t out_bytes = output_bytes(g, n);
      if (out_bytes <= max_folded_bytes_ || out_bytes <= constant_input_bytes(g, n)) {
        std::vector<const Value*> ins, outs;
        for (ValueId v : n.inputs) ins.push_back(v == kNoValue ? nullptr : &g.value(v));
        for (ValueId v : n.outputs) outs.push_back(v == kNoValue ? nullptr : &g.value(v));
        auto result = evaluator_->evaluate(n, ins, outs);
        if (!result.is_ok())
          return result.status().with_context("node '" + n.name + "' (" +
                                              std::string(op_name(n.op)) + ")");
        if (result->has_value() && (*result)->size() == n.outputs.size()) {
          for (size_t k = 0; k < n.outputs.size(); ++k) {
            if (n.outputs[k] == kNoValue) continue;
            g.value(n.outputs[k]).constant = std::move((**result)[k]);
          }
          folded = true;
          changed = true;
        }
      }
    }
    if (!folded) kept.push_back(std::move(n));
  }
  g.nodes = std::move(kept);
  // A folded graph output stays a (constant) graph output; a graph input is never folded.
  if (changed) g.compact_values();
  return changed;
}

}  // namespace amp::graph
