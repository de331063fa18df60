#include "runtime/execution_context.h"

#include "runtime/engine_impl.h"

namespace amp {

Status ContextImpl::bind(const std::vector<const Tensor*>& inputs) {
  bool same = plan_ && engine_->shape_inputs.empty() && plan_->key.dims.size() == inputs.size();
  for (size_t i = 0; same && i < inputs.size(); ++i)
    same = plan_->key.dims[i] == inputs[i]->shape();
  if (!same) {
    AMP_ASSIGN_OR_RETURN(plan_, engine_->plan_for(inputs));
  }
  return Status::ok();
}

Result<std::vector<Tensor>> ContextImpl::run(const std::vector<NamedTensor>& named) {
  AMP_ASSIGN_OR_RETURN(std::vector<const Tensor*> inputs, engine_->match_inputs(named));
  AMP_RETURN_IF_ERROR(bind(inputs));
  if (!executor_) {
    AMP_ASSIGN_OR_RETURN(executor_, engine_->backend().create_executor());
  }
  runtime::RunConfig config;
  config.threads = engine_->threads;
  config.check_numerics = engine_->options.check_numerics;
  AMP_ASSIGN_OR_RETURN(std::vector<Tensor> outs, executor_->run(plan_, inputs, config));
  // A plan cut at a data-dependent node (runtime/plan_split.h) returned the values the rest
  // of the model reads, the node's output at its real size: plan the rest for those sizes
  // and run it on them, once per such node on the way to the model's outputs.
  std::shared_ptr<const runtime::ExecutionPlan> plan = plan_;
  while (plan->continuation) {
    const std::vector<Tensor> stage = std::move(outs);
    std::vector<const Tensor*> stage_inputs;
    for (const Tensor& t : stage) stage_inputs.push_back(&t);
    const runtime::Continuation& c = *plan->continuation;
    std::vector<std::optional<graph::TensorData>> values;
    AMP_ASSIGN_OR_RETURN(runtime::PlanKey key,
                         runtime::plan_key_for(stage_inputs, c.shape_inputs, values));
    AMP_ASSIGN_OR_RETURN(plan, runtime::continuation_plan(c, key, values));
    AMP_ASSIGN_OR_RETURN(outs, executor_->run(plan, stage_inputs, config));
  }
  return outs;
}

}  // namespace amp
