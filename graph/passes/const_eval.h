// Constant evaluation of single nodes, used by ConstantFolding.
//
// ConstantEvaluator is an interface because amp_graph sits below the kernels: an evaluator
// backed by the CPU kernel set (every op, every dtype) could replace the one here, but none
// exists yet. ReferenceEvaluator covers what load-time folding needs most: shape arithmetic
// (Shape/Size/Gather/Unsqueeze/Concat chains, Range, ConstantOfShape) and the movement
// and cast ops exporters wrap around weights (Reshape, Transpose, Cast, Squeeze, ...).
// Plain loops: these tensors are small, and correctness matters more than speed.
#pragma once

#include <optional>
#include <vector>

#include "graph/ir/graph.h"
#include "runtime/common/status.h"

namespace amp::graph {

class ConstantEvaluator {
 public:
  virtual ~ConstantEvaluator() = default;
  // Computes the node's outputs from its inputs. Every non-absent input either is a
  // constant or (for Shape/Size) has a static shape; output values already carry their
  // inferred dtype and static shape. Returns nullopt when this evaluator does not handle
  // the op or dtype (the node is then left in the graph); errors only for inputs that make
  // the node invalid (e.g. a Gather index out of range).
  virtual Result<std::optional<std::vector<TensorData>>> evaluate(
      const Node& node, const std::vector<const Value*>& inputs,
      const std::vector<const Value*>& outputs) = 0;
};

class ReferenceEvaluator : public ConstantEvaluator {
 public:
  Result<std::optional<std::vector<TensorData>>> evaluate(
      const Node& node, const std::vector<const Value*>& inputs,
      const std::vector<const Value*>& outputs) override;
};

}  // namespace amp::graph
