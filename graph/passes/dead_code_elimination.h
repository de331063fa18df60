// DeadCodeElimination: removes nodes none of whose outputs reach a graph output, then
// drops values nothing references (unused constants included).
//
// Algorithm: one reverse sweep over the topologically ordered nodes with a "live" flag per
// value, seeded by the graph outputs: a node is kept iff one of its outputs is live, and
// then marks its inputs live. O(nodes + edges). All ops are side-effect free, so this is
// exact.
#pragma once

#include "graph/passes/pass.h"

namespace amp::graph {

class DeadCodeElimination : public Pass {
 public:
  std::string_view name() const override { return "dead-code-elimination"; }
  Result<bool> run(Graph& g) override;
};

}  // namespace amp::graph
