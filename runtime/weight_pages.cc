#include "runtime/weight_pages.h"

#include <algorithm>
#include <utility>

#include "runtime/execution_plan.h"

namespace amp::runtime {

namespace {

using Range = std::pair<size_t, size_t>;  // [begin, end) offsets in the mapping

void add_if_mapped(const graph::MappedFile& file, const uint8_t* p, size_t n,
                   std::vector<Range>& keep) {
  if (p == nullptr || n == 0 || !file.contains(p, n)) return;
  const size_t begin = static_cast<size_t>(p - file.data());
  keep.emplace_back(begin, begin + n);
}

// Step 1 for one plan (not the plans under it).
void collect_reads(const graph::MappedFile& file, const ExecutionPlan& plan,
                   std::vector<Range>& keep) {
  for (const PlanStep& step : plan.steps) {
    const std::vector<size_t> replaced = step.kernel->replaced_constant_inputs();
    for (size_t i = 0; i < step.inputs.size(); ++i) {
      const graph::ValueId v = step.inputs[i];
      if (v == graph::kNoValue || !plan.graph.value(v).is_constant()) continue;
      if (std::find(replaced.begin(), replaced.end(), i) != replaced.end()) continue;
      add_if_mapped(file, plan.values[v].constant, plan.graph.value(v).constant->byte_size(), keep);
    }
  }
  for (graph::ValueId v : plan.graph.outputs)
    if (plan.graph.value(v).is_constant())
      add_if_mapped(file, plan.values[v].host_constant, plan.graph.value(v).constant->byte_size(),
                    keep);
}

// Sorts and merges overlapping or touching ranges in place.
void merge_ranges(std::vector<Range>& ranges) {
  std::sort(ranges.begin(), ranges.end());
  size_t out = 0;
  for (const Range& r : ranges) {
    if (out > 0 && r.first <= ranges[out - 1].second)
      ranges[out - 1].second = std::max(ranges[out - 1].second, r.second);
    else
      ranges[out++] = r;
  }
  ranges.resize(out);
}

}  // namespace

std::vector<std::pair<size_t, size_t>> weight_ranges_read(const graph::MappedFile& file,
                                                          const ExecutionPlan& plan) {
  std::vector<Range> keep;
  collect_reads(file, plan, keep);
  merge_ranges(keep);
  return keep;
}

void drop_constant_pages(const graph::MappedFile& file, const void* data, size_t bytes) {
  if (bytes == 0 || !file.contains(data, bytes)) return;
  file.drop_pages(static_cast<size_t>(static_cast<const uint8_t*>(data) - file.data()), bytes);
}

size_t drop_unread_weight_pages(const graph::MappedFile& file,
                                const std::vector<const ExecutionPlan*>& plans) {
  if (file.size() == 0) return 0;
  std::vector<Range> keep;
  for (const ExecutionPlan* p : plans)
    if (p != nullptr)
      for_each_plan(*p, [&](const ExecutionPlan& q) {
        keep.insert(keep.end(), q.weight_reads.begin(), q.weight_reads.end());
      });
  merge_ranges(keep);
  size_t dropped = 0, from = 0;
  for (const Range& r : keep) {
    if (r.first > from) dropped += file.drop_pages(from, r.first - from);
    from = std::max(from, r.second);
  }
  if (from < file.size()) dropped += file.drop_pages(from, file.size() - from);
  return dropped;
}

}  // namespace amp::runtime
