#include "graph/ir/graph_builder.h"

#include <cctype>

namespace amp::graph {

ValueId GraphBuilder::input(const std::string& name, DType dtype, Shape shape) {
  Value v;
  v.name = name;
  v.dtype = dtype;
  v.shape = std::move(shape);
  ValueId id = g_.add_value(std::move(v));
  g_.inputs.push_back(id);
  return id;
}

ValueId GraphBuilder::constant(const std::string& name, TensorData data) {
  Value v;
  v.name = name;
  v.dtype = data.dtype();
  v.shape = Shape::from_static(data.dims());
  v.constant = std::move(data);
  return g_.add_value(std::move(v));
}

ValueId GraphBuilder::node(OpType op, std::vector<ValueId> inputs, Attributes attrs,
                           const std::string& name) {
  return node_multi(op, std::move(inputs), 1, std::move(attrs), name)[0];
}

std::vector<ValueId> GraphBuilder::node_multi(OpType op, std::vector<ValueId> inputs,
                                              int num_outputs, Attributes attrs,
                                              const std::string& name) {
  Node n;
  if (name.empty()) {
    std::string base(op_name(op));
    for (char& c : base) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    n.name = base + "_" + std::to_string(counter_++);
  } else {
    n.name = name;
  }
  n.op = op;
  n.op_version = opset_;
  n.inputs = std::move(inputs);
  n.attrs = std::move(attrs);
  std::vector<ValueId> outs;
  for (int i = 0; i < num_outputs; ++i) {
    Value v;
    std::string base = n.name;
    if (num_outputs > 1) base.append("_").append(std::to_string(i));
    v.name = fresh_value_name(base);
    outs.push_back(g_.add_value(std::move(v)));
  }
  n.outputs = outs;
  g_.add_node(std::move(n));
  return outs;
}

std::string GraphBuilder::fresh_value_name(const std::string& base) {
  for (; seen_values_ < g_.values.size(); ++seen_values_)
    names_.claim(g_.values[seen_values_].name);
  return names_.fresh(base);
}

}  // namespace amp::graph
