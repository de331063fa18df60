// Arena memory planning: place buffers with known lifetimes at offsets in one arena so
// that buffers alive at the same time never overlap, using few bytes.
//
// Input: a list of BufferRequests {bytes, first_step, last_step} (inclusive steps in
// execution order). Output: an offset per request, the arena size, and the lower bound
// max over steps of the live bytes (no placement can use fewer bytes than that).
//
// Algorithm: greedy by size, best fit (the TFLite "greedy by size" planner; Pisarchyk &
// Lee, "Efficient Memory Management for Deep Neural Net Inference", 2020):
//   1. sort requests by size, largest first (ties: earlier first_step, then index);
//   2. for each request, collect the already-placed requests whose lifetimes overlap it,
//      ordered by offset; walk the gaps between them and take the smallest gap that fits
//      (best fit); if none fits, place it after the highest overlapping one;
//   3. offsets and sizes are rounded up to `alignment`.
// It is not optimal (the problem is NP-hard); on the CNNs we measured it lands within a
// few percent of the lower bound. The overlapping requests of step 2 come from an interval
// index (O(log steps + k)), so the cost is O(n log n + sum of k log k) for k overlapping
// requests each: near-linear for chains, quadratic only when most buffers are live at
// once (then k ~ n; e.g. 100,000 graph outputs).
// Requests must satisfy 0 <= first_step <= last_step.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace amp::graph {

struct BufferRequest {
  size_t bytes = 0;
  int32_t first_step = 0;  // step that writes it
  int32_t last_step = 0;   // last step that reads it (inclusive)
};

struct ArenaPlan {
  std::vector<size_t> offsets;  // one per request
  size_t arena_bytes = 0;
  size_t lower_bound_bytes = 0;  // max over steps of the aligned live bytes
};

ArenaPlan plan_arena(const std::vector<BufferRequest>& requests, size_t alignment);

// Checks that no two requests with overlapping lifetimes overlap in memory, and that all
// lie inside the arena and are aligned. Used by tests and debug builds.
bool arena_plan_is_valid(const std::vector<BufferRequest>& requests, const ArenaPlan& plan,
                         size_t alignment);

inline size_t align_up(size_t v, size_t a) {
  return (v + a - 1) / a * a;
}

}  // namespace amp::graph
