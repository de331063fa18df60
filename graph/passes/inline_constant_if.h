// InlineConstantIf: replaces an If whose condition is a constant by the branch it takes.
//
// Exporters write If for what is static at export time but not in the traced code: a rank
// test in an AffineGrid, "if seq_len > max_len" on an input shape, a training flag. Once the
// condition folds (at load, or when a plan binds the input dims), the If is plain data flow:
// inlining it lets constant folding and the kernels see through it and keeps the runtime
// from cutting the plan there (runtime/plan_split.h).
//
// Algorithm, per If with a constant one-element condition, in topological order:
//   1. take then_branch if the condition is true, else else_branch;
//   2. map the branch's inputs to the node's captured inputs (graph/ops/control_flow.h) and
//      copy every other branch value into the graph under a fresh name ("<node>/<name>");
//   3. a branch output produced by a branch node is written straight into the If's output
//      value; one that is a branch input, a constant, or an output listed twice gets an
//      Identity into the If's output;
//   4. the copied nodes (fresh names too) take the If's place in the node list: they read only
//      values defined before the If, and everything after reads the If's outputs, so the
//      order stays topological.
// Bodies nested in the branch move with their nodes unchanged (they are self-contained).
#pragma once

#include "graph/passes/pass.h"

namespace amp::graph {

class InlineConstantIf : public Pass {
 public:
  std::string_view name() const override { return "inline-constant-if"; }
  Result<bool> run(Graph& g) override;
};

}  // namespace amp::graph
