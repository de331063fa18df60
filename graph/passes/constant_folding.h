// ConstantFolding: evaluates at load time every node whose result does not depend on the
// run-time inputs, and replaces it with a constant.
//
// Algorithm (one forward sweep, so chains fold in a single pass):
//   for each node in topological order:
//     1. run shape inference for the node, so inputs folded earlier in this sweep (e.g. a
//        Reshape's shape) sharpen its output shape. The graph need not be inferred before:
//        a plan build sets its input dims and lets this sweep infer every node once. A node
//        step 2 finds foldable is inferred without symbolic values (its outputs become
//        constants), and again with them if step 3 does not fold it;
//     2. the node is foldable when every present input is a constant, or when it only
//        reads its input's shape (Shape, Size) and that shape is static;
//     3. ask the ConstantEvaluator; if it computes the outputs, attach them as constants
//        to the output values and drop the node.
// Then unreferenced values are compacted away (DeadCodeElimination removes the rest).
//
// Limits, stated honestly:
//   - A folded output larger than `max_folded_bytes` and larger than the node's constant
//     inputs together is not folded (ConstantOfShape / Expand / Tile would otherwise bloat
//     the model file with data that a kernel produces faster than a disk reads it).
//   - One run materializes at most the bytes of the constants the graph held when it
//     started plus `extra_budget_bytes` (64 MiB); nodes past that stay unfolded. Without
//     it a small hostile file could fold 100,000 ConstantOfShape nodes of 1 MiB each, or
//     copy one big weight through a long chain of Identity nodes, into gigabytes. A real
//     model folds shape arithmetic (bytes) and weight transforms (at most its weights).
//   - Shape arithmetic over symbolic dims is not folded: Shape of [N,3,224,224] stays a
//     node (partial/symbolic value propagation is a later step).
//   - Only ops the evaluator knows fold; the others stay, correctly, for run time.
#pragma once

#include <memory>

#include "graph/passes/const_eval.h"
#include "graph/passes/pass.h"

namespace amp::graph {

class ConstantFolding : public Pass {
 public:
  // Uses ReferenceEvaluator when `evaluator` is null.
  explicit ConstantFolding(std::shared_ptr<ConstantEvaluator> evaluator = nullptr,
                           size_t max_folded_bytes = size_t{1} << 20,
                           size_t extra_budget_bytes = size_t{64} << 20);
  std::string_view name() const override { return "constant-folding"; }
  Result<bool> run(Graph& g) override;

 private:
  std::shared_ptr<ConstantEvaluator> evaluator_;
  size_t max_folded_bytes_;
  size_t extra_budget_bytes_;
};

}  // namespace amp::graph
