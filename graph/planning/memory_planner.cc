#include "planning/memory_planner.h"

#include <algorithm>
#include <numeric>

namespace amp::graph {
namespace {

bool lifetimes_overlap(const BufferRequest& a, const BufferRequest& b) {
  return a.first_step <= b.last_step && b.first_step <= a.last_step;
}

size_t lower_bound(const std::vector<BufferRequest>& reqs, size_t alignment) {
  int32_t max_step = 0;
  for (const auto& r : reqs) max_step = std::max(max_step, r.last_step);
  // Difference array over steps: +bytes at first_step, -bytes after last_step.
  std::vector<int64_t> delta(static_cast<size_t>(max_step) + 2, 0);
  for (const auto& r : reqs) {
    if (r.bytes == 0) continue;
    const int64_t b = static_cast<int64_t>(align_up(r.bytes, alignment));
    delta[static_cast<size_t>(r.first_step)] += b;
    delta[static_cast<size_t>(r.last_step) + 1] -= b;
  }
  int64_t live = 0, best = 0;
  for (int64_t d : delta) {
    live += d;
    best = std::max(best, live);
  }
  return static_cast<size_t>(best);
}

}  // namespace

ArenaPlan plan_arena(const std::vector<BufferRequest>& reqs, size_t alignment) {
  ArenaPlan plan;
  plan.offsets.assign(reqs.size(), 0);
  plan.lower_bound_bytes = lower_bound(reqs, alignment);

  std::vector<size_t> order(reqs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (reqs[a].bytes != reqs[b].bytes) return reqs[a].bytes > reqs[b].bytes;
    return reqs[a].first_step < reqs[b].first_step;
  });

  std::vector<size_t> placed;  // indices into reqs, in placement order
  std::vector<size_t> overlapping;
  for (size_t idx : order) {
    const BufferRequest& r = reqs[idx];
    const size_t size = align_up(r.bytes, alignment);
    if (size == 0) continue;  // zero-byte buffers take no space (offset 0)
    overlapping.clear();
    for (size_t p : placed)
      if (lifetimes_overlap(r, reqs[p])) overlapping.push_back(p);
    std::sort(overlapping.begin(), overlapping.end(),
              [&](size_t a, size_t b) { return plan.offsets[a] < plan.offsets[b]; });

    size_t best_offset = 0;
    size_t best_gap = SIZE_MAX;
    size_t cursor = 0;  // end of the highest block seen so far
    for (size_t p : overlapping) {
      const size_t start = plan.offsets[p];
      if (start > cursor) {
        const size_t gap = start - cursor;
        if (gap >= size && gap < best_gap) {
          best_gap = gap;
          best_offset = cursor;
        }
      }
      cursor = std::max(cursor, start + align_up(reqs[p].bytes, alignment));
    }
    if (best_gap == SIZE_MAX) best_offset = cursor;  // no gap fits: place on top
    plan.offsets[idx] = best_offset;
    plan.arena_bytes = std::max(plan.arena_bytes, best_offset + size);
    placed.push_back(idx);
  }
  return plan;
}

bool arena_plan_is_valid(const std::vector<BufferRequest>& reqs, const ArenaPlan& plan,
                         size_t alignment) {
  if (plan.offsets.size() != reqs.size()) return false;
  for (size_t i = 0; i < reqs.size(); ++i) {
    if (reqs[i].bytes == 0) continue;
    if (plan.offsets[i] % alignment != 0) return false;
    if (plan.offsets[i] + reqs[i].bytes > plan.arena_bytes) return false;
    for (size_t j = i + 1; j < reqs.size(); ++j) {
      if (reqs[j].bytes == 0 || !lifetimes_overlap(reqs[i], reqs[j])) continue;
      const size_t a0 = plan.offsets[i], a1 = a0 + reqs[i].bytes;
      const size_t b0 = plan.offsets[j], b1 = b0 + reqs[j].bytes;
      if (a0 < b1 && b0 < a1) return false;
    }
  }
  return true;
}

}  // namespace amp::graph
