#include "graph/ops/shape_inference.h"

#include <string>

#include "graph/ir/limits.h"
#include "graph/ir/node_label.h"
#include "graph/ops/control_flow.h"
#include "graph/ops/op_schema.h"
#include "graph/ops/sym_values.h"

namespace amp::graph {

Status infer_node(Graph& g, NodeId id, SymValues sym) {
  Node& n = g.nodes[static_cast<size_t>(id)];
  const OpSchema& schema = op_schema(n.op);
  const int nin = static_cast<int>(n.inputs.size());
  const int nout = static_cast<int>(n.outputs.size());
  auto expected = [](int min, int max) {
    return std::to_string(min) + (max == kAnyCount ? " or more" : " to " + std::to_string(max));
  };
  if (nin < schema.min_inputs || nin > schema.max_inputs)
    return invalid_model(node_label(n) + ": has " + std::to_string(nin) + " inputs, expected " +
                         expected(schema.min_inputs, schema.max_inputs));
  if (nout < schema.min_outputs || nout > schema.max_outputs)
    return invalid_model(node_label(n) + ": has " + std::to_string(nout) + " outputs, expected " +
                         expected(schema.min_outputs, schema.max_outputs));
  if (schema.infer == nullptr) return internal_error(node_label(n) + ": no shape inference rule");

  std::vector<const Value*> inputs;
  inputs.reserve(n.inputs.size());
  for (ValueId v : n.inputs) {
    if (v == kNoValue) {
      inputs.push_back(nullptr);
      continue;
    }
    // A constant declared without a shape (a GraphBuilder constant, an .amp value table
    // that omits it) has its data's: the rules read shapes, and one of unknown shape would
    // leave its readers unresolved after binding.
    Value& in = g.value(v);
    if (in.is_constant() && !in.shape) in.shape = Shape::from_static(in.constant->dims());
    inputs.push_back(&in);
  }
  std::vector<OutputInfo> outs(n.outputs.size());
  OpAttrs resolved;
  // Labels are built only on failure: inference runs for every node at every plan build.
  if (Status s = schema.infer(n, inputs, outs, resolved); !s.is_ok())
    return s.with_context(node_label(n));

  for (size_t k = 0; k < n.outputs.size(); ++k) {
    if (n.outputs[k] == kNoValue) continue;
    Value& v = g.value(n.outputs[k]);
    if (outs[k].dtype == DType::kUndefined)
      return internal_error(node_label(n) + ": inference left output " + std::to_string(k) +
                            " without a dtype");
    // A shape the file declares for a node's output (ONNX value_info or graph outputs) is a
    // hint: the rule's wins. Exporters write wrong ones (ddddocr's OCR model declares its
    // [T,1,C] output [1,seqlen]), and ONNX Runtime merges them leniently too.
    v.dtype = outs[k].dtype;
    if (outs[k].shape) v.shape = outs[k].shape;
    // An inferred shape obeys the caps a recorded one does (Expand, Tile, Range and
    // ConstantOfShape can make huge outputs from small constants).
    if (Status s = check_value_size(v); !s.is_ok()) return s.with_context(node_label(n));
  }
  n.resolved = std::move(resolved);
  if (sym == SymValues::kDerive) {
    std::vector<Value*> out_values;
    for (ValueId v : n.outputs) out_values.push_back(v == kNoValue ? nullptr : &g.value(v));
    propagate_sym_values(n, inputs, out_values);
  } else {
    for (ValueId v : n.outputs)
      if (v != kNoValue) g.value(v).sym_value.reset();
  }
  // Control flow: the rule typed and inferred copies of the bodies; they replace the node's.
  if (const auto* cf = std::get_if<ControlFlowAttrs>(&n.resolved)) {
    const std::vector<std::string> names = body_attr_names(n.op);
    for (size_t k = 0; k < names.size() && k < cf->bodies.size(); ++k)
      n.attrs.set(names[k], SubgraphAttr{cf->bodies[k]});
  }
  return Status::ok();
}

Status infer_shapes(Graph& g) {
  for (size_t i = 0; i < g.nodes.size(); ++i)
    AMP_RETURN_IF_ERROR(infer_node(g, static_cast<NodeId>(i)));
  return Status::ok();
}

}  // namespace amp::graph
