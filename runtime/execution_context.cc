#include "runtime/execution_context.h"

#include <chrono>

#include "runtime/control_flow.h"
#include "runtime/engine_impl.h"

namespace amp {

ContextImpl::ContextImpl(const EngineImpl* engine, std::shared_ptr<const EngineImpl> keepalive)
    : engine_(engine),
      keepalive_(std::move(keepalive)),
      governor_template_(engine->threads, engine->backend().kind() == kernels::Backend::kCpu &&
                                              engine->options.adaptive_threads) {}

Status ContextImpl::bind(const std::vector<const Tensor*>& inputs) {
  bool same = plan_ && engine_->shape_inputs.empty() && plan_->key.dims.size() == inputs.size();
  for (size_t i = 0; same && i < inputs.size(); ++i)
    same = plan_->key.dims[i] == inputs[i]->shape();
  if (!same) {
    AMP_ASSIGN_OR_RETURN(plan_, engine_->plan_for(inputs));
  }
  return Status::ok();
}

runtime::ThreadGovernor& ContextImpl::governor() {
  auto it = governors_.find(plan_.get());
  if (it != governors_.end()) return it->second;
  // A plan address may be reused after the engine evicted its plan: the map is cleared
  // rather than trusted beyond the engine's cache size.
  if (governors_.size() >= kMaxGovernors) governors_.clear();
  return governors_.emplace(plan_.get(), governor_template_).first->second;
}

Result<std::vector<Tensor>> ContextImpl::run(const std::vector<NamedTensor>& named) {
  AMP_ASSIGN_OR_RETURN(std::vector<const Tensor*> inputs, engine_->match_inputs(named));
  AMP_RETURN_IF_ERROR(bind(inputs));
  runtime::ThreadGovernor& governor = this->governor();
  if (!executor_) {
    AMP_ASSIGN_OR_RETURN(executor_, engine_->backend().create_executor());
  }
  runtime::RunConfig config;
  config.threads = governor.next();
  const auto started = std::chrono::steady_clock::now();
  config.check_numerics = engine_->options.check_numerics;
  if (profiling_) {
    profiler_.begin(engine_->backend().kind() == kernels::Backend::kCuda ? "own CUDA kernel"
                                                                         : "own loop");
    config.profiler = &profiler_;
  }
  // Cut plans (data-dependent sizes, control flow) continue in run_plan_chain.
  Result<std::vector<Tensor>> outs = runtime::run_plan_chain(plan_, inputs, *executor_, config);
  if (profiling_ && outs.is_ok()) last_profile_ = profiler_.finish(profiler_.now_ms());
  if (outs.is_ok())
    governor.record(config.threads, std::chrono::duration<double, std::milli>(
                                        std::chrono::steady_clock::now() - started)
                                        .count());
  return outs;
}

}  // namespace amp
