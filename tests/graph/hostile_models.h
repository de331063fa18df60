// Builders for hostile-model tests: large graphs made directly (no automatic names), and
// ONNX ModelProtos made with the protobuf API.
//
//   ChainGraph c(DType::kF32, {1, 4});            // x -> ...
//   for (int i = 0; i < 1000; ++i) c.add(OpType::kRelu, {});
//   Graph g = c.finish();                         // ... -> last value is the output
//
//   OnnxModel m(17);
//   m.input("x", onnx::TensorProto_DataType_FLOAT, {1, 4});
//   m.node("Relu", {"x"}, {"y"});
//   m.output("y");
//   std::string bytes = m.bytes();
#pragma once

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

#include "graph/ir/graph.h"

namespace amp::graph::hostile {

// A chain of nodes, each consuming the previous output (and optional extra inputs).
class ChainGraph {
 public:
  ChainGraph(DType dtype, Shape shape) {
    Value x;
    x.name = "x";
    x.dtype = dtype;
    x.shape = std::move(shape);
    last_ = g_.add_value(std::move(x));
    g_.inputs.push_back(last_);
  }
  ValueId constant(TensorData data) {
    Value v;
    v.name = "c" + std::to_string(g_.values.size());
    v.dtype = data.dtype();
    v.shape = Shape::from_static(data.dims());
    v.constant = std::move(data);
    return g_.add_value(std::move(v));
  }
  // Appends `op(last, extra...)`; its output becomes the last value.
  ValueId add(OpType op, std::vector<ValueId> extra, Attributes attrs = {}) {
    Node n;
    n.name = "n" + std::to_string(g_.nodes.size());
    n.op = op;
    n.op_version = 17;
    n.inputs.push_back(last_);
    for (ValueId v : extra) n.inputs.push_back(v);
    n.attrs = std::move(attrs);
    Value out;
    out.name = "v" + std::to_string(g_.values.size());
    last_ = g_.add_value(std::move(out));
    n.outputs.push_back(last_);
    g_.add_node(std::move(n));
    return last_;
  }
  ValueId last() const { return last_; }
  Graph& graph() { return g_; }
  Graph finish() {
    g_.outputs.push_back(last_);
    return std::move(g_);
  }

 private:
  Graph g_;
  ValueId last_ = kNoValue;
};

class OnnxModel {
 public:
  explicit OnnxModel(int64_t opset) {
    m_.set_ir_version(8);
    auto* o = m_.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
  }
  onnx::GraphProto* g() { return m_.mutable_graph(); }
  void input(const std::string& name, int elem, const std::vector<int64_t>& dims) {
    auto* vi = g()->add_input();
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem);
    auto* shape = tt->mutable_shape();
    for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
  }
  void output(const std::string& name) { g()->add_output()->set_name(name); }
  onnx::NodeProto* node(const std::string& op, const std::vector<std::string>& ins,
                        const std::vector<std::string>& outs) {
    auto* n = g()->add_node();
    n->set_op_type(op);
    for (const auto& i : ins) n->add_input(i);
    for (const auto& o : outs) n->add_output(o);
    return n;
  }
  // An initializer with raw_data (any bytes: the point may be that they do not match).
  onnx::TensorProto* initializer(const std::string& name, int elem,
                                 const std::vector<int64_t>& dims, const std::string& raw) {
    auto* t = g()->add_initializer();
    t->set_name(name);
    t->set_data_type(elem);
    for (int64_t d : dims) t->add_dims(d);
    t->set_raw_data(raw);
    return t;
  }
  onnx::TensorProto* initializer_i64(const std::string& name, const std::vector<int64_t>& v) {
    return initializer(name, onnx::TensorProto_DataType_INT64, {static_cast<int64_t>(v.size())},
                       std::string(reinterpret_cast<const char*>(v.data()), v.size() * 8));
  }
  std::string bytes() const { return m_.SerializeAsString(); }

 private:
  onnx::ModelProto m_;
};

}  // namespace amp::graph::hostile
