#include "graph/onnx/onnx_exporter.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <fstream>
#include <variant>

namespace amp::graph {
namespace {

constexpr int32_t kLayoutOpset = 18;  // header comment

Result<int32_t> onnx_type(DType t) {
  switch (t) {
    case DType::kF32:
      return onnx::TensorProto::FLOAT;
    case DType::kU8:
      return onnx::TensorProto::UINT8;
    case DType::kI8:
      return onnx::TensorProto::INT8;
    case DType::kI16:
      return onnx::TensorProto::INT16;
    case DType::kI32:
      return onnx::TensorProto::INT32;
    case DType::kI64:
      return onnx::TensorProto::INT64;
    case DType::kBool:
      return onnx::TensorProto::BOOL;
    case DType::kF16:
      return onnx::TensorProto::FLOAT16;
    case DType::kF64:
      return onnx::TensorProto::DOUBLE;
    case DType::kBF16:
      return onnx::TensorProto::BFLOAT16;
    case DType::kUndefined:
      break;
  }
  return unsupported("ONNX export: a value of undefined dtype");
}

Status fill_tensor(const std::string& name, const TensorData& t, onnx::TensorProto& out) {
  AMP_ASSIGN_OR_RETURN(const int32_t type, onnx_type(t.dtype()));
  out.set_name(name);
  out.set_data_type(type);
  for (int64_t d : t.dims()) out.add_dims(d);
  out.set_raw_data(std::string(reinterpret_cast<const char*>(t.bytes()), t.byte_size()));
  return Status::ok();
}

Status fill_value_info(const Value& v, onnx::ValueInfoProto& out) {
  AMP_ASSIGN_OR_RETURN(const int32_t type, onnx_type(v.dtype));
  out.set_name(v.name);
  onnx::TypeProto_Tensor* tt = out.mutable_type()->mutable_tensor_type();
  tt->set_elem_type(type);
  if (!v.shape) return Status::ok();
  onnx::TensorShapeProto* shape = tt->mutable_shape();
  for (const Dim& d : v.shape->dims) {
    onnx::TensorShapeProto_Dimension* od = shape->add_dim();
    if (d.is_static())
      od->set_dim_value(d.value);
    else if (!d.symbol.empty())
      od->set_dim_param(d.symbol);
  }
  return Status::ok();
}

Status fill_attribute(const std::string& node, const std::string& name, const AttrValue& value,
                      onnx::AttributeProto& out) {
  out.set_name(name);
  if (const auto* i = std::get_if<int64_t>(&value)) {
    out.set_type(onnx::AttributeProto::INT);
    out.set_i(*i);
  } else if (const auto* f = std::get_if<float>(&value)) {
    out.set_type(onnx::AttributeProto::FLOAT);
    out.set_f(*f);
  } else if (const auto* s = std::get_if<std::string>(&value)) {
    out.set_type(onnx::AttributeProto::STRING);
    out.set_s(*s);
  } else if (const auto* is = std::get_if<std::vector<int64_t>>(&value)) {
    out.set_type(onnx::AttributeProto::INTS);
    for (int64_t x : *is) out.add_ints(x);
  } else if (const auto* fs = std::get_if<std::vector<float>>(&value)) {
    out.set_type(onnx::AttributeProto::FLOATS);
    for (float x : *fs) out.add_floats(x);
  } else if (const auto* ss = std::get_if<std::vector<std::string>>(&value)) {
    out.set_type(onnx::AttributeProto::STRINGS);
    for (const std::string& x : *ss) out.add_strings(x);
  } else if (const auto* t = std::get_if<TensorData>(&value)) {
    out.set_type(onnx::AttributeProto::TENSOR);
    AMP_RETURN_IF_ERROR(fill_tensor("", *t, *out.mutable_t()));
  } else {
    return unsupported("ONNX export: node '" + node + "' has a graph attribute '" + name +
                       "' (control flow is not exported)");
  }
  return Status::ok();
}

Status fill_node(const Graph& g, const Node& n, int32_t opset, onnx::NodeProto& out) {
  if (n.op_version > 0 && n.op_version < 13)
    return unsupported("ONNX export: node '" + n.name + "' (" + std::string(op_name(n.op)) +
                       ") was written against opset " + std::to_string(n.op_version) +
                       ", whose semantics the export at opset " + std::to_string(opset) +
                       " would change");
  out.set_name(n.name);
  out.set_op_type(std::string(op_name(n.op)));
  for (ValueId v : n.inputs) out.add_input(v == kNoValue ? "" : g.value(v).name);
  for (ValueId v : n.outputs) out.add_output(v == kNoValue ? "" : g.value(v).name);
  for (const auto& [name, value] : n.attrs.all()) {
    if (name.rfind("fused_", 0) == 0 || name == "captured_inputs")
      return unsupported("ONNX export: node '" + n.name + "' has AMPRT's own attribute '" + name +
                         "' (export the graph before the load-time passes)");
    AMP_RETURN_IF_ERROR(fill_attribute(n.name, name, value, *out.add_attribute()));
  }
  // Split before opset 18 split evenly by its output count; from 18 on that count is said.
  if (n.op == OpType::kSplit && n.op_version < 18 && !n.attrs.has("num_outputs") &&
      (n.inputs.size() < 2 || n.inputs[1] == kNoValue)) {
    onnx::AttributeProto* a = out.add_attribute();
    a->set_name("num_outputs");
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(static_cast<int64_t>(n.outputs.size()));
  }
  return Status::ok();
}

}  // namespace

Result<std::string> export_onnx(const Graph& g) {
  int32_t opset = kLayoutOpset;
  for (const Node& n : g.nodes) opset = std::max(opset, n.op_version);
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("amprt");
  model.add_opset_import()->set_version(opset);
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name("amprt_export");
  for (ValueId v : g.inputs) AMP_RETURN_IF_ERROR(fill_value_info(g.value(v), *graph->add_input()));
  for (ValueId v : g.outputs)
    AMP_RETURN_IF_ERROR(fill_value_info(g.value(v), *graph->add_output()));
  for (const Value& v : g.values)
    if (v.is_constant())
      AMP_RETURN_IF_ERROR(fill_tensor(v.name, *v.constant, *graph->add_initializer()));
  for (const Node& n : g.nodes) AMP_RETURN_IF_ERROR(fill_node(g, n, opset, *graph->add_node()));
  std::string bytes;
  if (!model.SerializeToString(&bytes))
    return internal_error("ONNX export: the model does not serialize (over 2 GiB?)");
  return bytes;
}

Status write_onnx_file(const Graph& g, const std::string& path) {
  AMP_ASSIGN_OR_RETURN(const std::string bytes, export_onnx(g));
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) return invalid_argument("cannot write '" + path + "'");
  return Status::ok();
}

}  // namespace amp::graph
