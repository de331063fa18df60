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
//     (alpha 1/4) and the best latency seen with it;
//   - probe the other candidate for kProbeRuns runs (the first of them not counted when
//     that candidate has never run: it pays for cold caches) when
//       * kFirstProbeAfter runs have been made (so both are known early),
//       * or the current choice ran kSlowRuns runs in a row slower than kSlowFactor x its
//         best (a neighbour arrived),
//       * or kProbeInterval runs passed since the last probe (a neighbour left);
//   - after a probe, switch when the probe's median beats the current average by 10%.
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

  int max_threads_;
  bool adaptive_;
  int choice_ = 0;  // index into candidates_
  Candidate candidates_[2];
  int runs_ = 0;  // with the current choice since the last probe
  int slow_in_a_row_ = 0;
  int probe_left_ = 0;  // > 0: probing the other candidate
  bool probe_skip_first_ = false;
  std::vector<double> probe_ms_;
};

}  // namespace amp::runtime
