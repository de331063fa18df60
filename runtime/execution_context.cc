#include "runtime/execution_context.h"

#include "runtime/control_flow.h"
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
  // Cut plans (data-dependent sizes, control flow) continue in run_plan_chain.
  return runtime::run_plan_chain(plan_, inputs, *executor_, config);
}

}  // namespace amp
