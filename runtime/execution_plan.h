// ExecutionPlan: the engine graph with every input dim bound, folded again (shape
// subgraphs over now-static shapes disappear), with one prepared kernel per node and a
// memory plan. Immutable once built and shared by every ExecutionContext whose bound
// input shapes match (kernels' run() is const and thread-safe by contract).
//
// Building (build_execution_plan):
//   1. copy the engine graph (graph::copy_for_reinference), set each graph input's shape to
//      the bound dims, replace shape-deciding inputs by their values (shape_inputs.h);
//   2. ConstantFolding, which infers each node as it reaches it, + DeadCodeElimination
//      (Shape/Gather/... chains collapse), the graph verified once after them;
//   3. per node: the kernel of an earlier plan's node prepared alike (kernel_reuse.h; small
//      folded constants equal to that plan's take its buffers first), else registry lookup
//      by (op, backend, kernel dtype), create, prepare();
//   4. plan_memory with the kernels' in-place declarations and workspaces;
//   5. the backend places constants (on CUDA: device copies, weights shared with the engine).
// A graph with a data-dependent node (NonZero, Compress, NonMaxSuppression) is cut after it
// (runtime/plan_split.h): this plan ends there, sized for the node's bound, and its
// Continuation plans the rest once the executor reports the real size. A control-flow node
// (If, Loop, Scan) cuts it too: its Continuation runs the node's bodies first
// (runtime/control_flow.h). The executor runs one plan; run_plan_chain chains them.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "amp/tensor.h"
#include "graph/ir/graph.h"
#include "graph/planning/memory_planner.h"
#include "graph/serialize/mapped_file.h"
#include "kernels/kernel_registry.h"
#include "runtime/common/status.h"

namespace amp::runtime {

// Where a value's bytes are at run time: a constant's data, or an offset in the arena.
struct ValueRef {
  const uint8_t* constant = nullptr;       // what kernels read: host or device memory
  const uint8_t* host_constant = nullptr;  // the host bytes (outputs that are constants)
  int64_t offset = graph::kNotInArena;
};

struct PlanStep {
  // Shared with other plans whose node was prepared alike (runtime/kernel_reuse.h).
  std::shared_ptr<kernels::Kernel> kernel;
  // What the kernel was prepared with (KernelConfig's descriptions and threads), so a later
  // plan can tell whether it may take the kernel.
  std::vector<kernels::TensorDesc> prepared_inputs, prepared_outputs;
  int prepared_threads = 0;
  std::vector<graph::ValueId> inputs;   // kNoValue for absent optionals
  std::vector<graph::ValueId> outputs;  // kNoValue for absent optionals
  int64_t workspace_offset = graph::kNotInArena;
  int in_place_input = -1;     // the kernel's: input whose buffer output 0 may overwrite
  bool low_precision = false;  // any float output is f16/bf16 (numerics check)
};

// What a plan is built for: the dims of every graph input, plus the values of the inputs
// that decide shapes (graph/ops/shape_inputs.h), as raw element bits.
struct PlanKey {
  std::vector<std::vector<int64_t>> dims;
  std::vector<std::vector<uint8_t>> shape_values;
  bool operator==(const PlanKey&) const = default;
  bool operator<(const PlanKey& o) const {
    return dims != o.dims ? dims < o.dims : shape_values < o.shape_values;
  }
};

class Backend;

struct PlanBuildOptions {
  const Backend* backend = nullptr;
  int threads = 1;
  // Every tensor in its plain layout (no CPU conv layout plan, runtime/layout_plan.h), so
  // a StepObserver reads each value's elements in order (calibration).
  bool plain_layouts = false;
  // The mapped .amp file the graph's weights are views into, if any: a constant input a
  // kernel replaced by a form of its own (Kernel::replaced_constant_inputs) has its pages
  // handed back right after prepare() (runtime/weight_pages.h).
  std::shared_ptr<const graph::MappedFile> weights_file;
};

struct ExecutionPlan;
struct ControlFlowStep;  // runtime/control_flow.h

// The model after a cut (runtime/plan_split.h): `rest` takes the cut plan's outputs as its
// inputs, in order; after a cut at a control-flow node, `control` runs that node first and
// the rest reads control->sources of (the cut plan's outputs ++ the node's outputs). Its
// plans, one per set of input dims (and shape-deciding values), are cached here, bounded like
// the engine's. A control-flow body is a Continuation too (its graph and plan cache).
struct Continuation {
  std::shared_ptr<const ControlFlowStep> control;
  graph::Graph rest;
  std::vector<size_t> shape_inputs;  // rest's inputs whose values decide shapes
  PlanBuildOptions options;
  mutable std::mutex mu;
  mutable std::map<PlanKey, std::shared_ptr<const ExecutionPlan>> plans;
  mutable std::weak_ptr<const ExecutionPlan> last_built;  // whose kernels the next may take
};

struct ExecutionPlan {
  PlanKey key;
  graph::Graph graph;            // bound, folded, planned
  std::vector<PlanStep> steps;   // one per graph.nodes entry
  std::vector<ValueRef> values;  // per graph value
  graph::MemoryPlan memory;
  size_t max_step_inputs = 0;
  size_t max_step_outputs = 0;
  // On a backend that keeps_io_outside_arena(), the graph inputs and outputs the memory
  // planner put outside the arena (MemoryPlanOptions::outside_arena: a buffer no view or
  // Split part shares; an output of static size).
  // Per graph output: whether the executor hands the producing step the returned tensor's
  // memory (no copy out): the first listing of such an output; a second is copied from it,
  // and so is a graph input passed through.
  std::vector<char> output_direct;
  // Per graph input: whether the steps read it where the caller keeps it when its memory is
  // aligned like the arena's (no copy in), else from a copy of the executor's own.
  std::vector<char> input_direct;
  // Per graph output: the graph input it passes through unchanged (its position), else -1.
  // A plan cut before the model's end hands such values on to the rest as the same tensors.
  std::vector<int32_t> output_input;
  // Device copies of constants this plan alone has (folded for its shapes); set by
  // Backend::place_constants and freed with the plan.
  std::shared_ptr<const void> device_constants;
  size_t device_constant_bytes = 0;
  // A plan cut after data-dependent nodes (runtime/plan_split.h): per such node, in step
  // order, its step, the output it sizes (prepared at the bound) and the dim. The executor
  // passes each of those steps a KernelArgs::dynamic_size and returns their outputs with
  // their real sizes; no step of this plan reads them. `continuation` runs the rest.
  struct DynamicOutput {
    int64_t step = -1;
    graph::ValueId value = graph::kNoValue;
    size_t axis = 0;
  };
  std::vector<DynamicOutput> dynamic;
  std::shared_ptr<const Continuation> continuation;
  // Built with PlanBuildOptions::weights_file: the byte ranges of that file this plan's
  // runs read, sorted and merged (runtime/weight_pages.h, step 1).
  std::vector<std::pair<size_t, size_t>> weight_reads;
};

// `shape_values` holds, per graph input, its value when it decides shapes (else nullopt).
// `earlier`: a plan built from the same graph with the same options, whose kernels this
// plan takes where a node is prepared alike (runtime/kernel_reuse.h); may be null.
Result<std::shared_ptr<const ExecutionPlan>> build_execution_plan(
    const graph::Graph& engine_graph, const PlanKey& key,
    const std::vector<std::optional<graph::TensorData>>& shape_values,
    const PlanBuildOptions& options, const ExecutionPlan* earlier = nullptr);

// What the memory planner is told of `plan`'s kernels (in place, workspaces, parts); the
// options refer to `plan`, which must outlive them.
graph::MemoryPlanOptions kernel_memory_options(const ExecutionPlan& plan, size_t alignment);

// The dims an executor returns for output `v` of `plan`: its static dims, with a
// data-dependent dim replaced by the size its step reported (dynamic_sizes[i] for
// plan.dynamic[i]; the kernel wrote the output densely for it). An unreported size is an
// internal error.
inline Result<std::vector<int64_t>> output_dims(const ExecutionPlan& plan, graph::ValueId v,
                                                const std::vector<int64_t>& dynamic_sizes) {
  std::vector<int64_t> dims = plan.graph.value(v).shape->static_dims();
  for (size_t i = 0; i < plan.dynamic.size(); ++i) {
    const ExecutionPlan::DynamicOutput& d = plan.dynamic[i];
    if (v != d.value) continue;
    const int64_t size = i < dynamic_sizes.size() ? dynamic_sizes[i] : -1;
    if (size < 0 || size > dims[d.axis])
      return internal_error("a data-dependent step reported size " + std::to_string(size) +
                            " for a bound of " + std::to_string(dims[d.axis]));
    dims[d.axis] = size;
  }
  return dims;
}

// What a plan for these bound tensors is keyed by: every tensor's dims, and the element bytes
// of those at `shape_inputs` (positions whose values decide shapes), which `values` also
// receives as TensorData for binding (nullopt elsewhere).
Result<PlanKey> plan_key_for(const std::vector<const Tensor*>& inputs,
                             const std::vector<size_t>& shape_inputs,
                             std::vector<std::optional<graph::TensorData>>& values);

// The plan of `c`'s rest for inputs of these dims; `shape_values` holds, per rest input, its
// value when it decides shapes. Cached in `c`.
Result<std::shared_ptr<const ExecutionPlan>> continuation_plan(
    const Continuation& c, const PlanKey& key,
    const std::vector<std::optional<graph::TensorData>>& shape_values);

// Calls visit() on `plan` and on every plan built under it so far: its continuation's
// cached plans and its control-flow bodies', recursively (each cache locked while walked).
void for_each_plan(const ExecutionPlan& plan,
                   const std::function<void(const ExecutionPlan&)>& visit);

// The constants the kernels of `plan` hold in forms of their own (kernels::Kernel::
// held_constants), those of its continuations' and control-flow bodies' cached plans too,
// appended to `out`. Shared buffers appear once per kernel holding them: held_bytes counts
// each once.
void collect_held_constants(const ExecutionPlan& plan, std::vector<kernels::HeldConstant>& out);
size_t held_bytes(std::vector<kernels::HeldConstant> held);

}  // namespace amp::runtime
