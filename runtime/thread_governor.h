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
//   - the latency of a set of runs is their "typical" value: the mean without the slowest
//     run (the mean while there are fewer than 3). A stall that hits every other run counts
//     (with a busy neighbour two-thread runs of a 2 ms model alternated 2 ms and 80-230 ms:
//     their median said 2 ms and kept two threads at a mean of 30-44 ms); one disturbed run
//     does not;
//   - run with the current choice and keep its last kLevelRuns runs; their typical value is
//     the choice's level. The very first run of a context is not counted (it starts the
//     OpenMP team and touches the arena's pages: measured up to 3x a warm run). The
//     reference is the level of the first full window after a probe (or the probe's own
//     value after a switch), lowered whenever the level improves;
//   - probe the other candidate for kProbeRuns runs (the first of them not counted when
//     that candidate has never run: it pays for cold caches) when
//       * kFirstProbeAfter runs have been made (so both are known early),
//       * or the level rose above kSlowFactor x the reference (a neighbour arrived),
//       * or kProbeInterval runs passed since the last probe (a neighbour left);
//   - a run of all threads slower than kSlowFactor x the level of one thread ends such a
//     probe at once: all threads lost (a probe while the neighbour stays costs one stalled
//     run, not kProbeRuns). A probe of one thread always makes its kProbeRuns runs;
//   - after a full probe, switch when the probe's typical value beats the current level by
//     10%. Rare stalls: when all threads are the choice and have made kStallRuns runs or
//     more since the last probe, their level is the mean of all those runs where that is
//     higher, stalls included. A neighbour's whole time slice (~25 ms) once in a few hundred
//     runs escapes every 5-run window, yet costs a 20 us model more than all its runs
//     (mnist-8 at 2 threads beside `yes`: median 0.020 ms as at one thread, mean 0.07-0.14
//     against 0.021); a model that two threads make much faster keeps them, since its
//     stalls cost less than the threads gain;
//   - back-off: on one thread, the periodic probe of all threads waits twice as long
//     (probe_interval_, up to kMaxProbeInterval runs and ~kMaxProbeGapMs of run time) each
//     time all threads lose within kStallRuns runs of winning a probe, or their probe stops
//     at a slow run: a neighbour whose stalls come every few runs let three clean runs win
//     and took the next few (ultraface at 2 threads beside `yes`: a switch to two threads
//     and back every 200 runs, the mean 10% over one thread's). All threads holding for
//     kStallRuns runs resets it. A cold first run or one slow run before the first
//     probe does not decide it: with an average over those, a 6-layer encoder at 2 threads on a
//     quiet machine chose one thread in two of three benchmark rounds (10.6 ms instead of 5.8, for
//     200 runs).
// Each bound plan (input shapes) has a governor of its own (ContextImpl::governor), so a
// server alternating batch sizes keeps what it measured. With N == 1 there is nothing to
// choose. Cost on a quiet machine: one probe of kProbeRuns single-thread runs per
// kProbeInterval runs.
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
  static constexpr double kSlowFactor = 1.5;
  static constexpr int kProbeInterval = 200;
  static constexpr int kLevelRuns = 5;
  static constexpr int kStallRuns = 100;
  static constexpr int kMaxProbeInterval = 6400;
  static constexpr double kMaxProbeGapMs = 5000;

  explicit ThreadGovernor(int max_threads, bool adaptive = true)
      : max_threads_(max_threads < 1 ? 1 : max_threads), adaptive_(adaptive) {}

  // Threads for the next run.
  int next() const;
  // The run made with `threads` took `ms`.
  void record(int threads, double ms);
  // Bound shapes changed: what was measured no longer applies.
  void reset();

 private:
  int threads_of(int i) const { return i == 0 ? max_threads_ : 1; }
  void record_probe(double ms);
  void end_probe(bool full);
  // On one thread, probe all threads less often (header); `one_thread_ms`: its level.
  void back_off(double one_thread_ms);
  // The current choice's level: the typical value of its recent runs (header).
  double level() const;

  int max_threads_;
  bool adaptive_;
  int choice_ = 0;                       // 0: all threads, 1: one thread
  bool measured_[2] = {false, false};    // has the candidate made a counted run
  double reference_ = -1;                // ms; < 0: to be set from the next full window
  int probe_interval_ = kProbeInterval;  // on one thread: runs between probes of all
  int trial_runs_ = -1;  // all threads since a probe made them the choice; -1: not on trial
  int runs_ = 0;         // with the current choice since the last probe
  double runs_ms_ = 0;   // their total
  int probe_left_ = 0;   // > 0: probing the other candidate
  bool probe_skip_first_ = false;
  bool cold_ = true;  // the context's first run is still to come
  std::vector<double> probe_ms_;
  std::vector<double> recent_;  // the current choice's last kLevelRuns runs, oldest first
};

}  // namespace amp::runtime
