// The graph IR: values (tensors), nodes, and the graph that owns them.
//
// Ownership and invariants (checked by verify_graph, ir/verifier.h):
//   - Graph owns every Value and Node by index; ValueId indexes Graph::values. An
//     optional input that is absent is kNoValue.
//   - Each value has exactly one definition: a graph input, a constant (Value::constant
//     set), or the output of exactly one node.
//   - Graph::nodes is in topological order; passes keep it so.
//   - Names of values and nodes are unique within a graph.
//
// Canonical op forms: the importer rewrites older ONNX opsets into the newest layout,
// so everything downstream sees one form per op (see graph/onnx/README.md for the list):
// attribute-held parameters that later opsets moved to inputs (Reduce* axes, Split
// sizes, Clip min/max, Pad pads/value, Squeeze/Unsqueeze axes, Slice starts/ends/axes,
// Resize scales) are constant inputs. Remaining semantic differences between
// versions (Softmax < 13 coerces to 2-D, ...) are read from Node::op_version.
//
// Usage:
//   GraphBuilder b;                               // ir/graph_builder.h
//   ValueId x = b.input("x", DType::kF32, {1, 3, 8, 8});
//   ValueId y = b.node(OpType::kRelu, {x});
//   b.output(y);
//   Graph g = b.build();
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "amp/dtype.h"
#include "graph/ir/attribute.h"
#include "graph/ir/shape.h"
#include "graph/ir/sym_int.h"
#include "graph/ir/tensor_data.h"
#include "graph/ops/op_attrs.h"
#include "graph/ops/op_types.h"

namespace amp::graph {

using ValueId = int32_t;
using NodeId = int32_t;
inline constexpr ValueId kNoValue = -1;

// A field added to Value or Node is copied by copy_for_reinference (below) unless every
// inference refills it.
struct Value {
  std::string name;
  DType dtype = DType::kUndefined;
  std::optional<Shape> shape;          // nullopt until inferred (unknown rank)
  std::optional<TensorData> constant;  // set for weights and folded constants
  // The elements of a small integer tensor (rank <= 1) that shape inference knows though
  // they are not constant: Shape(x) of an x with symbolic dims, and what Gather, Slice,
  // Concat and integer arithmetic make of it (graph/ops/sym_values.h). Derived: refilled by
  // every inference, not serialized.
  std::optional<std::vector<SymInt>> sym_value;

  bool is_constant() const { return constant.has_value(); }
  // The dims when the shape is inferred and static, else nullopt.
  std::optional<std::vector<int64_t>> static_dims() const {
    if (!shape || !shape->is_static()) return std::nullopt;
    return shape->static_dims();
  }
};

struct Node {
  std::string name;
  OpType op = OpType::kIdentity;
  int32_t op_version = 0;        // ai.onnx opset the node was written against
  std::vector<ValueId> inputs;   // kNoValue for an absent optional input
  std::vector<ValueId> outputs;  // kNoValue for an unused optional output
  Attributes attrs;
  // What shape inference read from attrs, validated and resolved (graph/ops/op_attrs.h).
  // Derived data: refilled by every infer_node, not serialized, not compared by ==.
  OpAttrs resolved;
};

struct Metadata {
  std::string producer;       // e.g. "pytorch 2.1" (from ONNX producer_name/version)
  int64_t source_opset = 0;   // ai.onnx opset of the source model
  std::string source_format;  // "onnx"
  std::vector<std::pair<std::string, std::string>> properties;  // free-form key/value
};

class Graph {
 public:
  std::vector<Value> values;
  std::vector<Node> nodes;      // topological order
  std::vector<ValueId> inputs;  // runtime inputs (never constants)
  std::vector<ValueId> outputs;
  Metadata metadata;

  ValueId add_value(Value v) {
    values.push_back(std::move(v));
    return static_cast<ValueId>(values.size() - 1);
  }
  // Appends a node; the caller keeps topological order.
  NodeId add_node(Node n) {
    nodes.push_back(std::move(n));
    return static_cast<NodeId>(nodes.size() - 1);
  }

  Value& value(ValueId id) { return values[static_cast<size_t>(id)]; }
  const Value& value(ValueId id) const { return values[static_cast<size_t>(id)]; }
  bool valid_value(ValueId id) const { return id >= 0 && static_cast<size_t>(id) < values.size(); }
  // Linear search; build a name map for repeated lookups.
  std::optional<ValueId> find_value(const std::string& name) const;
  // Unique names for new values and nodes come from a NameTable (ir/name_table.h).

  // Removes values that no node, graph input or output references, renumbering the
  // rest (ids held outside the graph become invalid).
  void compact_values();

  // Deep equality (values, nodes, io, metadata); used by round-trip tests.
  bool operator==(const Graph& o) const;
};

bool operator==(const Value& a, const Value& b);
bool operator==(const Node& a, const Node& b);
bool operator==(const Metadata& a, const Metadata& b);

// A copy of g without the data that every inference refills (Value::sym_value,
// Node::resolved): for a graph about to be inferred again, as a plan is once it binds its
// input dims. Those are most of a copy's allocations (polynomials, control-flow bodies).
Graph copy_for_reinference(const Graph& g);

// For each value: the node that produces it (-1 for inputs/constants).
std::vector<NodeId> compute_producers(const Graph& g);
// For each value: the nodes that consume it, in node order (a node appears once per use).
std::vector<std::vector<NodeId>> compute_consumers(const Graph& g);

}  // namespace amp::graph
