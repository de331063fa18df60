// One-screen summary of a converted graph, printed by amp-convert.
//
//   std::cout << graph_summary(g, "model.onnx");
#pragma once

#include <string>

#include "graph/ir/graph.h"

namespace amp::tools {

// Model path, producer, opset, inputs and outputs (name dtype shape), node count, op
// histogram (most frequent first), constant count and weight bytes. Ends with '\n'.
std::string graph_summary(const graph::Graph& g, const std::string& model_path);

}  // namespace amp::tools
