// Caps on what a model may declare, checked where sizes enter the graph (verify_graph for
// every recorded shape, infer_node for every inferred one), so a hostile file is rejected
// with an error naming the value before anything is sized or allocated from its dims.
//
// The caps are far above any real model: the largest tensors of today's models are a few
// GiB (LLM embeddings), and one tensor larger than kMaxTensorBytes does not fit in the
// memory of any device we run on. They keep every size computed from a recorded shape
// (numel x dtype size, sums of a few of them) far from overflowing int64/size_t.
//
//   AMP_RETURN_IF_ERROR(check_value_size(g.value(id)));   // "value 'x' ..."
#pragma once

#include <cstdint>

#include "graph/ir/graph.h"
#include "runtime/common/status.h"

namespace amp::graph {

// The most dims a tensor may have (ONNX has no limit; real models stay below 10).
inline constexpr int64_t kMaxRank = 64;
// The most bytes one tensor may hold: 256 GiB (2^38). Symbolic dims count as 1, so a
// shape whose static dims alone exceed this can never be run.
inline constexpr uint64_t kMaxTensorBytes = uint64_t{1} << 38;

// Subgraphs (If/Loop/Scan bodies) nest at most this deep. Real models nest two or three
// levels; the cap keeps every recursive walk (import, verify, infer, plan, run) shallow, so a
// hostile file nesting thousands of levels is an error naming the cap, not a stack overflow.
inline constexpr int kMaxSubgraphDepth = 32;

// Checks a value's recorded shape (nothing when it has none):
//   - rank <= kMaxRank (kInvalidModel);
//   - the static dims multiply without overflowing int64 (kInvalidModel; a 0 dim makes
//     the tensor empty whatever the others are);
//   - static dims x dtype size <= kMaxTensorBytes (kOutOfMemory; an undefined dtype
//     counts one byte per element).
// The message names the value and its shape.
Status check_value_size(const Value& v);

}  // namespace amp::graph
