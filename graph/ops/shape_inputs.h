// Value-dependent shapes: inputs whose VALUES decide output shapes (Reshape's shape,
// Reduce* axes, Slice starts/ends, Expand/Tile/ConstantOfShape shapes, ...).
//
// When such a value comes from a graph input (as in ONNX node tests that feed `axes` at run
// time), shapes cannot be planned from dims alone. The runtime then treats the input's
// values like its dims: they are part of the plan key, and bind_shape_input_values()
// rewires the shape slots to a constant copy before planning (the graph input itself stays,
// for any consumer that reads it as data).
#pragma once

#include <optional>
#include <vector>

#include "graph/ir/graph.h"
#include "runtime/common/status.h"

namespace amp::graph {

// Which inputs of an op decide shapes is a column of op_types.def: is_shape_input(op, i)
// in op_types.h.

// Graph inputs (positions in g.inputs) that are integers feeding a shape slot of a node.
std::vector<size_t> shape_determining_inputs(const Graph& g);

// For each graph input position with a value, replaces its uses in shape slots by a new
// constant holding `values[i]`. values.size() == g.inputs.size(); nullopt leaves an input
// alone. Shapes must be re-inferred afterwards.
Status bind_shape_input_values(Graph& g, const std::vector<std::optional<TensorData>>& values);

}  // namespace amp::graph
