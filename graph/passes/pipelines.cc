#include "graph/passes/pipelines.h"

#include "graph/ir/verifier.h"
#include "graph/ops/shape_inference.h"
#include "graph/passes/constant_folding.h"
#include "graph/passes/dead_code_elimination.h"
#include "graph/passes/fuse_activation.h"
#include "graph/passes/fuse_batchnorm.h"

namespace amp::graph {

Status run_conversion_passes(Graph& g, std::vector<PassRecord>* records) {
  AMP_RETURN_IF_ERROR(verify_graph(g));
  AMP_RETURN_IF_ERROR(infer_shapes(g));
  PassManager pm;
  pm.add(std::make_unique<ConstantFolding>());
  pm.add(std::make_unique<DeadCodeElimination>());
  AMP_RETURN_IF_ERROR(pm.run(g));
  if (records) *records = pm.records();
  return Status::ok();
}

Status run_runtime_passes(Graph& g, std::vector<PassRecord>* records) {
  PassManager pm;
  pm.add(std::make_unique<FoldBatchNormIntoConv>());
  pm.add(std::make_unique<FuseActivation>());
  pm.add(std::make_unique<DeadCodeElimination>());
  AMP_RETURN_IF_ERROR(pm.run(g));
  if (records) *records = pm.records();
  return Status::ok();
}

}  // namespace amp::graph
