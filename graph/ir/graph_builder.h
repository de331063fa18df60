// GraphBuilder: the terse way to make graphs in tests, samples and the demo-model
// generator. It names values and nodes automatically ("relu_0", "relu_0_out0", ...),
// keeps topological order by construction, and does no shape inference itself (run
// graph::infer_shapes on the result, ops/shape_inference.h). Naming is O(1) a value (a
// NameTable); it sees values added through graph(), but a name changed there rather than
// through rename() may be given out again.
//
//   GraphBuilder b;
//   ValueId x = b.input("x", DType::kF32, {1, 16});
//   ValueId w = b.constant("w", TensorData::from_vector<float>(DType::kF32, {16, 4}, ws));
//   ValueId y = b.node(OpType::kMatMul, {x, w});
//   b.output(y);
//   Graph g = b.build();
#pragma once

#include <string>
#include <vector>

#include "graph/ir/graph.h"
#include "graph/ir/name_table.h"

namespace amp::graph {

class GraphBuilder {
 public:
  ValueId input(const std::string& name, DType dtype, Shape shape);
  ValueId constant(const std::string& name, TensorData data);
  // One output; returns it.
  ValueId node(OpType op, std::vector<ValueId> inputs, Attributes attrs = {},
               const std::string& name = "");
  // Several outputs; returns them in order.
  std::vector<ValueId> node_multi(OpType op, std::vector<ValueId> inputs, int num_outputs,
                                  Attributes attrs = {}, const std::string& name = "");
  void output(ValueId v) { g_.outputs.push_back(v); }
  // Renames a value (e.g. to give a graph output a stable name).
  void rename(ValueId v, const std::string& name) {
    g_.value(v).name = name;
    names_.claim(name);
  }
  void set_opset(int32_t opset) { opset_ = opset; }

  Graph& graph() { return g_; }
  Graph build() { return std::move(g_); }

 private:
  std::string fresh_value_name(const std::string& base);

  Graph g_;
  NameTable names_;         // every value name given out or seen
  size_t seen_values_ = 0;  // g_.values claimed into names_ so far
  int32_t opset_ = 22;
  int counter_ = 0;
};

}  // namespace amp::graph
