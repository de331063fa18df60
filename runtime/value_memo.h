// ValueMemo: the values one run of a plan computed, kept so that runs of similar plans (the
// accuracy search's next tries: the same graph with a few nodes' precision changed, on the
// same calibration samples) skip the steps that would compute them again.
//
// Fingerprints. Every value of a bound plan gets a 64-bit fingerprint of what decides its
// contents:
//   graph input:  its position, dtype and dims, and the run's tag (the caller's promise that
//                 equal tags mean equal input data);
//   constant:     dtype, dims and bytes for small ones (folding creates them anew per plan);
//                 for large ones (weights) the storage's identity, owner and address: the
//                 planner's converted weights are shared between plans, and the memo keeps
//                 the plans it recorded alive, so an address cannot be reused meanwhile;
//   step output:  the node's op, version, name and attributes, its inputs' fingerprints,
//                 the output's position, dtype and dims.
// Two plans agree on a value's fingerprint only if the same node computed it from the same
// inputs at the same precision, so its bytes are the same (kernels are deterministic for a
// given shape and thread count). A node with a subgraph, the data-dependent step of a cut
// plan, and everything computed from them get no fingerprint and always run; a plan with a
// continuation runs without the memo.
//
// Use. begin(record) starts the runs of one evaluation, bind() gives each run its StepReuse,
// end() finishes. A step is skipped when every output it has is kept; the outputs that a
// step still to run (or the graph's outputs) reads are copied into the arena where the step
// would have written them, others are not touched. A recording evaluation keeps what it
// computed, up to the byte budget in step order (the graph's front, which the search's
// later tries share most), and what it reused; the previous record is dropped at end().
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "runtime/backend/backend.h"
#include "runtime/execution_plan.h"

namespace amp::runtime {

class ValueMemo {
 public:
  static constexpr size_t kDefaultBudgetBytes = size_t{512} << 20;
  explicit ValueMemo(size_t budget_bytes = kDefaultBudgetBytes) : budget_(budget_bytes) {}

  void begin(bool record);
  void end();
  // The reuse for one run of `plan` on inputs identified by `run_tag`; null when the plan
  // cannot use the memo (it has a continuation). Valid until end().
  std::unique_ptr<StepReuse> bind(const std::shared_ptr<const ExecutionPlan>& plan,
                                  uint64_t run_tag);

  size_t bytes() const { return bytes_; }
  int64_t steps_run() const { return steps_run_; }
  int64_t steps_skipped() const { return steps_skipped_; }

 private:
  friend class MemoRun;
  using Bytes = std::shared_ptr<const std::vector<uint8_t>>;
  const Bytes* find(uint64_t fingerprint) const;
  void keep(uint64_t fingerprint, Bytes bytes);

  size_t budget_;
  bool record_ = false;
  std::unordered_map<uint64_t, Bytes> kept_;      // this evaluation's record (or the last)
  std::unordered_map<uint64_t, Bytes> previous_;  // the last record, while a new one is made
  std::vector<std::shared_ptr<const ExecutionPlan>> plans_, previous_plans_;
  size_t bytes_ = 0;
  int64_t steps_run_ = 0, steps_skipped_ = 0;
};

// The fingerprints of every value of `plan` (0: none), as described above. Exposed for tests.
std::vector<uint64_t> value_fingerprints(const ExecutionPlan& plan, uint64_t run_tag);

}  // namespace amp::runtime
