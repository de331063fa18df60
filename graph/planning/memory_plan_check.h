// check_memory_plan: an independent check that a MemoryPlan keeps every value intact while
// it is read, by running the graph on tags instead of numbers.
//
// Algorithm (a simulation of what the kernels do with the arena's bytes):
//   - The arena is a map of byte segments, each tagged with what it holds: bytes [o, o+n) of
//     some value's own content (its "origin"), and who wrote them (a value, or a node's
//     workspace). Nothing is held at first.
//   - Each value's expected content is a list of such pieces. A value a kernel computes is
//     its own origin. A view (kView ops: Reshape, Identity, ...) holds its input's pieces.
//     Where the kernel reports part offsets (`MemoryPlanOptions::part_offsets`), a
//     Concat's output holds its inputs' pieces at those offsets and each Split output the
//     slice of its input's pieces there.
//   - A graph input or output outside the arena (kOutsideArena) gets a region of its own
//     past the arena's end, where only its own writer (step 0 for an input) writes.
//   - Graph inputs are written at step 0. At each node in order: its workspace is filled;
//     every input must hold its expected pieces; then the outputs are produced as the
//     kernels produce them:
//       * a copy (a view not at its input's place, a Concat part or Split output not at its
//         offset) copies part by part, checking each source just before it is read, so a
//         copy that clobbers a later part's source is caught; overlapping but distinct
//         source and destination are an error (memcpy);
//       * a kernel that computes writes fresh content after checking that no output
//         overlaps another output, the workspace, or an input other than the one it may
//         overwrite (`in_place_input`, or any input when that is null: the same bytes at
//         the same place, elementwise).
//   - At the end every graph output must hold its pieces.
// Any read that finds other content is an error naming the value, the node reading it and
// what overwrote it. This subsumes "values live at the same time never share bytes" and
// also checks the bytes a plan shares on purpose (views, in-place outputs, Concat and Split
// parts), which a pairwise lifetime test must skip.
// Cost: O(work log segments), where the work is the pieces built plus the arena segments
// read. A value's pieces are one for a value computed or written whole, and a Concat's
// are those of its parts (merged where contiguous); a value copied part by part spans
// a segment per part. So it is linear in the graph but for nested Concats (quadratic for a
// chain, exponential for Concat(x, x) on Concat(x, x) ...) and values made of many parts
// read many times. Past `max_pieces` of work the check stops and says it did not check;
// real models stay far below (YOLOv8n: 0.1 ms).
#pragma once

#include "graph/ir/graph.h"
#include "graph/planning/memory_planner.h"
#include "runtime/common/status.h"

namespace amp::graph {

inline constexpr size_t kPlanCheckMaxPieces = size_t{1} << 20;  // at most ~25 MB, ~0.1 s

// `options` are those the plan was made with (alignment is not used). True: checked;
// false: not checked, over max_pieces; an internal error names the value found
// overwritten, the reader and the writer, or the overlap a kernel would make.
Result<bool> check_memory_plan(const Graph& g, const MemoryPlan& plan,
                               const MemoryPlanOptions& options = {},
                               size_t max_pieces = kPlanCheckMaxPieces);

}  // namespace amp::graph
