#include "runtime/thread_governor.h"

#include <algorithm>

namespace amp::runtime {
namespace {

// The mean without the slowest run, from 3 runs on (header).
double typical(const std::vector<double>& ms) {
  if (ms.empty()) return -1;
  double sum = 0;
  for (double v : ms) sum += v;
  if (ms.size() < 3) return sum / static_cast<double>(ms.size());
  sum -= *std::max_element(ms.begin(), ms.end());
  return sum / static_cast<double>(ms.size() - 1);
}

}  // namespace

int ThreadGovernor::next() const {
  if (!adaptive_ || max_threads_ == 1) return max_threads_;
  return threads_of(probe_left_ > 0 ? 1 - choice_ : choice_);
}

void ThreadGovernor::reset() {
  choice_ = 0;
  measured_[0] = measured_[1] = false;
  reference_ = -1;
  runs_ = probe_left_ = 0;
  runs_ms_ = 0;
  probe_interval_ = kProbeInterval;
  trial_runs_ = -1;
  probe_ms_.clear();
  recent_.clear();
  cold_ = true;  // a new plan: its first run touches a new arena
}

double ThreadGovernor::level() const {
  return typical(recent_);
}

void ThreadGovernor::end_probe(bool full) {
  // All threads are judged with their rare stalls too (header).
  double current = level();
  if (choice_ == 0 && runs_ >= kStallRuns) current = std::max(current, runs_ms_ / runs_);
  probe_left_ = 0;
  runs_ = 0;
  runs_ms_ = 0;
  const double probed = typical(probe_ms_);
  if (full && probed < 0.9 * current) {
    if (choice_ == 0 && trial_runs_ >= 0) back_off(probed);  // lost soon after winning
    trial_runs_ = choice_ == 1 ? 0 : -1;
    choice_ = 1 - choice_;
    recent_ = probe_ms_;
    reference_ = probed;
    return;
  }
  if (!full && choice_ == 1) back_off(level());  // all threads stalled at once
  // Staying: the reference is re-measured from the next full window, or a lasting
  // slowdown of both candidates would trigger a probe every few runs.
  reference_ = -1;
}

void ThreadGovernor::back_off(double one_thread_ms) {
  const auto by_time = static_cast<int>(
      std::min<double>(kMaxProbeGapMs / std::max(one_thread_ms, 1e-6), kMaxProbeInterval));
  probe_interval_ = std::max(kProbeInterval, std::min(2 * probe_interval_, by_time));
}

void ThreadGovernor::record_probe(double ms) {
  if (probe_skip_first_) {  // the candidate's cold first run does not count
    probe_skip_first_ = false;
    return;
  }
  measured_[1 - choice_] = true;
  // Only a probe of all threads ends early: its slow runs are the stalls it probes for. One
  // thread's runs stay bounded, and its first runs after a multi-threaded one can be slowed
  // by the OpenMP team still spinning (measured 6.4 ms against 2.2).
  if (choice_ == 1 && ms > kSlowFactor * level()) return end_probe(/*full=*/false);
  probe_ms_.push_back(ms);
  if (--probe_left_ == 0) end_probe(/*full=*/true);
}

void ThreadGovernor::record(int threads, double ms) {
  if (!adaptive_ || max_threads_ == 1) return;
  if (cold_) {  // starting the team and touching the arena: not the choice's speed
    cold_ = false;
    return;
  }
  if (probe_left_ > 0 && threads == threads_of(1 - choice_)) return record_probe(ms);
  measured_[choice_] = true;
  ++runs_;
  runs_ms_ += ms;
  if (trial_runs_ >= 0 && ++trial_runs_ >= kStallRuns) {  // all threads held
    trial_runs_ = -1;
    probe_interval_ = kProbeInterval;
  }
  recent_.push_back(ms);
  if (recent_.size() > static_cast<size_t>(kLevelRuns)) recent_.erase(recent_.begin());
  const double now = level();
  if (runs_ >= kLevelRuns) reference_ = reference_ < 0 ? now : std::min(reference_, now);
  const bool slower = reference_ > 0 && now > kSlowFactor * reference_;
  if ((!measured_[1 - choice_] && runs_ >= kFirstProbeAfter) || slower ||
      runs_ >= (choice_ == 1 ? probe_interval_ : kProbeInterval)) {
    probe_left_ = kProbeRuns;
    probe_skip_first_ = !measured_[1 - choice_];
    probe_ms_.clear();
  }
}

}  // namespace amp::runtime
