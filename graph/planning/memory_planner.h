// plan_memory: where every activation of a graph lives in the one arena of an
// ExecutionContext. Runs after the AMP planner (so fp16/bf16 values take half the bytes and
// cast outputs are values like any other).
//
// Algorithm:
//   1. Steps: graph inputs are written at step 0, node i runs at step i+1, graph outputs
//      are read at the last step (so they outlive everything and are never overwritten).
//   2. Aliases: the output of a view op (Reshape, Flatten, Squeeze, Unsqueeze, Identity:
//      trait kView) shares its input's buffer, unless either is a graph output or the input
//      is a constant. Aliased values form one buffer ("root") whose lifetime covers all.
//   3. In place: where the kernel declares that output 0 may overwrite input k
//      (`in_place_input`), input k's buffer dies at this node, sizes match, and neither is a
//      graph input or output, the output joins input k's buffer.
//   4. One BufferRequest per root, plus one per node workspace (live for that step only),
//      placed by plan_arena (greedy by size, best fit; arena_planner.h).
// Constants never take arena space: they live in the weights pool (weights_bytes).
// Every value needs a static shape here: bind symbolic dims first.
#pragma once

#include <functional>
#include <vector>

#include "graph/ir/graph.h"
#include "graph/planning/arena_planner.h"
#include "runtime/common/status.h"

namespace amp::graph {

struct MemoryPlanOptions {
  size_t alignment = 64;  // 64 on CPU (AVX-512 lines), 256 on CUDA
  // Input index whose buffer output 0 may overwrite, or -1. Null: no in-place.
  std::function<int(const Node&)> in_place_input;
  // Workspace bytes a node's kernel needs during its step. Null: none.
  std::function<size_t(NodeId)> workspace_bytes;
};

inline constexpr int64_t kNotInArena = -1;

struct MemoryPlan {
  std::vector<int64_t> value_offset;      // per value; kNotInArena for constants/absent
  std::vector<ValueId> buffer_root;       // per value: the value whose buffer it uses
  std::vector<int64_t> workspace_offset;  // per node; kNotInArena when none
  size_t arena_bytes = 0;
  size_t lower_bound_bytes = 0;
  size_t weights_bytes = 0;
  size_t activation_bytes = 0;  // sum of all activation buffers without any sharing
};

Result<MemoryPlan> plan_memory(const Graph& g, const MemoryPlanOptions& options);

// Independent check of a plan (tests, debug builds): any two values in different buffers
// whose lifetimes [written, last read] overlap must not overlap in bytes, and every value
// must lie inside the arena. O(values^2). Errors name the two values.
Status check_memory_plan(const Graph& g, const MemoryPlan& plan);

}  // namespace amp::graph
