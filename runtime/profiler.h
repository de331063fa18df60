// RunProfiler: the per-node times of one profiled run (ExecutionContext::set_profiling,
// amp::RunProfile), gathered across every plan the run goes through (the plans a cut
// continues in, control-flow bodies).
//
// Clock: one origin per run (begin()), the host's steady clock. The CPU executor stamps
// each step with now_ms() before and after its kernel. The CUDA executor records an event
// around each step on its stream and, after synchronizing, places the steps on this clock
// from the host time it started enqueuing plus the events' elapsed times: GPU work is
// asynchronous, so those starts are where the stream ran them, not when they were enqueued.
// A control-flow node opens a span (begin_span .. end_span) around its bodies' nodes, which
// are recorded one level deeper.
#pragma once

#include <chrono>
#include <string>

#include "amp/engine.h"
#include "runtime/execution_plan.h"

namespace amp::runtime {

// "1x3xNx224" (symbols by name, "?" when unnamed), "scalar" for rank 0: NodeProfile::shapes.
std::string shape_text(const graph::Shape& shape);

class RunProfiler {
 public:
  // `own_kernels`: what the backend calls the kernels that name no implementation
  // ("own loop", "own CUDA kernel").
  void begin(std::string own_kernels);
  double now_ms() const;
  // Step `step` of `plan` ran from start_ms to end_ms (now_ms() clock).
  void add_step(const ExecutionPlan& plan, size_t step, double start_ms, double end_ms);
  // A control-flow node starts running its bodies; returns the span's index. The node is a
  // plan cut's copy (its value ids mean nothing), so end_span takes the shapes it ran with
  // ("4 2x3 -> 2x3") and its first output's dtype.
  size_t begin_span(const graph::Node& n);
  void end_span(size_t span, std::string shapes, DType dtype);
  RunProfile finish(double total_ms);

 private:
  std::chrono::steady_clock::time_point origin_;
  std::string own_kernels_;
  RunProfile profile_;
  int depth_ = 0;
};

}  // namespace amp::runtime
