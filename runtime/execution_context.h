// ContextImpl: the mutable per-thread state of runs: the activation arena, the plan for the
// currently bound input shapes, and pointer scratch so run() allocates nothing once warm.
#pragma once

#include <memory>
#include <vector>

#include "amp/engine.h"
#include "arena.h"
#include "execution_plan.h"

namespace amp {

class EngineImpl;

class ContextImpl {
 public:
  // `keepalive` is null for contexts in the engine's own pool (they must not keep the engine
  // alive: that would be a reference cycle) and set for contexts handed to callers.
  ContextImpl(const EngineImpl* engine, std::shared_ptr<const EngineImpl> keepalive)
      : engine_(engine), keepalive_(std::move(keepalive)) {}
  Result<std::vector<Tensor>> run(const std::vector<NamedTensor>& inputs);

 private:
  Status bind(const std::vector<const Tensor*>& inputs);
  uint8_t* address(graph::ValueId v) const;

  const EngineImpl* engine_;
  std::shared_ptr<const EngineImpl> keepalive_;
  std::shared_ptr<const runtime::ExecutionPlan> plan_;
  runtime::Arena arena_;
  std::vector<const void*> in_ptrs_;
  std::vector<void*> out_ptrs_;
};

}  // namespace amp
