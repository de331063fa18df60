// Running If, Loop and Scan: the ExecutionContext's side of a plan cut at a control-flow node
// (runtime/plan_split.h).
//
// A control-flow node has no kernel. The plan before it ends there and returns the values
// that are still live (the node's inputs among them); run_control_flow then runs the node's
// bodies (graph/ops/control_flow.h) as graphs of their own, each planned for the shapes it
// receives and cached like the engine's plans (a Continuation per body), on the same
// Executor and backend as the model:
//   If    runs the branch its condition picks, once;
//   Loop  runs the body while the trip count and the condition allow, feeding the carried
//         values back and stacking the scan outputs along a new leading axis;
//   Scan  runs the body once per step of the sequence axis (either direction), slicing the
//         scan inputs, carrying the states and stacking the outputs along their axes (opset 8:
//         once per batch entry, honoring sequence_lens; steps past a sequence's end are zeros).
// Values cross the boundary as host tensors (the executors' run() interface), so on CUDA each
// body run copies its inputs in and outputs out: correct everywhere, not yet fast for loops
// with many small iterations on a GPU (keeping the loop on the device is the next step).
//
// Captured values that are constants (weights a Scan or Loop body reads) become constants of
// the body when the step is built, so they are placed once, not copied in on every
// iteration. A Loop that runs more than kMaxLoopIterations times is an error naming the node,
// so a model whose condition never turns false cannot hang a server.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "amp/tensor.h"
#include "graph/ops/control_flow.h"
#include "runtime/backend/backend.h"
#include "runtime/execution_plan.h"
#include "runtime/plan_split.h"

namespace amp::runtime {

inline constexpr int64_t kMaxLoopIterations = 10'000'000;

struct ControlFlowStep {
  ControlCut cut;
  graph::ControlFlowLayout layout;
  graph::ControlFlowAttrs attrs;  // Scan's normalized axes and directions
  // One per body (If: then, else; Loop/Scan: body), each with its plan cache. Captured
  // constants are constants there and no longer inputs.
  std::vector<std::shared_ptr<const Continuation>> bodies;
  std::vector<char> capture_is_constant;  // per capture
  std::vector<int64_t> input_stage;       // per node input: index in the stage, or -1
  std::vector<Tensor> constant_inputs;    // per node input: a view of its constant, or empty
  std::vector<size_t> sources;  // per input of the continuation's rest: index in stage ++ outputs
};

// The step for the control-flow node of `split` (whose prefix outputs `split.stage`), given
// the continuation's rest graph that follows it.
Result<std::shared_ptr<const ControlFlowStep>> make_control_flow_step(
    const PlanSplit& split, const graph::Graph& rest, const PlanBuildOptions& options);

// Runs the node on the cut plan's outputs; returns the node's outputs (an absent optional
// output is an undefined Tensor).
Result<std::vector<Tensor>> run_control_flow(const ControlFlowStep& step,
                                             const std::vector<Tensor>& stage, Executor& executor,
                                             const RunConfig& config);

// Runs `plan` on `inputs`, then every continuation after it (control-flow steps included),
// and returns the outputs of the graph the chain started from.
Result<std::vector<Tensor>> run_plan_chain(std::shared_ptr<const ExecutionPlan> plan,
                                           const std::vector<const Tensor*>& inputs,
                                           Executor& executor, const RunConfig& config);

// Plans `c.rest` for `inputs` (cached in `c`) and runs it with run_plan_chain.
Result<std::vector<Tensor>> run_graph(const Continuation& c,
                                      const std::vector<const Tensor*>& inputs, Executor& executor,
                                      const RunConfig& config);

}  // namespace amp::runtime
