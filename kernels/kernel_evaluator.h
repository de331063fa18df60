// Constant folding with every CPU kernel: the evaluator the runtime (and the test graph runner)
// hands ConstantFolding.
//
// graph/ sits below the kernels, so its ReferenceEvaluator covers only shape arithmetic and
// weight-wrapping movement ops. Graphs that compute shapes with other ops (Mod, Div, Where,
// Equal, Range... as ONNX's function expansions of Attention do) would keep those nodes, and
// the shapes they feed (an Expand's target) would stay unknown after binding. This evaluator
// asks the ReferenceEvaluator first, then runs the node's CPU kernel on the constant inputs
// (prepare with every input constant, run on host buffers), so any op with a CPU kernel folds.
// A node the kernel rejects at prepare is left in the graph (nullopt), not an error: the
// backend's own kernel reports it when the plan is built.
#pragma once

#include <optional>
#include <vector>

#include "graph/passes/const_eval.h"
#include "kernels/kernel_registry.h"

namespace amp::kernels {

class KernelEvaluator final : public graph::ConstantEvaluator {
 public:
  explicit KernelEvaluator(const KernelRegistry& cpu_registry) : registry_(cpu_registry) {}

  Result<std::optional<std::vector<graph::TensorData>>> evaluate(
      const graph::Node& node, const std::vector<const graph::Value*>& inputs,
      const std::vector<const graph::Value*>& outputs) override;

 private:
  const KernelRegistry& registry_;
  graph::ReferenceEvaluator reference_;
};

}  // namespace amp::kernels
