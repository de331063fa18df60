// The public API: thin wrappers that turn Status into amp::Error.
#include "amp/engine.h"

#include "runtime/engine_impl.h"
#include "runtime/execution_context.h"

namespace amp {

const char* backend_kind_name(BackendKind b) {
  switch (b) {
    case BackendKind::kAuto:
      return "auto";
    case BackendKind::kCpu:
      return "cpu";
    case BackendKind::kCuda:
      return "cuda";
  }
  return "?";
}

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::kFp32:
      return "fp32";
    case Precision::kFp16:
      return "fp16";
    case Precision::kBf16:
      return "bf16";
    case Precision::kAuto:
      return "auto";
  }
  return "?";
}

ExecutionContext::ExecutionContext(std::unique_ptr<ContextImpl> impl) : impl_(std::move(impl)) {}
ExecutionContext::ExecutionContext(ExecutionContext&&) noexcept = default;
ExecutionContext& ExecutionContext::operator=(ExecutionContext&&) noexcept = default;
ExecutionContext::~ExecutionContext() = default;

std::vector<Tensor> ExecutionContext::run(const std::vector<NamedTensor>& inputs) {
  if (!impl_) throw Error(ErrorCode::kInvalidArgument, "ExecutionContext was moved from");
  return value_or_throw(impl_->run(inputs));
}

RunTimings ExecutionContext::last_run_timings() const {
  if (!impl_) throw Error(ErrorCode::kInvalidArgument, "ExecutionContext was moved from");
  return impl_->last_timings();
}

void ExecutionContext::set_profiling(bool on) {
  if (!impl_) throw Error(ErrorCode::kInvalidArgument, "ExecutionContext was moved from");
  impl_->set_profiling(on);
}

RunProfile ExecutionContext::last_run_profile() const {
  if (!impl_) throw Error(ErrorCode::kInvalidArgument, "ExecutionContext was moved from");
  return impl_->last_profile();
}

Engine::Engine(std::shared_ptr<EngineImpl> impl) : impl_(std::move(impl)) {}

Engine Engine::load(const std::string& path, const Options& options) {
  return Engine(value_or_throw(EngineImpl::load(path, options)));
}

std::vector<Tensor> Engine::run(const std::vector<NamedTensor>& inputs) const {
  std::unique_ptr<ContextImpl> ctx = impl_->acquire_context();
  Result<std::vector<Tensor>> out = ctx->run(inputs);
  impl_->release_context(std::move(ctx));
  return value_or_throw(std::move(out));
}

ExecutionContext Engine::create_context() const {
  return ExecutionContext(std::make_unique<ContextImpl>(impl_.get(), impl_));
}

const std::vector<TensorInfo>& Engine::inputs() const {
  return impl_->input_infos;
}
const std::vector<TensorInfo>& Engine::outputs() const {
  return impl_->output_infos;
}
BackendKind Engine::backend() const {
  return impl_->backend_kind;
}
Precision Engine::precision() const {
  return impl_->precision;
}
std::string Engine::precision_note() const {
  return impl_->precision_note;
}
std::string Engine::backend_note() const {
  return impl_->backend_reason;
}
std::string Engine::device_name() const {
  return impl_->device;
}
MemoryReport Engine::memory() const {
  return impl_->memory_report();
}
LoadTimings Engine::load_timings() const {
  return impl_->timings;
}
std::string Engine::policy_json() const {
  return impl_->policy_json.empty() ? "{}" : impl_->policy_json;
}

std::string Engine::precision_report_json() const {
  return impl_->precision_json.empty() ? "{}" : impl_->precision_json;
}
std::string Engine::precision_report_dot() const {
  return impl_->precision_dot;
}

std::string Engine::plan_summary() const {
  std::string s;
  const graph::Graph& g = impl_->graph;
  for (const graph::Node& n : g.nodes) {
    s += n.name + " " + std::string(graph::op_name(n.op)) + " (";
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      if (i) s += ", ";
      s += n.inputs[i] == graph::kNoValue ? "-" : g.value(n.inputs[i]).name;
    }
    s += ") -> ";
    for (size_t i = 0; i < n.outputs.size(); ++i) {
      if (n.outputs[i] == graph::kNoValue) continue;
      const graph::Value& v = g.value(n.outputs[i]);
      s += (i ? ", " : "") + v.name + ":" + std::string(dtype_name(v.dtype)) +
           (v.shape ? v.shape->to_string() : "");
    }
    s += "\n";
  }
  return s;
}

}  // namespace amp
