// The standard pass pipelines, so amp-convert and Engine::load run the same sequence.
//
// Conversion (amp-convert, and Engine::load of an .onnx file):
//   infer_shapes -> ConstantFolding -> DeadCodeElimination
// Fusions (BatchNorm into Conv, bias/activation epilogues) and the AMP planner run at load
// time in the runtime, because they depend on the backend and the precision chosen.
#pragma once

#include <vector>

#include "graph/passes/pass_manager.h"

namespace amp::graph {

// `records` (optional) receives each pass's name, change flag and time.
Status run_conversion_passes(Graph& g, std::vector<PassRecord>* records = nullptr);

// Load-time fusions, before the AMP planner:
//   FoldBatchNormIntoConv -> FuseActivation -> DeadCodeElimination
Status run_runtime_passes(Graph& g, std::vector<PassRecord>* records = nullptr);

}  // namespace amp::graph
