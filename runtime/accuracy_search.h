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
// next culprit lies after it. The first round costs ~log2 |L| + 1 plan-and-run
// evaluations. A later round gallops from the last culprit (j = lo + g, lo + 3g, lo + 7g...,
// g the last round's distance from its start to its culprit) until a try misses, then
// binary-searches that bracket: ~2 log2(distance to the next culprit) + 1. So p pins spread
// over L cost ~p (2 log2(|L| / p) + 1), against |L| per pin for a greedy search that tries
// every node (tests compare the two).
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
//
// Direction. The bisection keeps the low nodes at one end low for as long as the target
// allows and pins where that budget runs out, so its pins come from the other end: with L
// in graph order, from the back. That is poor when one node at the front carries most of
// the error (an embedding whose fp16 rounding every later layer carries: greedy pins it
// alone, the back-first bisection 21 nodes of the last layers). So two tries first pin the
// front half of L and the back half: if the front half alone meets the target and does
// better than the back half, the search runs on L reversed (pins from the front; every try
// then shares its all-pinned front with the first round's "pin everything" run, whose
// values are the ones kept). Otherwise back first, the order whose tries reuse the most.
// The rule is a heuristic, measured on the encoders of the README: it matched or beat both
// fixed orders on every target tried there.
#pragma once

#include <algorithm>
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
  // How far from the target, in units of what it allows (<= 1: met): the larger of
  // (1 - cosine) / (1 - min_cosine) and max_rel_err / max_rel_err allowed.
  double miss(const AccuracyTarget& t) const {
    double m = 0;
    if (t.min_cosine > 0) m = (1 - cosine) / std::max(1 - t.min_cosine, 1e-300);
    if (t.max_rel_err > 0) m = std::max(m, max_rel_err / t.max_rel_err);
    return m;
  }
};

struct SearchResult {
  std::vector<std::string> pinned;  // in the order found
  AccuracyScore before, after;
  bool met = false;
  int evaluations = 0;
  int64_t steps_run = 0, steps_reused = 0;  // over every evaluation's runs
  bool front_first = false;                 // the pins came from the front (see Direction)
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
