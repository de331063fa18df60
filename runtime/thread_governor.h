// ThreadGovernor: how many of a context's threads (Options::threads) the next run uses,
// chosen by measuring runs, so that a busy neighbour on the same cores does not make a
// multi-threaded run slower than a single-threaded one.
//
// Why: the CPU backend's parallel regions (oneDNN's and ours) split work statically across
// an OpenMP team and end in a barrier. When another process keeps a core busy, the
// scheduler preempts one team member for a whole time slice and every region waits for it:
// a 3 ms model can take hundreds of milliseconds. The OpenMP runtime's wait policy cannot be
// changed once it has started, and passive waiting makes quiet runs of small models several
// times slower (measured: 0.06 -> 0.38 ms), so the choice is made above it, per run.
//
// Algorithm (per context; the candidates are all threads, N, and one thread):
//   - run with the current choice and keep an exponential moving average of its latency
//     (alpha 1/4), the best latency seen with it, and its last kLevelRuns runs; the very
//     first run of a context is not counted (it starts the OpenMP team and touches the
//     arena's pages: measured up to 3x a warm run);
//   - probe the other candidate for kProbeRuns runs (the first of them not counted when
//     that candidate has never run: it pays for cold caches) when
//       * kFirstProbeAfter runs have been made (so both are known early),
//       * or the current choice ran kSlowRuns runs in a row slower than kSlowFactor x its
//         best (a neighbour arrived),
//       * or kProbeInterval runs passed since the last probe (a neighbour left);
//   - after a probe, switch when the probe's median beats the current level by 10%: the
//     median of the current choice's last kLevelRuns runs (its average while it has fewer
//     than 3), so that one slow run before the first probe does not decide it. With the
//     average alone, a cold first run left in it made a 6-layer encoder at 2 threads
//     choose one thread in two of three benchmark rounds on a quiet machine (10.6 ms
//     instead of 5.8, kept for the next 200 runs).
// Each bound plan (input shapes) has a governor of its own (ContextImpl::governor), so a
// server alternating batch sizes keeps what it measured. With N == 1 there is nothing to
// choose. Cost on a quiet machine: one probe of 3 single-thread runs per kProbeInterval.
// Kernels prepare for both thread counts (kernels/cpu/dnnl_common.h: DnnlPrimitivePair), so
// switching needs no re-planning; results may differ in the last bits between the two, as
// any parallel reduction order does.
#pragma once

#include <cstdint>
#include <vector>

namespace amp::runtime {

class ThreadGovernor {
 public:
  static constexpr int kFirstProbeAfter = 5;
  static constexpr int kProbeRuns = 3;
  static constexpr int kSlowRuns = 3;
  static constexpr double kSlowFactor = 1.5;
  static constexpr int kProbeInterval = 200;
  static constexpr int kLevelRuns = 5;

  explicit ThreadGovernor(int max_threads, bool adaptive = true)
      : max_threads_(max_threads < 1 ? 1 : max_threads), adaptive_(adaptive) {}

  // Threads for the next run.
  int next() const;
  // The run made with `threads` took `ms`.
  void record(int threads, double ms);
  // Bound shapes changed: what was measured no longer applies.
  void reset();

 private:
  struct Candidate {
    double average = -1;  // ms; < 0: never measured
    double best = -1;
  };
  int index(int threads) const { return threads == max_threads_ ? 0 : 1; }
  int threads_of(int i) const { return i == 0 ? max_threads_ : 1; }
  void start_probe();
  void end_probe();
  // The current choice's latency to beat: the median of its recent runs (header).
  double level() const;

  int max_threads_;
  bool adaptive_;
  int choice_ = 0;  // index into candidates_
  Candidate candidates_[2];
  int runs_ = 0;  // with the current choice since the last probe
  int slow_in_a_row_ = 0;
  int probe_left_ = 0;  // > 0: probing the other candidate
  bool probe_skip_first_ = false;
  bool cold_ = true;  // the context's first run is still to come
  std::vector<double> probe_ms_;
  std::vector<double> recent_;  // the current choice's last kLevelRuns runs, oldest first
};

}  // namespace amp::runtime
