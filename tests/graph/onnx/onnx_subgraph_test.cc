// ONNX import of If/Loop/Scan bodies: outer-scope reads become explicit captured inputs (the
// union over both If branches, through every nesting level), unsupported ops inside bodies
// are listed with the others, and a model nested past protobuf's and our limits is a clear
// error.
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

#include "graph/onnx/onnx_importer.h"
#include "graph/ops/control_flow.h"
#include "graph/ops/shape_inference.h"

namespace amp::graph {
namespace {

void typed(onnx::ValueInfoProto* vi, const std::string& name, int elem, std::vector<int64_t> dims) {
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem);
  auto* shape = tt->mutable_shape();
  for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
}

onnx::NodeProto* add_node(onnx::GraphProto* g, const std::string& op,
                          const std::vector<std::string>& ins,
                          const std::vector<std::string>& outs) {
  auto* n = g->add_node();
  n->set_op_type(op);
  for (const auto& i : ins) n->add_input(i);
  for (const auto& o : outs) n->add_output(o);
  return n;
}

onnx::GraphProto* graph_attr(onnx::NodeProto* n, const std::string& name) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto_AttributeType_GRAPH);
  return a->mutable_g();
}

onnx::ModelProto model_with_opset(int64_t opset) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* o = m.add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  return m;
}

Result<Graph> import(const onnx::ModelProto& m) {
  std::string bytes;
  m.SerializeToString(&bytes);
  return import_onnx_bytes(bytes.data(), bytes.size());
}

// If(flag): then = a + b (reads a, b from outside), else = Loop(m) { acc += c } (reads c, and
// m from outside inside its own Loop two levels down).
onnx::ModelProto captures_model(const std::string& body_op = "Add") {
  onnx::ModelProto m = model_with_opset(17);
  auto* g = m.mutable_graph();
  typed(g->add_input(), "flag", onnx::TensorProto_DataType_BOOL, {});
  for (const char* v : {"a", "b", "c"})
    typed(g->add_input(), v, onnx::TensorProto_DataType_FLOAT, {2});
  typed(g->add_input(), "m", onnx::TensorProto_DataType_INT64, {});
  auto* iff = add_node(g, "If", {"flag"}, {"y"});
  iff->set_name("branch");
  auto* then_g = graph_attr(iff, "then_branch");
  add_node(then_g, body_op, {"a", "b"}, {"t"});
  typed(then_g->add_output(), "t", onnx::TensorProto_DataType_FLOAT, {2});
  auto* else_g = graph_attr(iff, "else_branch");
  add_node(else_g, "Loop", {"m", "", "c"}, {"acc_out"});
  auto* loop = else_g->mutable_node(0);
  auto* body = graph_attr(loop, "body");
  typed(body->add_input(), "i", onnx::TensorProto_DataType_INT64, {});
  typed(body->add_input(), "cond_in", onnx::TensorProto_DataType_BOOL, {});
  typed(body->add_input(), "acc", onnx::TensorProto_DataType_FLOAT, {2});
  add_node(body, "Identity", {"cond_in"}, {"cond_out"});
  add_node(body, "Add", {"acc", "c"}, {"acc_next"});
  typed(body->add_output(), "cond_out", onnx::TensorProto_DataType_BOOL, {});
  typed(body->add_output(), "acc_next", onnx::TensorProto_DataType_FLOAT, {2});
  typed(else_g->add_output(), "acc_out", onnx::TensorProto_DataType_FLOAT, {2});
  add_node(g, "Relu", {"y"}, {"z"});
  typed(g->add_output(), "z", onnx::TensorProto_DataType_FLOAT, {2});
  return m;
}

std::vector<std::string> input_names(const Graph& g, const std::vector<ValueId>& ids) {
  std::vector<std::string> names;
  for (ValueId v : ids) names.push_back(v == kNoValue ? "" : g.value(v).name);
  return names;
}

TEST(OnnxSubgraphs, OuterScopeReadsBecomeCapturedInputsAtEveryLevel) {
  auto g = import(captures_model());
  ASSERT_TRUE(g.is_ok()) << g.status().to_string();
  ASSERT_TRUE(infer_shapes(*g).is_ok());
  const Node& iff = g->nodes[0];
  ASSERT_EQ(iff.op, OpType::kIf);
  // The union of both branches' reads, in order of first use.
  EXPECT_EQ(input_names(*g, iff.inputs), (std::vector<std::string>{"flag", "a", "b", "m", "c"}));
  auto layout = control_flow_layout(iff);
  ASSERT_TRUE(layout.is_ok()) << layout.status().to_string();
  EXPECT_EQ(layout->captures, 4u);
  const Graph& else_g = *iff.attrs.get_graph("else_branch").value();
  EXPECT_EQ(input_names(else_g, else_g.inputs), (std::vector<std::string>{"a", "b", "m", "c"}));
  // The Loop inside the else branch captures c (read by its body) from the branch.
  const Node& loop = else_g.nodes[0];
  EXPECT_EQ(input_names(else_g, loop.inputs), (std::vector<std::string>{"m", "", "c", "c"}));
  const Graph& body = *loop.attrs.get_graph("body").value();
  EXPECT_EQ(input_names(body, body.inputs), (std::vector<std::string>{"i", "cond_in", "acc", "c"}));
  // Inference typed the captured inputs from the outside.
  EXPECT_EQ(body.value(body.inputs[3]).dtype, DType::kF32);
  EXPECT_EQ(g->value(g->outputs[0]).shape->static_dims(), (std::vector<int64_t>{2}));
}

TEST(OnnxSubgraphs, UnsupportedOpsInBodiesAreListedWithTheOthers) {
  onnx::ModelProto m = captures_model("TfIdfVectorizer");
  add_node(m.mutable_graph(), "Det", {"a"}, {"d"});
  auto g = import(m);
  ASSERT_FALSE(g.is_ok());
  EXPECT_EQ(g.status().code(), ErrorCode::kUnsupported);
  EXPECT_NE(g.status().message().find("TfIdfVectorizer"), std::string::npos)
      << g.status().message();
  EXPECT_NE(g.status().message().find("Det"), std::string::npos) << g.status().message();
}

// ONNX lets a body's outputs (and value_info) name a value with an empty type; spox, which
// wrote Silero VAD, does so for every If branch. Such a value is a tensor left to inference,
// while one typed as a sequence is still unsupported.
TEST(OnnxSubgraphs, BranchOutputsWithoutATypeAreInferred) {
  onnx::ModelProto m = model_with_opset(16);
  auto* g = m.mutable_graph();
  typed(g->add_input(), "flag", onnx::TensorProto_DataType_BOOL, {});
  typed(g->add_input(), "a", onnx::TensorProto_DataType_FLOAT, {2, 3});
  auto* iff = add_node(g, "If", {"flag"}, {"y"});
  auto* then_g = graph_attr(iff, "then_branch");
  add_node(then_g, "Relu", {"a"}, {"t"});
  auto* t_out = then_g->add_output();
  t_out->set_name("t");
  t_out->mutable_type();  // present but empty
  auto* else_g = graph_attr(iff, "else_branch");
  add_node(else_g, "Neg", {"a"}, {"e"});
  auto* e_out = else_g->add_output();
  e_out->set_name("e");
  e_out->mutable_type();
  g->add_value_info()->set_name("y");
  typed(g->add_output(), "y", onnx::TensorProto_DataType_FLOAT, {2, 3});
  auto r = import(m);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  ASSERT_TRUE(infer_shapes(*r).is_ok());
  const Graph& then_branch = *r->nodes[0].attrs.get_graph("then_branch").value();
  const Value& t = then_branch.value(then_branch.outputs[0]);
  EXPECT_EQ(t.dtype, DType::kF32);
  EXPECT_EQ(t.shape->static_dims(), (std::vector<int64_t>{2, 3}));

  e_out->mutable_type()->mutable_sequence_type();
  auto seq = import(m);
  ASSERT_FALSE(seq.is_ok());
  EXPECT_EQ(seq.status().code(), ErrorCode::kUnsupported);
  EXPECT_NE(seq.status().message().find("is not a tensor"), std::string::npos)
      << seq.status().message();
}

TEST(OnnxSubgraphs, AModelNestingAThousandLevelsIsAClearError) {
  onnx::ModelProto m = model_with_opset(17);
  auto* g = m.mutable_graph();
  typed(g->add_input(), "flag", onnx::TensorProto_DataType_BOOL, {});
  onnx::GraphProto* level = g;
  for (int i = 0; i < 1000; ++i) {
    auto* iff = add_node(level, "If", {"flag"}, {"y" + std::to_string(i)});
    graph_attr(iff, "else_branch");
    level = graph_attr(iff, "then_branch");
  }
  auto r = import(m);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidModel);
  EXPECT_NE(r.status().message().find("nested"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace amp::graph
