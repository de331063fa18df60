#include "runtime/kernel_reuse.h"

#include "runtime/execution_plan.h"

namespace amp::runtime {
namespace {

// What a kernel may read of a tensor in prepare(). The owner is left out: equal addresses
// of live buffers are the same bytes, whoever owns them.
bool same_description(const kernels::TensorDesc& a, const kernels::TensorDesc& b) {
  return a.present == b.present && a.dtype == b.dtype && a.dims == b.dims &&
         a.constant_data == b.constant_data && a.conv_layout == b.conv_layout;
}

bool same_descriptions(const std::vector<kernels::TensorDesc>& a,
                       const std::vector<kernels::TensorDesc>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!same_description(a[i], b[i])) return false;
  return true;
}

}  // namespace

KernelReuse::KernelReuse(const ExecutionPlan* earlier) : earlier_(earlier) {
  if (earlier_ == nullptr) return;
  step_of_name_.reserve(earlier_->steps.size());
  for (size_t i = 0; i < earlier_->graph.nodes.size() && i < earlier_->steps.size(); ++i)
    step_of_name_.emplace(earlier_->graph.nodes[i].name, i);
}

void KernelReuse::share_equal_constants(graph::Graph& g) const {
  if (earlier_ == nullptr) return;
  const graph::Graph& before_graph = earlier_->graph;
  for (const graph::Node& n : g.nodes) {
    const auto it = step_of_name_.find(n.name);
    if (it == step_of_name_.end()) continue;
    const graph::Node& before = before_graph.nodes[it->second];
    if (before.op != n.op || before.inputs.size() != n.inputs.size()) continue;
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      if (n.inputs[k] == graph::kNoValue || before.inputs[k] == graph::kNoValue) continue;
      graph::Value& now = g.value(n.inputs[k]);
      const graph::Value& then = before_graph.value(before.inputs[k]);
      if (!now.is_constant() || !then.is_constant()) continue;
      const graph::TensorData& a = *now.constant;
      const graph::TensorData& b = *then.constant;
      // TensorData's == compares dtype, dims and bytes.
      if (a.bytes() != b.bytes() && a.byte_size() <= kMaxSharedBytes && a == b) now.constant = b;
    }
  }
}

std::shared_ptr<kernels::Kernel> KernelReuse::find(const graph::Node& n,
                                                   const kernels::KernelConfig& cfg) const {
  if (earlier_ == nullptr) return nullptr;
  const auto it = step_of_name_.find(n.name);
  if (it == step_of_name_.end()) return nullptr;
  const PlanStep& step = earlier_->steps[it->second];
  const graph::Node& before = earlier_->graph.nodes[it->second];
  if (!step.kernel || before.op != n.op || before.op_version != n.op_version ||
      step.prepared_threads != cfg.num_threads || !(before.attrs == n.attrs) ||
      !same_descriptions(step.prepared_inputs, cfg.inputs) ||
      !same_descriptions(step.prepared_outputs, cfg.outputs))
    return nullptr;
  return step.kernel;
}

}  // namespace amp::runtime
