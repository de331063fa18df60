#include "graph/onnx/onnx_importer.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <unordered_map>

#include <onnx/onnx_pb.h>

#include "graph/ir/limits.h"
#include "graph/ir/verifier.h"
#include "graph/onnx/onnx_canonical.h"
#include "graph/onnx/onnx_internal.h"
#include "graph/onnx/onnx_tensor.h"

namespace amp::graph {
namespace {

using onnx_import::CanonContext;
using onnx_import::TensorSource;
using onnx_import::UnsupportedReport;

constexpr int64_t kMinOpset = 7;
constexpr int64_t kMaxOpset = 28;

bool is_default_domain(const std::string& d) {
  return d.empty() || d == "ai.onnx";
}

// Protobuf's default total-bytes limit is far below the format's own 2 GB ceiling.
Result<std::unique_ptr<onnx::ModelProto>> parse_model(
    google::protobuf::io::ZeroCopyInputStream* stream) {
  auto model = std::make_unique<onnx::ModelProto>();
  google::protobuf::io::CodedInputStream coded(stream);
  coded.SetTotalBytesLimit(INT_MAX);
  if (!model->ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage())
    return invalid_model(
        "not a valid ONNX model: protobuf parsing failed (a malformed file, or messages nested "
        "deeper than protobuf's limit of 100, e.g. If/Loop/Scan bodies nested ~30 levels)");
  return model;
}

Dim dim_from_proto(const onnx::TensorShapeProto_Dimension& d) {
  if (d.value_case() == onnx::TensorShapeProto_Dimension::kDimValue && d.dim_value() >= 0)
    return Dim(d.dim_value());
  if (d.value_case() == onnx::TensorShapeProto_Dimension::kDimParam)
    return Dim::symbolic(d.dim_param());
  return Dim::symbolic("");  // neither: an unknown size
}

// dtype and shape of a ValueInfo. kUnsupported for non-tensor types and dtypes outside
// amp::DType; a missing shape leaves the rank unknown. A ValueInfo without any type is
// a tensor left to inference: ONNX allows it for subgraph outputs and value_info, and
// exporters write it (spox's If branches in Silero VAD name their outputs only).
Status read_value_info(const onnx::ValueInfoProto& vi, const std::string& label, Value& v) {
  const onnx::TypeProto& type = vi.type();
  if (type.value_case() == onnx::TypeProto::VALUE_NOT_SET) return Status::ok();
  if (!type.has_tensor_type())
    return unsupported(label +
                       " is not a tensor (sequence, map and optional types are not "
                       "supported)");
  const onnx::TypeProto_Tensor& tt = type.tensor_type();
  if (tt.elem_type() != 0) {
    std::optional<DType> dt = dtype_from_onnx(tt.elem_type());
    if (!dt)
      return unsupported(label + " has dtype " + onnx_import::onnx_dtype_name(tt.elem_type()));
    v.dtype = *dt;
  }
  if (tt.has_shape()) {
    Shape s;
    for (const auto& d : tt.shape().dim()) s.dims.push_back(dim_from_proto(d));
    v.shape = std::move(s);
  }
  return Status::ok();
}

Result<TensorData> constant_node_value(onnx::AttributeProto& a, const std::string& label,
                                       const TensorSource& src) {
  const std::string& name = a.name();
  if (name == "value") {
    if (!a.has_t()) return invalid_model(label + ": attribute 'value' holds no tensor");
    return onnx_import::decode_tensor(*a.mutable_t(), label, src);
  }
  if (name == "value_float") return TensorData::scalar_f32(a.f());
  if (name == "value_int") return TensorData::scalar_i64(a.i());
  if (name == "value_ints")
    return TensorData::vector_i64(std::vector<int64_t>(a.ints().begin(), a.ints().end()));
  if (name == "value_floats") {
    std::vector<float> v(a.floats().begin(), a.floats().end());
    return TensorData::from_vector<float>(DType::kF32, {static_cast<int64_t>(v.size())}, v);
  }
  if (name == "sparse_value" || name == "value_string" || name == "value_strings")
    return unsupported(label + ": attribute '" + name + "'");
  return invalid_model(label + ": unknown attribute '" + name + "'");
}

// A node on its way into the graph: converted, but inputs not yet resolved and order
// not yet checked.
struct PendingNode {
  Node node;
  const onnx::NodeProto* proto = nullptr;
  bool supported = true;
  // Outer-scope names its bodies read, in the order they become trailing inputs
  // (graph/ops/control_flow.h).
  std::vector<std::string> captures;
};

std::string node_label(const Node& n, const onnx::NodeProto& p) {
  return "node '" + n.name + "' (" + p.op_type() + ")";
}

class Importer {
 public:
  Importer(onnx::ModelProto& model, const ImportOptions& opts, TensorSource src)
      : model_(model), opts_(opts), src_(std::move(src)), report_(own_report_) {}
  // A body of a node of `parent`'s graph: the same model, opset and report.
  struct BodyOf {
    Importer& parent;
  };
  explicit Importer(BodyOf b) : Importer(b.parent, 0) {}

 private:
  Importer(Importer& parent, int)
      : model_(parent.model_),
        opts_(parent.opts_),
        src_(parent.src_),
        opset_(parent.opset_),
        parent_(&parent),
        depth_(parent.depth_ + 1),
        report_(parent.report_) {}

 public:
  Result<Graph> run() {
    AMP_RETURN_IF_ERROR(read_opset());
    read_metadata();
    if (!model_.has_graph()) return invalid_model("the model has no graph");
    onnx::GraphProto& gp = *model_.mutable_graph();
    AMP_RETURN_IF_ERROR(read_graph(gp));
    if (!report_.empty()) return report_.to_status();
    AMP_RETURN_IF_ERROR(sort_nodes());
    AMP_RETURN_IF_ERROR(apply_input_shapes());
    // Drops initializers nothing reads and outputs cut from old BatchNormalizations.
    g_.compact_values();
    AMP_RETURN_IF_ERROR(verify_graph(g_));
    return std::move(g_);
  }

 private:
  Status read_opset() {
    int64_t opset = -1;
    for (const auto& o : model_.opset_import())
      if (is_default_domain(o.domain())) opset = o.version();
    if (opset < 0) return invalid_model("the model imports no ai.onnx opset (opset_import)");
    if (opset < kMinOpset || opset > kMaxOpset)
      return unsupported("ai.onnx opset " + std::to_string(opset) + " (supported: " +
                         std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset) + ")");
    opset_ = static_cast<int32_t>(opset);
    return Status::ok();
  }

  void read_metadata() {
    Metadata& m = g_.metadata;
    m.producer = model_.producer_name();
    if (!model_.producer_version().empty())
      m.producer += (m.producer.empty() ? "" : " ") + model_.producer_version();
    m.source_opset = opset_;
    m.source_format = "onnx";
    for (const auto& kv : model_.metadata_props()) m.properties.emplace_back(kv.key(), kv.value());
  }

  // The steps the main graph and a body share: values, nodes and their inputs, outputs,
  // value_info, then the nodes in our canonical form.
  Status read_graph(onnx::GraphProto& gp) {
    AMP_RETURN_IF_ERROR(add_initializers(gp));
    AMP_RETURN_IF_ERROR(add_graph_inputs(gp));
    AMP_RETURN_IF_ERROR(add_nodes(gp));
    AMP_RETURN_IF_ERROR(resolve_node_inputs());
    AMP_RETURN_IF_ERROR(add_graph_outputs(gp));
    apply_value_info(gp);
    AMP_RETURN_IF_ERROR(canonicalize_nodes());
    return Status::ok();
  }

  // A subgraph (If branch, Loop/Scan body). Names it reads but does not define are the
  // enclosing graphs' values: each becomes an input of the body after its own (captures_).
  Result<Graph> run_body(onnx::GraphProto& gp) {
    AMP_RETURN_IF_ERROR(read_graph(gp));
    AMP_RETURN_IF_ERROR(sort_nodes());
    g_.compact_values();
    return std::move(g_);
  }

  // The value `name` names here: defined in this graph, or (in a body) captured from an
  // enclosing one, which makes it an input of this body.
  std::optional<ValueId> lookup(const std::string& name) {
    auto it = by_name_.find(name);
    if (it != by_name_.end()) return it->second;
    if (!parent_ || !parent_->visible(name)) return std::nullopt;
    Value v;
    v.name = name;  // typed by the node's inference (graph/ops/infer_control_flow.cc)
    names_.claim(name);
    const ValueId id = define(std::move(v), false);
    g_.inputs.push_back(id);
    captures_.push_back(name);
    return id;
  }

  // Whether `name` is defined here or in an enclosing graph (bodies read it after every
  // value of the enclosing graph is known: they are converted with their node).
  bool visible(const std::string& name) const {
    return by_name_.count(name) || (parent_ && parent_->visible(name));
  }

  ValueId define(Value v, bool from_node) {
    const std::string name = v.name;
    const ValueId id = g_.add_value(std::move(v));
    by_name_[name] = id;
    from_node_.resize(g_.values.size(), false);
    from_node_[static_cast<size_t>(id)] = from_node;
    return id;
  }

  // Unsupported things are collected; anything else ends the import.
  Status note(const Status& s) {
    if (s.code() != ErrorCode::kUnsupported) return s;
    report_.add_issue(s.message());
    return Status::ok();
  }

  Status add_initializers(onnx::GraphProto& gp) {
    for (int i = 0; i < gp.initializer_size(); ++i) {
      onnx::TensorProto& t = *gp.mutable_initializer(i);
      if (t.name().empty())
        return invalid_model("initializer " + std::to_string(i) + " has no name");
      if (!names_.claim(t.name()))
        return invalid_model("initializer '" + t.name() + "' is defined twice");
      Value v;
      v.name = t.name();
      auto data = onnx_import::decode_tensor(t, "initializer '" + t.name() + "'", src_);
      if (data.is_ok()) {
        v.dtype = data->dtype();
        v.shape = Shape::from_static(data->dims());
        v.constant = std::move(data).value();
      } else {
        AMP_RETURN_IF_ERROR(note(data.status()));
      }
      define(std::move(v), false);
    }
    return Status::ok();
  }

  Status add_graph_inputs(const onnx::GraphProto& gp) {
    for (const auto& in : gp.input()) {
      if (in.name().empty()) return invalid_model("a graph input has no name");
      // Old exporters list every initializer as an input too; those are weights.
      if (by_name_.count(in.name())) continue;
      if (!names_.claim(in.name()))
        return invalid_model("graph input '" + in.name() + "' is listed twice");
      const std::string label = "graph input '" + in.name() + "'";
      // A body's inputs may leave their type to the node (typed at inference).
      if (!in.has_type() && !parent_) return invalid_model(label + " has no type");
      Value v;
      v.name = in.name();
      if (in.has_type()) AMP_RETURN_IF_ERROR(note(read_value_info(in, label, v)));
      g_.inputs.push_back(define(std::move(v), false));
    }
    return Status::ok();
  }

  std::string node_name(const onnx::NodeProto& np, int index) {
    if (!np.name().empty() && node_names_.claim(np.name())) return np.name();
    return node_names_.fresh(np.op_type() + "_" + std::to_string(index));
  }

  std::optional<OpType> resolve_op(const onnx::NodeProto& np, const std::string& node) {
    if (!is_default_domain(np.domain())) {
      report_.add_op(np.domain() + "::" + np.op_type(), node);
      return std::nullopt;
    }
    std::optional<OpType> op = onnx_import_op(np.op_type());
    if (!op) report_.add_op(np.op_type() + " (opset " + std::to_string(opset_) + ")", node);
    return op;
  }

  std::optional<OpType> onnx_import_op(const std::string& op_type) const {
    // Upsample (opsets 7-9, removed in 10) is Resize-10's (X, scales) with asymmetric
    // coordinates and nearest rounding down; canonicalize_resize writes it that way.
    if (op_type == "Upsample")
      return opset_ >= 7 && opset_ <= 9 ? onnx_op_type(op_type) : std::nullopt;
    std::optional<OpType> op = op_from_name(op_type);
    if (!op || *op == OpType::kConstant || opset_ < op_since_version(*op)) return std::nullopt;
    return op;
  }

  Status add_constant_node(onnx::NodeProto& np, int index) {
    // Constant nodes do not reach the graph, so they take no node name.
    const std::string label =
        "Constant node '" + (np.name().empty() ? "#" + std::to_string(index) : np.name()) + "'";
    if (np.output_size() != 1 || np.output(0).empty())
      return invalid_model(label + ": needs exactly one output");
    if (np.attribute_size() != 1)
      return invalid_model(label + ": needs exactly one value attribute, has " +
                           std::to_string(np.attribute_size()));
    const std::string& out = np.output(0);
    if (!names_.claim(out))
      return invalid_model(label + ": output '" + out + "' is already defined");
    Value v;
    v.name = out;
    auto data = constant_node_value(*np.mutable_attribute(0), label, src_);
    if (data.is_ok()) {
      v.dtype = data->dtype();
      v.shape = Shape::from_static(data->dims());
      v.constant = std::move(data).value();
    } else {
      AMP_RETURN_IF_ERROR(note(data.status()));
    }
    define(std::move(v), false);
    return Status::ok();
  }

  // Converts a node's GRAPH attributes into bodies. Their captures are unified: every body
  // takes the union, in order of first use, as its trailing inputs (graph/ops/control_flow.h).
  Status convert_bodies(onnx::NodeProto& np, PendingNode& p) {
    if (!has_trait(p.node.op, kControlFlow)) return Status::ok();  // GRAPH elsewhere: unsupported
    std::vector<std::pair<std::string, Graph>> bodies;
    std::vector<std::vector<std::string>> body_captures;
    for (auto& a : *np.mutable_attribute()) {
      if (a.type() != onnx::AttributeProto_AttributeType_GRAPH && !a.has_g()) continue;
      const std::string label = node_label(p.node, np) + " attribute '" + a.name() + "'";
      if (depth_ + 1 > kMaxSubgraphDepth)
        return invalid_model(label + ": subgraphs nest deeper than " +
                             std::to_string(kMaxSubgraphDepth) + " levels");
      Importer child(BodyOf{*this});
      // Captures resolve against this graph's values, all known once its nodes are read;
      // bodies are converted with their node, so by_name_ may still grow: visible() asks.
      Result<Graph> body = child.run_body(*a.mutable_g());
      if (!body.is_ok()) return body.status().with_context(label);
      for (const std::string& c : child.captures_)
        if (std::find(p.captures.begin(), p.captures.end(), c) == p.captures.end())
          p.captures.push_back(c);
      body_captures.push_back(child.captures_);
      bodies.emplace_back(a.name(), std::move(body).value());
    }
    for (size_t k = 0; k < bodies.size(); ++k) {
      Graph& g = bodies[k].second;
      const std::vector<std::string>& own = body_captures[k];
      // Own inputs first, then the union in its order (an unused capture is an unused input).
      const auto own_begin = g.inputs.end() - static_cast<std::ptrdiff_t>(own.size());
      std::vector<ValueId> inputs(g.inputs.begin(), own_begin);
      // By name, once per body: a body capturing thousands of outer values stays linear.
      std::unordered_map<std::string, ValueId> own_inputs;
      for (auto it = own_begin; it != g.inputs.end(); ++it) own_inputs[g.value(*it).name] = *it;
      NameTable names = NameTable::values_of(g);
      for (const std::string& c : p.captures) {
        if (auto found = own_inputs.find(c); found != own_inputs.end()) {
          inputs.push_back(found->second);
          continue;
        }
        Value v;
        v.name = names.fresh(c);
        inputs.push_back(g.add_value(std::move(v)));
      }
      g.inputs = std::move(inputs);
      p.node.attrs.set(bodies[k].first, SubgraphAttr{std::make_shared<const Graph>(std::move(g))});
    }
    if (!bodies.empty())
      p.node.attrs.set("captured_inputs", static_cast<int64_t>(p.captures.size()));
    return Status::ok();
  }

  Status convert_attributes(onnx::NodeProto& np, PendingNode& p) {
    const std::string label = node_label(p.node, np);
    AMP_RETURN_IF_ERROR(convert_bodies(np, p));
    for (auto& a : *np.mutable_attribute()) {
      const bool body = a.type() == onnx::AttributeProto_AttributeType_GRAPH || a.has_g();
      if (body && has_trait(p.node.op, kControlFlow)) continue;
      Status s = onnx_import::convert_attribute(a, label, src_, p.node.attrs);
      if (s.code() == ErrorCode::kUnsupported) p.supported = false;
      AMP_RETURN_IF_ERROR(note(s));
    }
    return Status::ok();
  }

  Status add_node_outputs(const onnx::NodeProto& np, PendingNode& p) {
    for (const std::string& out : np.output()) {
      if (out.empty()) {
        p.node.outputs.push_back(kNoValue);
        continue;
      }
      if (!names_.claim(out))
        return invalid_model(node_label(p.node, np) + ": output '" + out +
                             "' is already defined (each value must have one producer)");
      Value v;
      v.name = out;
      p.node.outputs.push_back(define(std::move(v), true));
    }
    return Status::ok();
  }

  Status add_nodes(onnx::GraphProto& gp) {
    for (int i = 0; i < gp.node_size(); ++i) {
      onnx::NodeProto& np = *gp.mutable_node(i);
      if (np.op_type().empty())
        return invalid_model("node " + std::to_string(i) + " '" + np.name() + "' has no op_type");
      if (is_default_domain(np.domain()) && np.op_type() == "Constant") {
        AMP_RETURN_IF_ERROR(add_constant_node(np, i));
        continue;
      }
      PendingNode p;
      p.proto = &np;
      p.node.name = node_name(np, i);
      p.node.op_version = opset_;
      std::optional<OpType> op = resolve_op(np, p.node.name);
      if (op) {
        p.node.op = *op;
        AMP_RETURN_IF_ERROR(convert_attributes(np, p));
      } else {
        p.supported = false;  // its attributes (subgraphs...) are not ours to read
      }
      AMP_RETURN_IF_ERROR(add_node_outputs(np, p));
      pending_.push_back(std::move(p));
    }
    return Status::ok();
  }

  // After all nodes are read, so that a model listed out of order still resolves.
  Status resolve_node_inputs() {
    for (PendingNode& p : pending_) {
      std::vector<std::string> names(p.proto->input().begin(), p.proto->input().end());
      names.insert(names.end(), p.captures.begin(), p.captures.end());
      for (const std::string& in : names) {
        if (in.empty()) {
          p.node.inputs.push_back(kNoValue);
          continue;
        }
        std::optional<ValueId> id = lookup(in);
        if (!id)
          return invalid_model(node_label(p.node, *p.proto) + ": input '" + in +
                               "' is not produced by any node, initializer or graph input");
        p.node.inputs.push_back(*id);
      }
    }
    return Status::ok();
  }

  Status add_graph_outputs(const onnx::GraphProto& gp) {
    for (const auto& out : gp.output()) {
      std::optional<ValueId> found = lookup(out.name());
      if (!found)
        return invalid_model("graph output '" + out.name() +
                             "' is not produced by any node, initializer or graph input");
      const ValueId id = *found;
      if (from_node_[static_cast<size_t>(id)] && out.has_type())
        AMP_RETURN_IF_ERROR(
            note(read_value_info(out, "graph output '" + out.name() + "'", g_.value(id))));
      g_.outputs.push_back(id);
    }
    return Status::ok();
  }

  // value_info: optional dtype/shape hints for intermediates; unusable ones are ignored.
  void apply_value_info(const onnx::GraphProto& gp) {
    for (const auto& vi : gp.value_info()) {
      auto it = by_name_.find(vi.name());
      if (it == by_name_.end() || !from_node_[static_cast<size_t>(it->second)]) continue;
      Value& v = g_.value(it->second);
      if (v.dtype != DType::kUndefined || !vi.has_type()) continue;
      Value hint;
      if (read_value_info(vi, "value_info", hint).is_ok()) {
        v.dtype = hint.dtype;
        v.shape = std::move(hint.shape);
      }
    }
  }

  Status canonicalize_nodes() {
    std::vector<bool> used(g_.values.size(), false);
    for (const PendingNode& p : pending_)
      for (ValueId v : p.node.inputs)
        if (v != kNoValue) used[static_cast<size_t>(v)] = true;
    for (ValueId v : g_.outputs) used[static_cast<size_t>(v)] = true;
    CanonContext ctx{g_, names_, used};
    for (PendingNode& p : pending_) {
      if (!p.supported) continue;
      AMP_RETURN_IF_ERROR(note(onnx_import::canonicalize_node(p.node, ctx)));
    }
    return Status::ok();
  }

  // Kahn's algorithm taking the smallest original index first, so a model that is
  // already sorted (as ONNX requires) keeps its order exactly.
  Status sort_nodes() {
    const size_t n = pending_.size();
    std::vector<int64_t> producer(g_.values.size(), -1);
    for (size_t i = 0; i < n; ++i)
      for (ValueId v : pending_[i].node.outputs)
        if (v != kNoValue) producer[static_cast<size_t>(v)] = static_cast<int64_t>(i);
    std::vector<int64_t> indegree(n, 0);
    std::vector<std::vector<size_t>> consumers(n);
    for (size_t i = 0; i < n; ++i) {
      for (ValueId v : pending_[i].node.inputs) {
        if (v == kNoValue || producer[static_cast<size_t>(v)] < 0) continue;
        consumers[static_cast<size_t>(producer[static_cast<size_t>(v)])].push_back(i);
        ++indegree[i];
      }
    }
    std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> ready;
    for (size_t i = 0; i < n; ++i)
      if (indegree[i] == 0) ready.push(i);
    std::vector<size_t> order;
    order.reserve(n);
    while (!ready.empty()) {
      const size_t i = ready.top();
      ready.pop();
      order.push_back(i);
      for (size_t c : consumers[i])
        if (--indegree[c] == 0) ready.push(c);
    }
    if (order.size() != n) {
      for (size_t i = 0; i < n; ++i)
        if (indegree[i] > 0)
          return invalid_model("the graph has a cycle through " +
                               node_label(pending_[i].node, *pending_[i].proto));
    }
    g_.nodes.reserve(n);
    for (size_t i : order) g_.nodes.push_back(std::move(pending_[i].node));
    pending_.clear();
    return Status::ok();
  }

  Status fix_input_shape(Value& v, const std::vector<int64_t>& dims,
                         std::map<std::string, int64_t>& symbols) {
    const std::string label = "input shape for '" + v.name + "'";
    for (int64_t d : dims)
      if (d < 0) return invalid_argument(label + ": negative dim " + std::to_string(d));
    if (v.shape && v.shape->rank() != dims.size())
      return invalid_argument(label + ": the model's input has rank " +
                              std::to_string(v.shape->rank()) + " " + v.shape->to_string() +
                              ", got " + std::to_string(dims.size()) + " dims");
    for (size_t i = 0; v.shape && i < dims.size(); ++i) {
      const Dim& old = v.shape->dims[i];
      if (old.is_static() && old.value != dims[i])
        return invalid_argument(label + ": dim " + std::to_string(i) + " is " +
                                std::to_string(old.value) + " in the model, got " +
                                std::to_string(dims[i]));
      if (old.is_static() || old.symbol.empty()) continue;
      auto [it, inserted] = symbols.emplace(old.symbol, dims[i]);
      if (!inserted && it->second != dims[i])
        return invalid_argument(label + ": symbol '" + old.symbol + "' is given both " +
                                std::to_string(it->second) + " and " + std::to_string(dims[i]));
    }
    v.shape = Shape::from_static(dims);
    return Status::ok();
  }

  std::string input_names() const {
    std::string s;
    for (ValueId id : g_.inputs) s += (s.empty() ? "" : ", ") + g_.value(id).name;
    return s.empty() ? "none" : s;
  }

  Status apply_input_shapes() {
    std::map<std::string, int64_t> symbols;
    for (const auto& [name, dims] : opts_.input_shapes) {
      std::optional<ValueId> id;
      for (ValueId in : g_.inputs)
        if (g_.value(in).name == name) id = in;
      if (!id)
        return invalid_argument("input shape given for '" + name +
                                "', which is not a graph input (inputs: " + input_names() + ")");
      AMP_RETURN_IF_ERROR(fix_input_shape(g_.value(*id), dims, symbols));
    }
    if (symbols.empty()) return Status::ok();
    for (Value& v : g_.values) {
      if (!v.shape) continue;
      for (Dim& d : v.shape->dims) {
        if (d.is_static() || d.symbol.empty()) continue;
        auto it = symbols.find(d.symbol);
        if (it != symbols.end()) d = Dim(it->second);
      }
    }
    return Status::ok();
  }

  onnx::ModelProto& model_;
  const ImportOptions& opts_;
  TensorSource src_;
  int32_t opset_ = 0;
  Importer* parent_ = nullptr;         // the enclosing graph's importer, for bodies
  int depth_ = 0;                      // subgraph nesting: 0 for the model's graph
  std::vector<std::string> captures_;  // outer names this body reads, in order of first use
  Graph g_;
  NameTable names_;       // value names
  NameTable node_names_;  // node names
  std::unordered_map<std::string, ValueId> by_name_;
  std::vector<bool> from_node_;  // per ValueId: produced by a node (not input/constant)
  std::vector<PendingNode> pending_;
  UnsupportedReport own_report_;  // the model's; bodies add to their root's
  UnsupportedReport& report_;
};

Result<Graph> import_model(onnx::ModelProto& model, const ImportOptions& opts,
                           const std::string& default_external_dir) {
  TensorSource src{opts.external_data_dir.empty() ? default_external_dir : opts.external_data_dir};
  return Importer(model, opts, std::move(src)).run();
}

}  // namespace

Result<Graph> import_onnx_bytes(const void* data, size_t size, const ImportOptions& opts) {
  if (size > static_cast<size_t>(INT_MAX))
    return invalid_model(
        "an ONNX protobuf cannot exceed 2 GB; store the weights as external "
        "data");
  google::protobuf::io::ArrayInputStream stream(data, static_cast<int>(size));
  AMP_ASSIGN_OR_RETURN(std::unique_ptr<onnx::ModelProto> model, parse_model(&stream));
  return import_model(*model, opts, "");
}

Result<Graph> import_onnx_file(const std::string& path, const ImportOptions& opts) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return not_found("cannot open ONNX model '" + path + "'");
  const uintmax_t size = fs::file_size(path, ec);
  if (ec) return not_found("cannot open ONNX model '" + path + "'");
  if (size > static_cast<uintmax_t>(INT_MAX))
    return invalid_model("'" + path +
                         "': an ONNX protobuf cannot exceed 2 GB; store the "
                         "weights as external data");
  std::ifstream file(path, std::ios::binary);
  if (!file) return not_found("cannot open ONNX model '" + path + "'");
  // Parsed straight from the stream: no second in-memory copy of a large file.
  google::protobuf::io::IstreamInputStream stream(&file);
  auto model = parse_model(&stream);
  if (!model.is_ok()) return model.status().with_context("'" + path + "'");
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  auto g = import_model(**model, opts, dir.string());
  if (!g.is_ok()) return g.status().with_context("'" + path + "'");
  return g;
}

std::optional<OpType> onnx_op_type(const std::string& op_type) {
  if (op_type == "Upsample") return OpType::kResize;
  return op_from_name(op_type);
}

Result<std::pair<std::string, std::vector<int64_t>>> parse_shape_arg(const std::string& arg) {
  const std::string usage = "expected NAME=DIMS such as data=1x3x224x224, got '" + arg + "'";
  const size_t eq = arg.rfind('=');
  if (eq == std::string::npos || eq == 0) return invalid_argument(usage);
  std::pair<std::string, std::vector<int64_t>> out{arg.substr(0, eq), {}};
  const std::string dims = arg.substr(eq + 1);
  size_t pos = 0;
  while (pos < dims.size()) {
    size_t end = dims.find_first_of("x,", pos);
    if (end == std::string::npos) end = dims.size();
    int64_t d = -1;
    auto [p, ec] = std::from_chars(dims.data() + pos, dims.data() + end, d);
    if (ec != std::errc() || p != dims.data() + end || end == pos || d < 0)
      return invalid_argument(usage + ": '" + dims.substr(pos, end - pos) +
                              "' is not a non-negative integer");
    out.second.push_back(d);
    pos = end + 1;
    if (end + 1 == dims.size()) return invalid_argument(usage + ": trailing separator");
  }
  return out;
}

}  // namespace amp::graph
