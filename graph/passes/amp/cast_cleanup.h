// Cast cleanup after the AMP planner.
//
//   1. Exact round trips: Cast(to low) of Cast(to f32) of x, where x is already that low
//      type, is x itself (low -> f32 -> low is exact). Consumers are rewired to x.
//      The reverse, f32 -> low -> f32, rounds and is never removed
//      (onnxconverter-common #271).
//   2. Retargeting: a model Cast whose output is f32 and is consumed only by one inserted
//      Cast to a low type (and is not a graph output) is retargeted to produce the low
//      type directly, and the inserted cast disappears (onnxconverter-common #320).
// Dead casts are left for DeadCodeElimination.
#pragma once

#include <vector>

#include "graph/ir/graph.h"
#include "runtime/common/status.h"

namespace amp::graph {

struct CastCleanupStats {
  int round_trips_removed = 0;
  int casts_retargeted = 0;
};

// `inserted` lists the node indices of the casts the planner inserted (the only ones
// retargeting may delete).
Result<CastCleanupStats> cleanup_casts(Graph& g, const std::vector<NodeId>& inserted);

}  // namespace amp::graph
