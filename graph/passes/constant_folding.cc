#include "graph/passes/constant_folding.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "graph/ops/shape_inference.h"

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

// SIZE_MAX when unknown or too large to count (saturating: shapes come from files).
size_t output_bytes(const Graph& g, const Node& n) {
  size_t total = 0;
  for (ValueId v : n.outputs) {
    if (v == kNoValue) continue;
    const Value& val = g.value(v);
    if (!val.shape || !val.shape->is_static()) return SIZE_MAX;
    auto numel = val.shape->numel();
    size_t bytes = 0;
    if (!numel ||
        __builtin_mul_overflow(static_cast<size_t>(*numel), dtype_size(val.dtype), &bytes) ||
        __builtin_add_overflow(total, bytes, &total))
      return SIZE_MAX;
  }
  return total;
}

// The memory the graph's constants occupy: the union of their byte ranges, since an .amp
// file may point many weights at the same bytes (which would otherwise inflate the budget).
size_t graph_constant_bytes(const Graph& g) {
  std::vector<std::pair<uintptr_t, uintptr_t>> ranges;
  for (const Value& v : g.values) {
    if (!v.is_constant() || v.constant->byte_size() == 0) continue;
    const auto start = reinterpret_cast<uintptr_t>(v.constant->bytes());
    ranges.emplace_back(start, start + v.constant->byte_size());
  }
  std::sort(ranges.begin(), ranges.end());
  size_t total = 0;
  uintptr_t covered = 0;  // end of the ranges counted so far
  for (const auto& [start, end] : ranges) {
    if (end <= covered) continue;
    total += end - std::max(start, covered);
    covered = end;
  }
  return total;
}

}  // namespace

ConstantFolding::ConstantFolding(std::shared_ptr<ConstantEvaluator> evaluator,
                                 size_t max_folded_bytes, size_t extra_budget_bytes)
    : evaluator_(evaluator ? std::move(evaluator) : std::make_shared<ReferenceEvaluator>()),
      max_folded_bytes_(max_folded_bytes),
      extra_budget_bytes_(extra_budget_bytes) {}

Result<bool> ConstantFolding::run(Graph& g) {
  // Nodes that stay move down to g.nodes[kept] in place: a plan build runs this on a graph
  // it has just copied, and a second array of nodes would be more memory to touch.
  size_t kept = 0;
  bool changed = false;
  size_t budget = graph_constant_bytes(g);
  budget = budget > SIZE_MAX - extra_budget_bytes_ ? SIZE_MAX : budget + extra_budget_bytes_;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    // Inference reads g.nodes[i]; nodes before i have moved down or folded, which is fine:
    // inference looks only at this node and its values.
    // foldable() reads only the inputs, inferred already.
    const bool can_fold = foldable(g, g.nodes[i]);
    AMP_RETURN_IF_ERROR(
        infer_node(g, static_cast<NodeId>(i), can_fold ? SymValues::kClear : SymValues::kDerive));
    Node& n = g.nodes[i];
    bool folded = false;
    if (can_fold) {
      const size_t out_bytes = output_bytes(g, n);
      const bool small = out_bytes <= max_folded_bytes_ || out_bytes <= constant_input_bytes(g, n);
      if (small && out_bytes <= budget) {
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
          budget -= out_bytes;
        }
      }
    }
    if (!folded) {
      // Not folded after all (too large, or the evaluator declined): the nodes after it may
      // read its outputs' symbolic values.
      if (can_fold) AMP_RETURN_IF_ERROR(infer_node(g, static_cast<NodeId>(i)));
      if (kept != i) g.nodes[kept] = std::move(g.nodes[i]);
      ++kept;
    }
  }
  g.nodes.resize(kept);
  // A folded graph output stays a (constant) graph output; a graph input is never folded.
  if (changed) g.compact_values();
  return changed;
}

}  // namespace amp::graph
