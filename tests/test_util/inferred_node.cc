#include "tests/test_util/inferred_node.h"

#include <cstring>
#include <string>

#include "graph/ops/shape_inference.h"

namespace amp::test {

Result<graph::Graph> infer_single_node(const graph::Node& node,
                                       const std::vector<kernels::TensorDesc>& inputs,
                                       const std::vector<kernels::TensorDesc>& outputs) {
  graph::Graph g;
  graph::Node n = node;
  n.inputs.clear();
  n.outputs.clear();
  for (size_t i = 0; i < inputs.size(); ++i) {
    const kernels::TensorDesc& d = inputs[i];
    if (!d.present) {
      n.inputs.push_back(graph::kNoValue);
      continue;
    }
    graph::Value v;
    v.name = "in" + std::to_string(i);
    v.dtype = d.dtype;
    v.shape = graph::Shape::from_static(d.dims);
    if (d.constant_data != nullptr) {
      std::vector<uint8_t> bytes(d.bytes());
      if (!bytes.empty()) std::memcpy(bytes.data(), d.constant_data, bytes.size());
      AMP_ASSIGN_OR_RETURN(graph::TensorData t,
                           graph::TensorData::from_bytes(d.dtype, d.dims, std::move(bytes)));
      v.constant = std::move(t);
    }
    const graph::ValueId id = g.add_value(std::move(v));
    if (d.constant_data == nullptr) g.inputs.push_back(id);
    n.inputs.push_back(id);
  }
  for (size_t k = 0; k < outputs.size(); ++k) {
    if (!outputs[k].present) {
      n.outputs.push_back(graph::kNoValue);
      continue;
    }
    graph::Value v;
    v.name = "out" + std::to_string(k);
    n.outputs.push_back(g.add_value(std::move(v)));
  }
  g.add_node(std::move(n));
  AMP_RETURN_IF_ERROR(graph::infer_node(g, 0));
  // The runtime describes a kernel's outputs from these inferred values (and the model
  // verifier rejects a file whose values disagree), so outputs of another dtype describe a
  // graph that never reaches a kernel: the model is malformed.
  const graph::Node& done = g.nodes[0];
  for (size_t k = 0; k < outputs.size(); ++k) {
    if (!outputs[k].present) continue;
    const graph::Value& v = g.value(done.outputs[k]);
    if (v.dtype != outputs[k].dtype)
      return invalid_model("output " + std::to_string(k) + " is " +
                           std::string(dtype_name(outputs[k].dtype)) + ", inference gives " +
                           std::string(dtype_name(v.dtype)));
  }
  return g;
}

}  // namespace amp::test
