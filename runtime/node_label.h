// How the runtime names a node in errors and reports: "node 'conv1' (Conv)".
#pragma once

#include <string>

#include "graph/ir/graph.h"

namespace amp::runtime {

inline std::string node_label(const graph::Node& n) {
  return "node '" + n.name + "' (" + std::string(graph::op_name(n.op)) + ")";
}

}  // namespace amp::runtime
