#include "runtime/thread_governor.h"

#include <algorithm>

namespace amp::runtime {
namespace {

double median(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int ThreadGovernor::next() const {
  if (!adaptive_ || max_threads_ == 1) return max_threads_;
  return threads_of(probe_left_ > 0 ? 1 - choice_ : choice_);
}

void ThreadGovernor::reset() {
  choice_ = 0;
  candidates_[0] = candidates_[1] = Candidate{};
  runs_ = slow_in_a_row_ = probe_left_ = 0;
  probe_ms_.clear();
  recent_.clear();
  cold_ = true;  // a new plan: its first run touches a new arena
}

double ThreadGovernor::level() const {
  return recent_.size() < 3 ? candidates_[choice_].average : median(recent_);
}

void ThreadGovernor::start_probe() {
  probe_left_ = kProbeRuns;
  probe_skip_first_ = candidates_[1 - choice_].average < 0;
  probe_ms_.clear();
}

void ThreadGovernor::end_probe() {
  const double probed = median(probe_ms_);
  Candidate& other = candidates_[1 - choice_];
  other.average = probed;
  other.best = other.best < 0 ? probed : std::min(other.best, probed);
  if (probed < 0.9 * level()) {
    choice_ = 1 - choice_;
    candidates_[choice_].best = probed;  // the old best may predate the neighbour
    recent_.assign(probe_ms_.begin(), probe_ms_.end());
  } else {
    // Staying: "slow" now means slower than today's level, or a lasting neighbour would
    // trigger a probe every kSlowRuns runs.
    candidates_[choice_].best = candidates_[choice_].average;
  }
  runs_ = slow_in_a_row_ = 0;
}

void ThreadGovernor::record(int threads, double ms) {
  if (!adaptive_ || max_threads_ == 1) return;
  if (cold_) {  // starting the team and touching the arena: not the choice's speed
    cold_ = false;
    return;
  }
  const int i = index(threads);
  if (probe_left_ > 0 && i != choice_) {
    --probe_left_;
    if (probe_skip_first_) {
      probe_skip_first_ = false;
      ++probe_left_;  // the cold run does not count
    } else {
      probe_ms_.push_back(ms);
    }
    if (probe_left_ == 0) end_probe();
    return;
  }
  Candidate& c = candidates_[i];
  c.average = c.average < 0 ? ms : 0.75 * c.average + 0.25 * ms;
  c.best = c.best < 0 ? ms : std::min(c.best, ms);
  ++runs_;
  recent_.push_back(ms);
  if (recent_.size() > static_cast<size_t>(kLevelRuns)) recent_.erase(recent_.begin());
  slow_in_a_row_ = ms > kSlowFactor * c.best ? slow_in_a_row_ + 1 : 0;
  const bool never_probed = candidates_[1 - choice_].average < 0;
  if ((never_probed && runs_ >= kFirstProbeAfter) || slow_in_a_row_ >= kSlowRuns ||
      runs_ >= kProbeInterval)
    start_probe();
}

}  // namespace amp::runtime
