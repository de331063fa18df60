#include "graph/passes/pipelines.h"

#include "graph/ir/limits.h"
#include "graph/ir/verifier.h"
#include "graph/passes/constant_folding.h"
#include "graph/passes/dead_code_elimination.h"
#include "graph/passes/eliminate_identity.h"
#include "graph/passes/fold_conv_bias_add.h"
#include "graph/passes/fuse_activation.h"
#include "graph/passes/fuse_batchnorm.h"
#include "graph/passes/fuse_channel_shuffle.h"
#include "graph/passes/fuse_decomposed_ops.h"
#include "graph/passes/fuse_matmul_bias.h"
#include "graph/passes/global_pool_from_reduce.h"
#include "graph/passes/inline_constant_if.h"
#include "graph/passes/lower_einsum.h"

namespace amp::graph {

Status run_folding(Graph& g, std::shared_ptr<ConstantEvaluator> evaluator, FoldingChecks checks,
                   std::vector<PassRecord>* records) {
  const bool each_pass = checks == FoldingChecks::kAfterEachPass;
  auto fold = [&](bool inline_first) -> Status {
    PassManager pm;
    pm.set_infer_after_each(each_pass);
    pm.set_verify_after_each(each_pass);
    if (inline_first) pm.add(std::make_unique<InlineConstantIf>());
    pm.add(std::make_unique<ConstantFolding>(evaluator));
    pm.add(std::make_unique<DeadCodeElimination>());
    AMP_RETURN_IF_ERROR(pm.run(g));
    if (records) records->insert(records->end(), pm.records().begin(), pm.records().end());
    return Status::ok();
  };
  auto constant_if = [&g] {
    for (const Node& n : g.nodes)
      if (n.op == OpType::kIf && n.inputs[0] != kNoValue && g.value(n.inputs[0]).is_constant())
        return true;
    return false;
  };
  AMP_RETURN_IF_ERROR(fold(false));
  // No inference between rounds: ConstantFolding inferred every node it kept, the If
  // included (on its taken branch), and infers again every node the inlining adds.
  for (int round = 0; round <= kMaxSubgraphDepth && constant_if(); ++round)
    AMP_RETURN_IF_ERROR(fold(true));
  if (!each_pass)
    AMP_RETURN_IF_ERROR(verify_graph(g).with_context("folding left an invalid graph (a bug)"));
  return Status::ok();
}

namespace {

Status fold_bodies(Graph& g);

Status fold_body(Graph& body) {
  AMP_RETURN_IF_ERROR(run_folding(body, nullptr, FoldingChecks::kAfterEachPass));
  return fold_bodies(body);
}

// Folds every If/Loop/Scan body the same way, innermost levels included (bounded by the
// verifier's nesting cap). An If's branch that does not fold for the bound shapes while the
// other one does stays as it is, as inference tolerates it (graph/ops/infer_control_flow.cc):
// with a condition known only at run time it may be dead for these shapes (Silero VAD's 8 kHz
// branch given a 16 kHz chunk), and it is an error only if taken, when its plan is built.
Status fold_bodies(Graph& g) {
  for (Node& n : g.nodes) {
    std::vector<std::pair<std::string, SubgraphAttr>> folded;
    std::vector<Status> failed;
    for (const auto& [name, attr] : n.attrs.all()) {
      const auto* sub = std::get_if<SubgraphAttr>(&attr);
      if (!sub) continue;
      Graph body = *sub->graph;
      Status st = fold_body(body).with_context("node '" + n.name + "' " + name);
      if (!st.is_ok()) {
        if (n.op != OpType::kIf) return st;
        failed.push_back(std::move(st));
        continue;
      }
      folded.emplace_back(name, SubgraphAttr{std::make_shared<const Graph>(std::move(body))});
    }
    if (!failed.empty() && folded.empty()) return failed.front();
    for (auto& [name, attr] : folded) n.attrs.set(name, std::move(attr));
  }
  return Status::ok();
}

}  // namespace

Status run_conversion_passes(Graph& g, std::vector<PassRecord>* records) {
  AMP_RETURN_IF_ERROR(verify_graph(g));
  // No separate inference first: folding infers node by node as it goes, so an If whose
  // condition folds (a rank or size test) is inferred on its taken branch only, and the nodes
  // after it see that branch's precise shapes (graph/ops/infer_control_flow.cc).
  if (records) records->clear();
  AMP_RETURN_IF_ERROR(run_folding(g, nullptr, FoldingChecks::kAfterEachPass, records));
  return fold_bodies(g);
}

Status run_runtime_passes(Graph& g, std::vector<PassRecord>* records) {
  PassManager pm;
  pm.add(std::make_unique<EliminateIdentity>());  // first: the fusions match across none
  pm.add(std::make_unique<LowerEinsum>());
  pm.add(std::make_unique<FoldAddIntoConvBias>());
  pm.add(std::make_unique<FoldBatchNormIntoConv>());
  pm.add(std::make_unique<FuseDecomposedOps>());
  pm.add(std::make_unique<FuseMatMulBias>());
  pm.add(std::make_unique<FuseChannelShuffle>());
  pm.add(std::make_unique<GlobalPoolFromReduce>());
  pm.add(std::make_unique<FuseActivation>());
  pm.add(std::make_unique<DeadCodeElimination>());
  AMP_RETURN_IF_ERROR(pm.run(g));
  if (records) *records = pm.records();
  return Status::ok();
}

}  // namespace amp::graph
