// Kernel reuse between the execution plans of one engine graph.
//
// Why: a decoder generating text with a KV cache binds a new past length at every step, so
// every step builds a new plan (runtime/execution_plan.h). Most of its nodes -- one token's
// projections, norms and MLP -- see the same dims at every length, yet each plan prepared
// their kernels again (oneDNN primitive descriptors, GEMM selection, broadcast plans).
//
// Rule: a kernel is a function of what prepare() is given (kernels/kernel.h): the node's
// op, opset version and attributes, each input's and output's description (dtype, dims,
// conv layout, constant bytes), the thread count and the backend. A node of the new plan
// whose configuration equals that of a step of an earlier plan built on the same backend
// with the same thread count takes that step's kernel instead of preparing its own:
// prepared kernels are immutable and run() is const and thread-safe, so plans may share one.
// Constants compare by address: both plans are alive while they are compared, so one address
// is one immutable buffer, and the new plan's own graph keeps that buffer alive for as long
// as the plan uses the kernel. No kernel keeps the node it was prepared for (only its
// attributes' values), so the earlier plan may go first.
//
// Lookup: by node name (folding keeps names), then the configuration compared in full; a
// name found twice is looked up at its first step only, so a miss merely prepares afresh.
//
// Folded constants: each plan folds its own copies of what the model computes from shapes,
// so a constant that is the same at every length (a rotary MatMul's expanded frequencies,
// a Reshape's target) would be a new buffer in every plan and no kernel reading it would
// match. So before any kernel of the new plan is prepared, share_equal_constants() gives
// each small constant input whose bytes equal those of the same input of the earlier plan's
// node the earlier buffer (TensorData shares its owner): the new plan's graph then keeps
// that buffer alive, and the address rule above holds unchanged.
#pragma once

#include <memory>
#include <string_view>
#include <unordered_map>

#include "graph/ir/graph.h"
#include "kernels/kernel.h"

namespace amp::runtime {

struct ExecutionPlan;

class KernelReuse {
 public:
  // Kernels of `earlier` (may be null: nothing is reused), which the caller keeps alive
  // while this object is used.
  explicit KernelReuse(const ExecutionPlan* earlier);

  // The earlier plan's kernel for node `n` prepared with `cfg`, if one was prepared with an
  // equal configuration; else null.
  std::shared_ptr<kernels::Kernel> find(const graph::Node& n,
                                        const kernels::KernelConfig& cfg) const;

  // See "Folded constants" above: constants of at most kMaxSharedBytes bytes (shape
  // arithmetic, not weights: a weight is the engine's one buffer in every plan already).
  void share_equal_constants(graph::Graph& g) const;
  static constexpr size_t kMaxSharedBytes = 4096;

 private:
  const ExecutionPlan* earlier_ = nullptr;
  std::unordered_map<std::string_view, size_t> step_of_name_;
};

}  // namespace amp::runtime
