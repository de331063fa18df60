// The standard pass pipelines, so amp-convert and Engine::load run the same sequence.
//
// Conversion (amp-convert, and Engine::load of an .onnx file):
//   run_folding (inferring node by node as it folds), then the same on every If/Loop/Scan
//   body (recursively)
// Fusions (BatchNorm into Conv, bias/activation epilogues) and the AMP planner run at load
// time in the runtime, because they depend on the backend and the precision chosen.
#pragma once

#include <memory>
#include <vector>

#include "graph/passes/const_eval.h"
#include "graph/passes/pass_manager.h"

namespace amp::graph {

// How run_folding checks its work. A load's conversion infers and verifies the graph after
// each pass, so that an error names the pass that broke it. A plan build folds a graph that
// was verified at load, once per new set of input dims (a decoder: every token), so it
// verifies once at the end; folding infers what it reaches either way.
enum class FoldingChecks { kAfterEachPass, kAtTheEnd };

// ConstantFolding -> DeadCodeElimination; then, while some If's condition folded to a
// constant: InlineConstantIf -> ConstantFolding -> DeadCodeElimination (the taken branch's
// own arithmetic folds too, and an If nested in it may fold next). At most one round per
// nesting level. `evaluator` as ConstantFolding's (null: the reference evaluator).
Status run_folding(Graph& g, std::shared_ptr<ConstantEvaluator> evaluator, FoldingChecks checks,
                   std::vector<PassRecord>* records = nullptr);

// `records` (optional) receives each pass's name, change flag and time.
Status run_conversion_passes(Graph& g, std::vector<PassRecord>* records = nullptr);

// Load-time rewrites and fusions, before the AMP planner:
//   EliminateIdentity -> LowerEinsum -> FoldAddIntoConvBias -> FoldBatchNormIntoConv ->
//   FuseDecomposedOps ->
//   FuseMatMulBias -> FuseChannelShuffle -> GlobalPoolFromReduce -> FuseActivation ->
//   DeadCodeElimination
Status run_runtime_passes(Graph& g, std::vector<PassRecord>* records = nullptr);

}  // namespace amp::graph
