// SpinBarrier: a barrier for a few threads that meet every few microseconds (the recurrent
// layers' threads once or twice a time step, kernels/cpu/recurrent_packed.h).
//
// Why not std::barrier or an OpenMP barrier: std::barrier (libstdc++) falls back to a futex
// after a few spins, and a futex wake-up (5-10 us) costs as much as the step it ends; an
// OpenMP barrier counts every thread of the parallel region, where two groups of threads may
// run different numbers of steps.
//
// Algorithm: a generation counter and an arrival count. The last thread to arrive resets
// the count and then advances the generation (release); the others spin on the generation
// with a pause instruction, and yield their time slice after kSpins tries, so that a thread
// waiting on a preempted peer gives its core back (the thread governor, thread_governor.h,
// then measures the slow runs and drops to one thread while a neighbour keeps cores busy).
// A thread that leaves and arrives at the next barrier before the others have woken cannot
// be counted twice: it read the new generation, so it joins the next count.
#pragma once

#include <atomic>
#include <thread>

namespace amp::kernels::cpu {

class SpinBarrier {
 public:
  static constexpr int kSpins = 1 << 14;  // ~0.1-0.5 ms of pauses before yielding

  explicit SpinBarrier(int threads) : threads_(threads) {}

  void arrive_and_wait() {
    if (threads_ <= 1) return;
    const unsigned generation = generation_.load(std::memory_order_acquire);
    if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == threads_) {
      arrived_.store(0, std::memory_order_relaxed);
      generation_.store(generation + 1, std::memory_order_release);
      return;
    }
    for (int spins = 0; generation_.load(std::memory_order_acquire) == generation; ++spins) {
      if (spins < kSpins)
        pause();
      else
        std::this_thread::yield();
    }
  }

 private:
  static void pause() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }

  const int threads_;
  std::atomic<int> arrived_{0};
  std::atomic<unsigned> generation_{0};
};

}  // namespace amp::kernels::cpu
