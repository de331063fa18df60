#include "graph/planning/arena_planner.h"

#include <algorithm>
#include <map>
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

// The placed requests, queryable by lifetime: which of them overlap a given lifetime, in
// O(log steps + answer) instead of a scan over all placed requests (which made planning
// quadratic: minutes for a 100,000-node chain). An overlapping request either is live at
// the query's first step (a stabbing query on a segment tree over steps) or starts later
// within the query (a range query on first steps); the two sets are disjoint.
class PlacedIndex {
 public:
  explicit PlacedIndex(int32_t max_step) {
    while (leaves_ < static_cast<size_t>(max_step) + 1) leaves_ *= 2;
    covering_.resize(2 * leaves_);
  }
  void add(size_t idx, const BufferRequest& r) {
    // Iterative segment-tree insertion of [first_step, last_step]: O(log steps) nodes.
    size_t lo = static_cast<size_t>(r.first_step) + leaves_;
    size_t hi = static_cast<size_t>(r.last_step) + leaves_ + 1;
    for (; lo < hi; lo /= 2, hi /= 2) {
      if (lo & 1) covering_[lo++].push_back(idx);
      if (hi & 1) covering_[--hi].push_back(idx);
    }
    by_first_.emplace(r.first_step, idx);
  }
  // Appends every placed request whose lifetime overlaps r's.
  void overlapping(const BufferRequest& r, std::vector<size_t>& out) const {
    for (size_t node = static_cast<size_t>(r.first_step) + leaves_; node >= 1; node /= 2)
      out.insert(out.end(), covering_[node].begin(), covering_[node].end());
    for (auto it = by_first_.upper_bound(r.first_step);
         it != by_first_.end() && it->first <= r.last_step; ++it)
      out.push_back(it->second);
  }

 private:
  size_t leaves_ = 1;
  std::vector<std::vector<size_t>> covering_;  // per tree node: requests covering its range
  std::multimap<int32_t, size_t> by_first_;
};

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

  int32_t max_step = 0;
  for (const auto& r : reqs) max_step = std::max(max_step, r.last_step);
  PlacedIndex placed(max_step);
  std::vector<size_t> overlapping;
  for (size_t idx : order) {
    const BufferRequest& r = reqs[idx];
    const size_t size = align_up(r.bytes, alignment);
    if (size == 0) continue;  // zero-byte buffers take no space (offset 0)
    overlapping.clear();
    placed.overlapping(r, overlapping);
    // Placed buffers that are live together never share an offset, so this order (and
    // the plan) does not depend on the order the index returns them in.
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
    placed.add(idx, r);
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
