// Latency statistics and the timed loop (warm-up, iterations, minimum duration, N streams).
#pragma once

#include <functional>
#include <vector>

#include "amp/engine.h"

namespace amprun {

struct LatencyStats {
  double min = 0, max = 0, mean = 0, median = 0, p90 = 0, p95 = 0, p99 = 0;
  double throughput_qps = 0;
  int iterations = 0;
  double wall_s = 0;
};

// Percentile by nearest rank on a sorted copy.
LatencyStats summarize(std::vector<double> latencies_ms, double wall_s);

// Runs `streams` host threads, each with its own ExecutionContext: `warmup` untimed runs,
// then timed runs until `iterations` runs are done in total and `duration_s` has passed.
// Prints a progress line on stderr every ~2 s for long runs. Throws amp::Error.
LatencyStats run_timed(const amp::Engine& engine, const std::vector<amp::NamedTensor>& inputs,
                       int warmup, int iterations, double duration_s, int streams);

}  // namespace amprun
