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
//      (`in_place_input`), input k's buffer dies at this node, sizes match, input k is its
//      whole buffer, and neither is a graph input or output, the output joins input k's
//      buffer.
//   4. Parts in place: where the kernel of a Concat (Split) says each input (output) is one
//      contiguous block of the whole tensor at a byte offset (`part_offsets`: channels of
//      one image, axis 0), the part lives there and the kernel skips its copy. A Split's
//      output joins its input's buffer at the offset. A Concat's input moves its whole
//      buffer (with every value sharing it: the conv that wrote it, the Relu in place over
//      it) into the output's, placed so that the part lands at its offset; a buffer larger
//      than the part (one a Split cut up: YOLOv8's C2f concatenates both halves of a Split
//      and more) moves only where the Concat's parts tile it, each at the offset the buffer
//      has it at. So buffers nest: each value has a parent buffer and an offset in it, and
//      its root is the outermost. A part stays a copy where it is a graph output or
//      constant, where its buffer's offset in the whole is not `alignment`-aligned, and
//      (Concat) where its buffer holds a graph input or output, is the whole's already
//      (Concat(x, x)), or does not fit the tiling.
//      Joined buffers merge their last reads, so nothing overwrites a part in place while
//      the whole or any part is still read.
//   5. One BufferRequest per root, live from the first write of any value in it to the last
//      read, plus one per node workspace (live for that step only), placed by plan_arena
//      (greedy by size, best fit; arena_planner.h). Except a graph input or output that the
//      executor keeps in memory of its own (`outside_arena`: a host executor reads an input
//      where the caller keeps it and writes an output into the tensor it returns) and whose
//      buffer holds no other value (no view or Split part of it): it takes no arena space,
//      offset kOutsideArena. That saves where such a value is live at the arena's peak: an
//      input read late or beside the first large activation, an output written early (held
//      to the last step) or a large last one. The bundled GPT-2-style decoder's logits
//      (3.9 MiB, its largest tensor) took its arena from 4.16 to 1.75 MiB.
// Constants never take arena space: they live in the weights pool (weights_bytes).
// Every value needs a static shape here: bind symbolic dims first.
// check_memory_plan (memory_plan_check.h) verifies a plan independently, by simulation.
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
  // Of a Concat (Split): the byte offset of each input (output) within the whole tensor
  // when each is one contiguous block of it; empty when they interleave. Null: none.
  std::function<std::vector<size_t>(const Node&)> part_offsets;
  // Whether the executor may keep graph input or output v in memory of its own (step 5).
  // Null: none.
  std::function<bool(ValueId)> outside_arena;
};

inline constexpr int64_t kNotInArena = -1;
// A graph input or output in memory the executor provides (MemoryPlanOptions::outside_arena).
inline constexpr int64_t kOutsideArena = -2;

struct MemoryPlan {
  // Per value; kNotInArena for constants/absent, kOutsideArena (graph inputs and outputs).
  std::vector<int64_t> value_offset;
  std::vector<ValueId> buffer_root;       // per value: the value whose buffer it lies in
  std::vector<int64_t> workspace_offset;  // per node; kNotInArena when none
  size_t arena_bytes = 0;
  size_t lower_bound_bytes = 0;
  size_t weights_bytes = 0;
  size_t activation_bytes = 0;  // sum of all activation buffers without any sharing
  size_t outside_bytes = 0;     // the kOutsideArena values' bytes
};

Result<MemoryPlan> plan_memory(const Graph& g, const MemoryPlanOptions& options);

// The bytes a value takes in the arena: its static shape's elements times its dtype's size.
Result<size_t> planned_bytes(const Value& v);

}  // namespace amp::graph
