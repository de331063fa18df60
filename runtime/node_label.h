// How the runtime names a node in errors and reports: "node 'conv1' (Conv)", the graph
// layer's spelling (graph/ir/node_label.h).
#pragma once

#include "graph/ir/node_label.h"

namespace amp::runtime {

using graph::node_label;

}  // namespace amp::runtime
