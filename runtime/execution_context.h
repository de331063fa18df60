// ContextImpl: the per-thread state of runs: the plan for the currently bound input shapes
// and the backend's Executor (activation arena; on CUDA also a stream, handles, pinned
// staging and a captured CUDA graph). The executor is created on the first run, so that a
// failure to create it is a Status of that run.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "amp/engine.h"
#include "runtime/backend/backend.h"
#include "runtime/execution_plan.h"
#include "runtime/thread_governor.h"

namespace amp {

class EngineImpl;

class ContextImpl {
 public:
  // `keepalive` is null for contexts in the engine's own pool (they must not keep the engine
  // alive: that would be a reference cycle) and set for contexts handed to callers.
  ContextImpl(const EngineImpl* engine, std::shared_ptr<const EngineImpl> keepalive);
  Result<std::vector<Tensor>> run(const std::vector<NamedTensor>& inputs);
  RunTimings last_timings() const { return executor_ ? executor_->last_timings() : RunTimings{}; }
  void set_profiling(bool on) { profiling_ = on; }
  RunProfile last_profile() const { return last_profile_; }

 private:
  Status bind(const std::vector<const Tensor*>& inputs);
  // The thread governor of the bound plan. Each plan (input shapes) keeps its own
  // measurements, so a server alternating batch sizes does not start over at every change;
  // at most kMaxGovernors are kept (the engine caches 16 plans).
  runtime::ThreadGovernor& governor();
  static constexpr size_t kMaxGovernors = 32;
  // Declaration order matters: the executor and plan go before the engine they came from.
  const EngineImpl* engine_;
  std::shared_ptr<const EngineImpl> keepalive_;
  std::shared_ptr<const runtime::ExecutionPlan> plan_;
  std::unique_ptr<runtime::Executor> executor_;
  bool profiling_ = false;
  runtime::RunProfiler profiler_;
  const runtime::ThreadGovernor governor_template_;
  std::map<const runtime::ExecutionPlan*, runtime::ThreadGovernor> governors_;
  RunProfile last_profile_;
};

}  // namespace amp
