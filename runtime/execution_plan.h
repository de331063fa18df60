// ExecutionPlan: the engine graph with every input dim bound, folded again (shape
// subgraphs over now-static shapes disappear), with one prepared kernel per node and a
// memory plan. Immutable once built and shared by every ExecutionContext whose bound
// input shapes match (kernels' run() is const and thread-safe by contract).
//
// Building (build_execution_plan):
//   1. copy the engine graph, set each graph input's shape to the bound dims, replace
//      shape-deciding inputs by their values (shape_inputs.h), re-infer;
//   2. ConstantFolding + DeadCodeElimination (Shape/Gather/... chains collapse);
//   3. per node: registry lookup by (op, backend, kernel dtype), create, prepare();
//   4. plan_memory with the kernels' in-place declarations and workspaces;
//   5. the backend places constants (on CUDA: device copies, weights shared with the engine).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "graph/ir/graph.h"
#include "graph/planning/memory_planner.h"
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
  std::unique_ptr<kernels::Kernel> kernel;
  std::vector<graph::ValueId> inputs;   // kNoValue for absent optionals
  std::vector<graph::ValueId> outputs;  // kNoValue for absent optionals
  int64_t workspace_offset = graph::kNotInArena;
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

struct ExecutionPlan {
  PlanKey key;
  graph::Graph graph;            // bound, folded, planned
  std::vector<PlanStep> steps;   // one per graph.nodes entry
  std::vector<ValueRef> values;  // per graph value
  graph::MemoryPlan memory;
  size_t max_step_inputs = 0;
  size_t max_step_outputs = 0;
  // Device copies of constants this plan alone has (folded for its shapes); set by
  // Backend::place_constants and freed with the plan.
  std::shared_ptr<const void> device_constants;
  size_t device_constant_bytes = 0;
};

class Backend;

struct PlanBuildOptions {
  const Backend* backend = nullptr;
  int threads = 1;
};

// `shape_values` holds, per graph input, its value when it decides shapes (else nullopt).
Result<std::shared_ptr<const ExecutionPlan>> build_execution_plan(
    const graph::Graph& engine_graph, const PlanKey& key,
    const std::vector<std::optional<graph::TensorData>>& shape_values,
    const PlanBuildOptions& options);

}  // namespace amp::runtime
