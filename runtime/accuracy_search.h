// The accuracy search: which nodes to pin to fp32 so that the AMP plan meets an accuracy
// target (Options::accuracy) on the calibration samples.
//
// Score of a plan: run it on the CPU (CpuGraphRunner: the GPU's numerics, fp16 / bf16
// storage with fp32 inside each kernel) on every sample and compare each output with the
// fp32 reference: the worst cosine and the worst max |a - e| / max |e| over outputs and
// samples.
//
// Algorithm (delta debugging over the topological order; TensorRT's and Polygraphy's
// bisection, automated): let L be the plan's low-precision nodes in graph order and P the
// pins so far (empty).
//   while the plan with P pinned misses the target:
//     binary-search the largest j such that pinning P + L[j..) (L without P) meets it;
//     add L[j], the node whose pinning crosses the line, to P.
// The first round checks that pinning all of L meets the target at all. A later round
// needs no such check and searches only after the previous j: with L[j] moved into P,
// P + L[j+1..) is exactly the set the previous round found to meet the target, so the
// next culprit lies after it. Each round costs at most ~log2 |L| + 1 plan-and-run
// evaluations, so p pins cost ~p log2 |L|, against |L| per pin for a greedy search that
// tries every node (tests compare the two).
// It assumes pinning more nodes never makes the error larger (monotone), which holds for
// the usual culprits (an overflowing or cancelling node) but is not guaranteed: the result
// is then still a plan that meets the target, maybe with more pins than needed. If pinning
// every low node misses the target too, the search stops there and says so.
//
// Why suffixes: a try that pins P + L[j..) computes everything before L[j] exactly as the
// plan with P alone does. The plan with P alone is run once per round anyway (is the target
// met yet?), and its values are kept (runtime/value_memo.h), so a try runs only the steps
// from L[j] on; and as the pins move through the graph, so does j. On a 14-layer encoder
// this skips most steps of most tries (the note says how many).
#pragma once

#include <string>
#include <vector>

#include "amp/options.h"
#include "amp/tensor.h"
#include "graph/ir/graph.h"
#include "graph/passes/amp/amp_planner.h"
#include "graph/passes/amp/amp_policy.h"
#include "runtime/calibration.h"
#include "runtime/common/status.h"

namespace amp::runtime {

struct AccuracyScore {
  double cosine = 1;       // worst over outputs and samples
  double max_rel_err = 0;  // worst max |a - e| / max |e|
  bool meets(const AccuracyTarget& t) const {
    return (t.min_cosine <= 0 || cosine >= t.min_cosine) &&
           (t.max_rel_err <= 0 || max_rel_err <= t.max_rel_err);
  }
};

struct SearchResult {
  std::vector<std::string> pinned;  // in the order found
  AccuracyScore before, after;
  bool met = false;
  int evaluations = 0;
  int64_t steps_run = 0, steps_reused = 0;  // over every evaluation's runs
  double ms = 0;
};

// The worst agreement of `got` with `reference`, per sample and output.
AccuracyScore score_outputs(const std::vector<std::vector<Tensor>>& reference,
                            const std::vector<std::vector<Tensor>>& got);

// `g`: the fp32 graph the planner colors; `policy`: the policy (with calibration hints) the
// engine would plan with; `reference`: the fp32 outputs per sample.
Result<SearchResult> search_fp32_pins(const graph::Graph& g, const graph::AmpPolicy& policy,
                                      const std::vector<CalibrationSample>& samples,
                                      const std::vector<std::vector<Tensor>>& reference,
                                      const AccuracyTarget& target, int threads);

}  // namespace amp::runtime
