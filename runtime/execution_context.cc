#include "execution_context.h"

#include <cstring>

#include "engine_impl.h"

namespace amp {

uint8_t* ContextImpl::address(graph::ValueId v) const {
  const runtime::ValueRef& ref = plan_->values[static_cast<size_t>(v)];
  if (ref.constant) return const_cast<uint8_t*>(ref.constant);
  if (ref.offset == graph::kNotInArena) return nullptr;
  return arena_.data() + ref.offset;
}

Status ContextImpl::bind(const std::vector<const Tensor*>& inputs) {
  bool same = plan_ && engine_->shape_inputs.empty() && plan_->key.dims.size() == inputs.size();
  for (size_t i = 0; same && i < inputs.size(); ++i)
    same = plan_->key.dims[i] == inputs[i]->shape();
  if (!same) {
    AMP_ASSIGN_OR_RETURN(plan_, engine_->plan_for(inputs));
    AMP_RETURN_IF_ERROR(arena_.reserve(plan_->memory.arena_bytes));
    in_ptrs_.assign(plan_->max_step_inputs, nullptr);
    out_ptrs_.assign(plan_->max_step_outputs, nullptr);
  }
  return Status::ok();
}

Result<std::vector<Tensor>> ContextImpl::run(const std::vector<NamedTensor>& named) {
  AMP_ASSIGN_OR_RETURN(std::vector<const Tensor*> inputs, engine_->match_inputs(named));
  AMP_RETURN_IF_ERROR(bind(inputs));
  const graph::Graph& g = plan_->graph;

  for (size_t i = 0; i < inputs.size(); ++i) {
    uint8_t* dst = address(g.inputs[i]);
    if (dst && inputs[i]->byte_size())
      std::memcpy(dst, inputs[i]->raw_data(), inputs[i]->byte_size());
  }

  kernels::KernelArgs args;
  args.num_threads = engine_->threads;
  for (size_t s = 0; s < plan_->steps.size(); ++s) {
    const runtime::PlanStep& step = plan_->steps[s];
    for (size_t k = 0; k < step.inputs.size(); ++k)
      in_ptrs_[k] = step.inputs[k] == graph::kNoValue ? nullptr : address(step.inputs[k]);
    for (size_t k = 0; k < step.outputs.size(); ++k)
      out_ptrs_[k] = step.outputs[k] == graph::kNoValue ? nullptr : address(step.outputs[k]);
    args.inputs = in_ptrs_.data();
    args.outputs = out_ptrs_.data();
    args.workspace = step.workspace_offset == graph::kNotInArena
                         ? nullptr
                         : arena_.data() + step.workspace_offset;
    Status st = step.kernel->run(args);
    if (!st.is_ok()) {
      const graph::Node& n = g.nodes[s];
      return st.with_context("node '" + n.name + "' (" + std::string(graph::op_name(n.op)) + ")");
    }
  }

  std::vector<Tensor> outs;
  outs.reserve(g.outputs.size());
  for (graph::ValueId v : g.outputs) {
    const graph::Value& val = g.value(v);
    Tensor t = Tensor::empty(val.dtype, val.shape->static_dims());
    const uint8_t* src = address(v);
    if (src && t.byte_size()) std::memcpy(t.raw_data(), src, t.byte_size());
    outs.push_back(std::move(t));
  }
  return outs;
}

}  // namespace amp
