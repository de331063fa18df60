// How errors and reports name a node: "node 'conv1' (Conv)". One spelling for the graph
// layer and the runtime (runtime/node_label.h brings it into amp::runtime).
#pragma once

#include <string>

#include "graph/ir/graph.h"

namespace amp::graph {

inline std::string node_label(const Node& n) {
  return "node '" + n.name + "' (" + std::string(op_name(n.op)) + ")";
}

}  // namespace amp::graph
