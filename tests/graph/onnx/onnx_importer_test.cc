// ONNX importer: canonical forms across opsets, constants, tensor decoding, external
// data, unsupported-feature reporting, shapes. Models are built in C++ with the onnx
// protobuf API, so each test states exactly the ONNX it feeds in.
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "graph/ir/verifier.h"
#include "graph/onnx/onnx_importer.h"
#include "graph/ops/shape_inference.h"
#include "tests/test_util/scratch_dir.h"
#include "tests/test_util/shared_data.h"

namespace amp::graph {
namespace {

namespace fs = std::filesystem;
using DimSpec = std::variant<int64_t, std::string>;

// A small ModelProto builder: one ai.onnx opset, tensors named by the caller.
class ModelMaker {
 public:
  explicit ModelMaker(int64_t opset) {
    m_.set_ir_version(7);
    m_.set_producer_name("unit-test");
    m_.set_producer_version("1.0");
    auto* o = m_.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
  }
  onnx::GraphProto* g() { return m_.mutable_graph(); }
  onnx::ModelProto& model() { return m_; }

  static void set_type(onnx::ValueInfoProto* vi, int elem, const std::vector<DimSpec>& dims) {
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem);
    auto* shape = tt->mutable_shape();
    for (const DimSpec& d : dims) {
      auto* dim = shape->add_dim();
      if (std::holds_alternative<int64_t>(d))
        dim->set_dim_value(std::get<int64_t>(d));
      else if (!std::get<std::string>(d).empty())
        dim->set_dim_param(std::get<std::string>(d));
    }
  }
  void input(const std::string& name, const std::vector<DimSpec>& dims,
             int elem = onnx::TensorProto_DataType_FLOAT) {
    auto* vi = g()->add_input();
    vi->set_name(name);
    set_type(vi, elem, dims);
  }
  void output(const std::string& name) { g()->add_output()->set_name(name); }
  void output(const std::string& name, const std::vector<DimSpec>& dims,
              int elem = onnx::TensorProto_DataType_FLOAT) {
    auto* vi = g()->add_output();
    vi->set_name(name);
    set_type(vi, elem, dims);
  }
  onnx::NodeProto* node(const std::string& op, const std::vector<std::string>& ins,
                        const std::vector<std::string>& outs, const std::string& name = "") {
    auto* n = g()->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const auto& i : ins) n->add_input(i);
    for (const auto& o : outs) n->add_output(o);
    return n;
  }
  onnx::TensorProto* init_f32(const std::string& name, const std::vector<int64_t>& dims,
                              const std::vector<float>& values) {
    auto* t = g()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto_DataType_FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    for (float v : values) t->add_float_data(v);
    return t;
  }
  onnx::TensorProto* init_i64(const std::string& name, const std::vector<int64_t>& values) {
    auto* t = g()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto_DataType_INT64);
    t->add_dims(static_cast<int64_t>(values.size()));
    for (int64_t v : values) t->add_int64_data(v);
    return t;
  }
  std::string bytes() const { return m_.SerializeAsString(); }
  Result<Graph> import(const ImportOptions& opts = {}) const {
    const std::string b = bytes();
    return import_onnx_bytes(b.data(), b.size(), opts);
  }

 private:
  onnx::ModelProto m_;
};

void attr_ints(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto_AttributeType_INTS);
  for (int64_t x : v) a->add_ints(x);
}
void attr_int(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto_AttributeType_INT);
  a->set_i(v);
}
void attr_float(onnx::NodeProto* n, const std::string& name, float v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto_AttributeType_FLOAT);
  a->set_f(v);
}
void attr_string(onnx::NodeProto* n, const std::string& name, const std::string& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto_AttributeType_STRING);
  a->set_s(v);
}

const Node& only_node(const Graph& g) {
  EXPECT_EQ(g.nodes.size(), 1u);
  return g.nodes.at(0);
}

std::vector<int64_t> const_i64(const Graph& g, ValueId v) {
  EXPECT_NE(v, kNoValue);
  EXPECT_TRUE(g.value(v).is_constant()) << g.value(v).name;
  auto r = g.value(v).constant->to_i64_vector();
  EXPECT_TRUE(r.is_ok());
  return r.is_ok() ? *r : std::vector<int64_t>{};
}

float const_f32(const Graph& g, ValueId v) {
  EXPECT_NE(v, kNoValue);
  const Value& val = g.value(v);
  EXPECT_TRUE(val.is_constant());
  EXPECT_EQ(val.dtype, DType::kF32);
  return val.is_constant() ? val.constant->data<float>()[0] : 0.0f;
}

Graph import_ok(const ModelMaker& mm, const ImportOptions& opts = {}) {
  auto r = mm.import(opts);
  EXPECT_TRUE(r.is_ok()) << r.status().to_string();
  if (!r.is_ok()) return Graph();
  EXPECT_TRUE(verify_graph(*r).is_ok()) << verify_graph(*r).to_string();
  return std::move(r).value();
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// ---- canonical forms --------------------------------------------------------------

TEST(OnnxImporter, ReduceMeanAxesAttributeBecomesInputBeforeOpset18) {
  ModelMaker mm(13);
  mm.input("x", {2, 3, 4});
  attr_ints(mm.node("ReduceMean", {"x"}, {"y"}, "rm"), "axes", {1, -1});
  mm.output("y");
  Graph g = import_ok(mm);
  const Node& n = only_node(g);
  EXPECT_EQ(n.op, OpType::kReduceMean);
  EXPECT_EQ(n.op_version, 13);
  ASSERT_EQ(n.inputs.size(), 2u);
  EXPECT_EQ(const_i64(g, n.inputs[1]), (std::vector<int64_t>{1, -1}));
  EXPECT_EQ(g.value(n.inputs[1]).dtype, DType::kI64);
  EXPECT_FALSE(n.attrs.has("axes"));
}

TEST(OnnxImporter, ReduceMeanWithoutAxesKeepsOneInput) {
  ModelMaker mm(13);
  mm.input("x", {2, 3});
  attr_int(mm.node("ReduceMean", {"x"}, {"y"}), "keepdims", 0);
  mm.output("y");
  Graph g = import_ok(mm);
  EXPECT_EQ(only_node(g).inputs.size(), 1u);
  EXPECT_TRUE(only_node(g).attrs.has("keepdims"));
}

TEST(OnnxImporter, ReduceMaxOpset18AxesInputUntouched) {
  ModelMaker mm(18);
  mm.input("x", {2, 3});
  mm.init_i64("axes", {0});
  mm.node("ReduceMax", {"x", "axes"}, {"y"});
  mm.output("y");
  Graph g = import_ok(mm);
  EXPECT_EQ(const_i64(g, only_node(g).inputs[1]), (std::vector<int64_t>{0}));
  EXPECT_EQ(g.value(only_node(g).inputs[1]).name, "axes");
}

TEST(OnnxImporter, ReduceSumAxesAttributeBecomesInputBeforeOpset13) {
  ModelMaker mm(11);
  mm.input("x", {2, 3});
  attr_ints(mm.node("ReduceSum", {"x"}, {"y"}), "axes", {0});
  mm.output("y");
  Graph g = import_ok(mm);
  EXPECT_EQ(const_i64(g, only_node(g).inputs.at(1)), (std::vector<int64_t>{0}));
}

TEST(OnnxImporter, ClipMinMaxAttributesBecomeInputsBeforeOpset11) {
  ModelMaker mm(10);
  mm.input("x", {4});
  auto* n = mm.node("Clip", {"x"}, {"y"});
  attr_float(n, "min", -1.5f);
  attr_float(n, "max", 6.0f);
  mm.output("y");
  Graph g = import_ok(mm);
  const Node& c = only_node(g);
  ASSERT_EQ(c.inputs.size(), 3u);
  EXPECT_EQ(const_f32(g, c.inputs[1]), -1.5f);
  EXPECT_EQ(const_f32(g, c.inputs[2]), 6.0f);
  EXPECT_TRUE(g.value(c.inputs[1]).shape->dims.empty());  // scalar
  EXPECT_TRUE(c.attrs.empty());
}

TEST(OnnxImporter, ClipOnlyMaxLeavesMinAbsentAndUsesInputDtype) {
  ModelMaker mm(7);
  mm.input("x", {4}, onnx::TensorProto_DataType_FLOAT16);
  attr_float(mm.node("Clip", {"x"}, {"y"}), "max", 6.0f);
  mm.output("y");
  Graph g = import_ok(mm);
  const Node& c = only_node(g);
  ASSERT_EQ(c.inputs.size(), 3u);
  EXPECT_EQ(c.inputs[1], kNoValue);
  EXPECT_EQ(g.value(c.inputs[2]).dtype, DType::kF16);
  EXPECT_EQ(g.value(c.inputs[2]).constant->data<uint16_t>()[0], 0x4600);  // 6.0 in fp16
}

TEST(OnnxImporter, SqueezeAndUnsqueezeAxesBecomeInputsBeforeOpset13) {
  ModelMaker mm(11);
  mm.input("x", {1, 3, 1});
  attr_ints(mm.node("Squeeze", {"x"}, {"s"}), "axes", {0, 2});
  attr_ints(mm.node("Unsqueeze", {"s"}, {"u"}), "axes", {1});
  mm.output("u");
  Graph g = import_ok(mm);
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(const_i64(g, g.nodes[0].inputs.at(1)), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(const_i64(g, g.nodes[1].inputs.at(1)), (std::vector<int64_t>{1}));
  EXPECT_FALSE(g.nodes[0].attrs.has("axes"));
}

TEST(OnnxImporter, UnsqueezeWithoutAxesBeforeOpset13IsInvalid) {
  ModelMaker mm(11);
  mm.input("x", {3});
  mm.node("Unsqueeze", {"x"}, {"u"});
  mm.output("u");
  auto r = mm.import();
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidModel);
  EXPECT_TRUE(contains(r.status().message(), "axes")) << r.status().message();
}

TEST(OnnxImporter, SliceAttributesBecomeInputsBeforeOpset10) {
  ModelMaker mm(9);
  mm.input("x", {4, 5});
  auto* n = mm.node("Slice", {"x"}, {"y"}, "sl");
  attr_ints(n, "starts", {1, 0});
  attr_ints(n, "ends", {3, 100});
  attr_ints(n, "axes", {0, 1});
  mm.output("y");
  Graph g = import_ok(mm);
  const Node& s = only_node(g);
  ASSERT_EQ(s.inputs.size(), 4u);
  EXPECT_EQ(const_i64(g, s.inputs[1]), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(const_i64(g, s.inputs[2]), (std::vector<int64_t>{3, 100}));
  EXPECT_EQ(const_i64(g, s.inputs[3]), (std::vector<int64_t>{0, 1}));
  EXPECT_TRUE(s.attrs.empty());
}

TEST(OnnxImporter, SplitAttributeBecomesInputBeforeOpset13) {
  ModelMaker mm(11);
  mm.input("x", {6});
  auto* n = mm.node("Split", {"x"}, {"a", "b"});
  attr_ints(n, "split", {2, 4});
  attr_int(n, "axis", 0);
  mm.output("a");
  mm.output("b");
  Graph g = import_ok(mm);
  const Node& s = only_node(g);
  EXPECT_EQ(const_i64(g, s.inputs.at(1)), (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(s.outputs.size(), 2u);
  EXPECT_TRUE(s.attrs.has("axis"));
  EXPECT_FALSE(s.attrs.has("split"));
}

TEST(OnnxImporter, PadAttributesBecomeInputsBeforeOpset11) {
  ModelMaker mm(10);
  mm.input("x", {2, 2});
  auto* n = mm.node("Pad", {"x"}, {"y"});
  attr_ints(n, "pads", {0, 1, 0, 1});
  attr_float(n, "value", 0.5f);
  attr_string(n, "mode", "constant");
  mm.output("y");
  Graph g = import_ok(mm);
  const Node& p = only_node(g);
  ASSERT_EQ(p.inputs.size(), 3u);
  EXPECT_EQ(const_i64(g, p.inputs[1]), (std::vector<int64_t>{0, 1, 0, 1}));
  EXPECT_EQ(const_f32(g, p.inputs[2]), 0.5f);
  EXPECT_TRUE(p.attrs.has("mode"));
  EXPECT_FALSE(p.attrs.has("pads"));
}

TEST(OnnxImporter, Resize10BecomesCanonicalAsymmetricFloor) {
  ModelMaker mm(10);
  mm.input("x", {1, 1, 2, 2});
  mm.init_f32("scales", {4}, {1, 1, 2, 2});
  mm.node("Resize", {"x", "scales"}, {"y"});
  mm.output("y");
  Graph g = import_ok(mm);
  const Node& r = only_node(g);
  ASSERT_EQ(r.inputs.size(), 3u);
  EXPECT_EQ(r.inputs[1], kNoValue);
  EXPECT_EQ(g.value(r.inputs[2]).name, "scales");
  EXPECT_EQ(*r.attrs.get_string("coordinate_transformation_mode", ""), "asymmetric");
  EXPECT_EQ(*r.attrs.get_string("nearest_mode", ""), "floor");
}

TEST(OnnxImporter, Resize11EmptyRoiAndScalesBecomeAbsent) {
  ModelMaker mm(11);
  mm.input("x", {1, 1, 2, 2});
  mm.init_f32("roi", {0}, {});
  mm.init_f32("scales", {0}, {});
  mm.init_i64("sizes", {1, 1, 4, 4});
  mm.node("Resize", {"x", "roi", "scales", "sizes"}, {"y"});
  mm.output("y");
  Graph g = import_ok(mm);
  const Node& r = only_node(g);
  ASSERT_EQ(r.inputs.size(), 4u);
  EXPECT_EQ(r.inputs[1], kNoValue);
  EXPECT_EQ(r.inputs[2], kNoValue);
  EXPECT_EQ(const_i64(g, r.inputs[3]), (std::vector<int64_t>{1, 1, 4, 4}));
}

TEST(OnnxImporter, OldBatchNormAttributesDroppedAndUnusedTrainingOutputsCut) {
  ModelMaker mm(7);
  mm.input("x", {1, 2, 3, 3});
  for (const char* name : {"s", "b", "m", "v"}) mm.init_f32(name, {2}, {1, 1});
  auto* n = mm.node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y", "mean_out"});
  attr_int(n, "spatial", 1);
  attr_float(n, "epsilon", 1e-3f);
  mm.output("y");
  Graph g = import_ok(mm);
  const Node& bn = only_node(g);
  EXPECT_EQ(bn.outputs.size(), 1u);
  EXPECT_FALSE(bn.attrs.has("spatial"));
  EXPECT_TRUE(bn.attrs.has("epsilon"));
}

TEST(OnnxImporter, OpVersionIsTheModelOpsetForEveryNode) {
  ModelMaker mm(12);
  mm.input("x", {2, 3});
  mm.node("Softmax", {"x"}, {"s"});
  mm.node("Relu", {"s"}, {"y"});
  mm.output("y");
  Graph g = import_ok(mm);
  for (const Node& n : g.nodes) EXPECT_EQ(n.op_version, 12);
  EXPECT_EQ(g.metadata.source_opset, 12);
  EXPECT_EQ(g.metadata.producer, "unit-test 1.0");
  EXPECT_EQ(g.metadata.source_format, "onnx");
}

TEST(OnnxImporter, AttributeKindsConvert) {
  ModelMaker mm(13);
  mm.input("x", {2, 3});
  auto* n = mm.node("Transpose", {"x"}, {"y"});
  attr_ints(n, "perm", {1, 0});
  attr_float(n, "f", 0.25f);
  attr_string(n, "s", "hello");
  auto* a = n->add_attribute();
  a->set_name("strs");
  a->set_type(onnx::AttributeProto_AttributeType_STRINGS);
  a->add_strings("a");
  a->add_strings("b");
  auto* t = n->add_attribute();
  t->set_name("t");
  t->set_type(onnx::AttributeProto_AttributeType_TENSOR);
  t->mutable_t()->set_data_type(onnx::TensorProto_DataType_INT32);
  t->mutable_t()->add_dims(2);
  t->mutable_t()->add_int32_data(7);
  t->mutable_t()->add_int32_data(-8);
  mm.output("y");
  Graph g = import_ok(mm);
  const Attributes& at = only_node(g).attrs;
  EXPECT_EQ(*at.get_ints("perm"), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(*at.get_float("f", 0), 0.25f);
  EXPECT_EQ(*at.get_string("s", ""), "hello");
  EXPECT_EQ(std::get<std::vector<std::string>>(at.all().at("strs")),
            (std::vector<std::string>{"a", "b"}));
  auto tensor = at.get_tensor("t");
  ASSERT_TRUE(tensor.is_ok() && tensor->has_value());
  EXPECT_EQ(*(*tensor)->to_i64_vector(), (std::vector<int64_t>{7, -8}));
}

// ---- constants --------------------------------------------------------------------

TEST(OnnxImporter, ConstantNodesBecomeConstantValues) {
  ModelMaker mm(13);
  mm.input("x", {3});
  auto* c1 = mm.node("Constant", {}, {"c_tensor"});
  auto* a = c1->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto_AttributeType_TENSOR);
  a->mutable_t()->set_data_type(onnx::TensorProto_DataType_FLOAT);
  a->mutable_t()->add_dims(3);
  for (float v : {1.f, 2.f, 3.f}) a->mutable_t()->add_float_data(v);
  attr_float(mm.node("Constant", {}, {"c_float"}), "value_float", 2.5f);
  attr_ints(mm.node("Constant", {}, {"c_ints"}), "value_ints", {4, 5});
  attr_int(mm.node("Constant", {}, {"c_int"}), "value_int", 9);
  mm.node("Add", {"x", "c_tensor"}, {"a"});
  mm.node("Mul", {"a", "c_float"}, {"m"});
  mm.node("Reshape", {"m", "c_ints"}, {"r"});
  mm.node("Unsqueeze", {"r", "c_int"}, {"y"});
  mm.output("y");
  Graph g = import_ok(mm);
  EXPECT_EQ(g.nodes.size(), 4u);  // the Constant nodes are gone
  for (const Node& n : g.nodes) EXPECT_NE(n.op, OpType::kConstant);
  const Value& ct = g.value(*g.find_value("c_tensor"));
  ASSERT_TRUE(ct.is_constant());
  EXPECT_EQ(ct.constant->to_f64_vector(), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(const_f32(g, *g.find_value("c_float")), 2.5f);
  EXPECT_TRUE(g.value(*g.find_value("c_float")).shape->dims.empty());
  EXPECT_EQ(const_i64(g, *g.find_value("c_ints")), (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(g.value(*g.find_value("c_int")).dtype, DType::kI64);
}

TEST(OnnxImporter, InitializerListedAsInputIsAConstantNotAnInput) {
  ModelMaker mm(9);
  mm.input("x", {1, 2});
  mm.input("w", {2, 2});  // old PyTorch exports list weights as inputs too
  mm.init_f32("w", {2, 2}, {1, 0, 0, 1});
  mm.node("MatMul", {"x", "w"}, {"y"});
  mm.output("y");
  Graph g = import_ok(mm);
  ASSERT_EQ(g.inputs.size(), 1u);
  EXPECT_EQ(g.value(g.inputs[0]).name, "x");
  EXPECT_TRUE(g.value(*g.find_value("w")).is_constant());
}

TEST(OnnxImporter, TypedFieldsDecodeAndSizesAreChecked) {
  ModelMaker mm(13);
  mm.input("x", {2});
  auto* h = mm.g()->add_initializer();  // f16 bits in int32_data
  h->set_name("h");
  h->set_data_type(onnx::TensorProto_DataType_FLOAT16);
  h->add_dims(2);
  h->add_int32_data(0x3C00);            // 1.0
  h->add_int32_data(0xC000);            // -2.0
  auto* r = mm.g()->add_initializer();  // raw_data
  r->set_name("r");
  r->set_data_type(onnx::TensorProto_DataType_INT32);
  r->add_dims(2);
  const int32_t raw[2] = {5, -6};
  r->set_raw_data(std::string(reinterpret_cast<const char*>(raw), sizeof(raw)));
  auto* b = mm.g()->add_initializer();
  b->set_name("b");
  b->set_data_type(onnx::TensorProto_DataType_BOOL);
  b->add_dims(2);
  b->add_int32_data(1);
  b->add_int32_data(0);
  attr_int(mm.node("Cast", {"h"}, {"hf"}), "to", onnx::TensorProto_DataType_FLOAT);
  mm.node("Add", {"x", "hf"}, {"s"});
  mm.node("Where", {"b", "s", "x"}, {"y"});
  mm.node("Identity", {"r"}, {"ri"});
  mm.output("y");
  mm.output("ri");
  Graph g = import_ok(mm);
  const Value& hv = g.value(*g.find_value("h"));
  EXPECT_EQ(hv.dtype, DType::kF16);
  EXPECT_EQ(hv.constant->to_f64_vector(), (std::vector<double>{1.0, -2.0}));
  EXPECT_EQ(const_i64(g, *g.find_value("r")), (std::vector<int64_t>{5, -6}));
  EXPECT_EQ(const_i64(g, *g.find_value("b")), (std::vector<int64_t>{1, 0}));

  // One element short of the declared shape: a malformed file.
  mm.g()->mutable_initializer(1)->set_raw_data(std::string(4, '\0'));
  auto bad = mm.import();
  ASSERT_FALSE(bad.is_ok());
  EXPECT_EQ(bad.status().code(), ErrorCode::kInvalidModel);
  EXPECT_TRUE(contains(bad.status().message(), "'r'")) << bad.status().message();
}

TEST(OnnxImporter, UnsupportedDtypeNamesTheTensor) {
  ModelMaker mm(13);
  mm.input("x", {1});
  auto* t = mm.g()->add_initializer();
  t->set_name("labels");
  t->set_data_type(onnx::TensorProto_DataType_STRING);
  t->add_dims(1);
  t->add_string_data("cat");
  mm.node("Identity", {"labels"}, {"y"});
  mm.output("y");
  auto r = mm.import();
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kUnsupported);
  EXPECT_TRUE(contains(r.status().message(), "'labels'")) << r.status().message();
  EXPECT_TRUE(contains(r.status().message(), "STRING")) << r.status().message();
}

// ---- external data ----------------------------------------------------------------

class OnnxExternalData : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_ / "weights");
    // 2 bytes of padding, then four floats.
    std::ofstream f(dir_ / "weights" / "w.bin", std::ios::binary);
    const float w[4] = {1.f, 2.f, 3.f, 4.f};
    f.write("PP", 2);
    f.write(reinterpret_cast<const char*>(w), sizeof(w));
  }

  // A model with one external initializer; writes it to dir_/model.onnx.
  std::string write_model(const std::string& location, const std::string& offset,
                          const std::string& length) {
    ModelMaker mm(13);
    mm.input("x", {4});
    auto* t = mm.g()->add_initializer();
    t->set_name("w");
    t->set_data_type(onnx::TensorProto_DataType_FLOAT);
    t->add_dims(4);
    t->set_data_location(onnx::TensorProto_DataLocation_EXTERNAL);
    auto add_kv = [&](const std::string& k, const std::string& v) {
      auto* kv = t->add_external_data();
      kv->set_key(k);
      kv->set_value(v);
    };
    add_kv("location", location);
    if (!offset.empty()) add_kv("offset", offset);
    if (!length.empty()) add_kv("length", length);
    mm.node("Add", {"x", "w"}, {"y"});
    mm.output("y");
    const fs::path path = dir_ / "model.onnx";
    std::ofstream(path, std::ios::binary) << mm.bytes();
    return path.string();
  }

  test::ScratchDir scratch_{"amp_onnx_ext"};
  const fs::path dir_ = scratch_.path();
};

TEST_F(OnnxExternalData, LoadsRelativeToTheModelDirectory) {
  auto r = import_onnx_file(write_model("weights/w.bin", "2", "16"));
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  const Value& w = r->value(*r->find_value("w"));
  ASSERT_TRUE(w.is_constant());
  EXPECT_EQ(w.constant->to_f64_vector(), (std::vector<double>{1, 2, 3, 4}));
}

TEST_F(OnnxExternalData, LengthDefaultsToTheTensorSize) {
  auto r = import_onnx_file(write_model("./weights/w.bin", "2", ""));
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
}

TEST_F(OnnxExternalData, HostilePathsAndRangesAreRejected) {
  const std::string outside = (fs::path("..") / dir_.filename() / "weights" / "w.bin").string();
  struct Case {
    std::string location, offset, length;
  };
  const std::vector<Case> cases = {
      {(dir_ / "weights" / "w.bin").string(), "2", "16"},  // absolute
      {"/etc/passwd", "0", "16"},
      {"../w.bin", "0", "16"},
      {"weights/../../w.bin", "0", "16"},
      {outside, "2", "16"},                             // climbs out and back in
      {"weights/w.bin", "4", "16"},                     // runs past the end
      {"weights/w.bin", "18446744073709551615", "16"},  // offset overflow
      {"weights/w.bin", "2", "12"},                     // length != tensor size
      {"weights/w.bin", "-1", "16"},
  };
  for (const Case& c : cases) {
    auto r = import_onnx_file(write_model(c.location, c.offset, c.length));
    ASSERT_FALSE(r.is_ok()) << c.location << " " << c.offset;
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidModel) << r.status().to_string();
    EXPECT_TRUE(contains(r.status().message(), "'w'")) << r.status().message();
  }
}

TEST_F(OnnxExternalData, MissingFileIsNotFoundAndBytesNeedADirectory) {
  auto r = import_onnx_file(write_model("weights/missing.bin", "0", "16"));
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kNotFound) << r.status().to_string();

  std::ifstream f(write_model("weights/w.bin", "2", "16"), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  auto no_dir = import_onnx_bytes(bytes.data(), bytes.size());
  ASSERT_FALSE(no_dir.is_ok());
  EXPECT_EQ(no_dir.status().code(), ErrorCode::kInvalidArgument);
  ImportOptions opts;
  opts.external_data_dir = dir_.string();
  EXPECT_TRUE(import_onnx_bytes(bytes.data(), bytes.size(), opts).is_ok());
}

// ---- unsupported and malformed models ---------------------------------------------

TEST(OnnxImporter, UnsupportedOpsAreListedAllAtOnce) {
  ModelMaker mm(13);
  mm.input("x", {1, 4});
  mm.node("TfIdfVectorizer", {"x", "x"}, {"n1"}, "tfidf_a");
  mm.node("Relu", {"x"}, {"r"});
  mm.node("TfIdfVectorizer", {"x", "x"}, {"n2"});  // unnamed: named by op and index
  mm.node("SequenceEmpty", {}, {"l"});
  auto* custom = mm.node("FusedConv", {"x"}, {"f"});
  custom->set_domain("com.microsoft");
  mm.node("Gelu", {"x"}, {"g"});  // Gelu arrives in opset 20
  mm.output("r");
  auto r = mm.import();
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kUnsupported);
  const std::string& msg = r.status().message();
  EXPECT_TRUE(contains(msg, "SequenceEmpty (opset 13) x1")) << msg;
  EXPECT_TRUE(contains(msg,
                       "TfIdfVectorizer (opset 13) x2 (nodes 'tfidf_a', "
                       "'TfIdfVectorizer_2')"))
      << msg;
  EXPECT_TRUE(contains(msg, "com.microsoft::FusedConv x1")) << msg;
  EXPECT_TRUE(contains(msg, "Gelu (opset 13) x1")) << msg;
  EXPECT_FALSE(contains(msg, "Relu")) << msg;
}

TEST(OnnxImporter, UnsupportedAttributesAndSemanticsAreReported) {
  ModelMaker mm(11);
  mm.input("x", {1, 1, 2, 2});
  auto* relu = mm.node("Relu", {"x"}, {"r"}, "relu_with_graph");
  auto* a = relu->add_attribute();
  a->set_name("sub");
  a->set_type(onnx::AttributeProto_AttributeType_GRAPH);
  mm.init_f32("roi", {0}, {});
  mm.init_f32("scales", {4}, {1, 1, 2, 2});
  attr_string(mm.node("Resize", {"r", "roi", "scales"}, {"y"}, "rs"),
              "coordinate_transformation_mode", "tf_half_pixel_for_nn");
  auto* cast = mm.node("Cast", {"y"}, {"z"}, "to_string");
  attr_int(cast, "to", onnx::TensorProto_DataType_STRING);
  mm.output("z");
  auto r = mm.import();
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kUnsupported);
  const std::string& msg = r.status().message();
  EXPECT_TRUE(contains(msg, "relu_with_graph")) << msg;
  EXPECT_TRUE(contains(msg, "GRAPH")) << msg;
  EXPECT_TRUE(contains(msg, "tf_half_pixel_for_nn")) << msg;
  EXPECT_TRUE(contains(msg, "STRING")) << msg;
}

TEST(OnnxImporter, OpsetOutsideSevenToTwentyEightIsUnsupported) {
  for (int64_t opset : {6, 29}) {
    ModelMaker mm(opset);
    mm.input("x", {1});
    mm.node("Relu", {"x"}, {"y"});
    mm.output("y");
    auto r = mm.import();
    ASSERT_FALSE(r.is_ok());
    EXPECT_EQ(r.status().code(), ErrorCode::kUnsupported);
    EXPECT_TRUE(contains(r.status().message(), std::to_string(opset))) << r.status().message();
  }
}

TEST(OnnxImporter, GarbageBytesAreAClearError) {
  const std::vector<std::string> inputs = {
      std::string("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11),
      "this is not a protobuf at all",
      std::string(),
  };
  for (const std::string& b : inputs) {
    auto r = import_onnx_bytes(b.data(), b.size());
    ASSERT_FALSE(r.is_ok());
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidModel) << r.status().to_string();
  }
  // A valid model cut short at every length: never a crash, always an error or a graph.
  ModelMaker mm(13);
  mm.input("x", {2, 3});
  mm.init_f32("w", {3}, {1, 2, 3});
  mm.node("Add", {"x", "w"}, {"y"});
  mm.output("y");
  const std::string full = mm.bytes();
  for (size_t n = 0; n < full.size(); ++n) {
    auto r = import_onnx_bytes(full.data(), n);
    if (!r.is_ok()) {
      EXPECT_EQ(r.status().code(), ErrorCode::kInvalidModel) << n;
    }
  }
}

// Byte flips all over a model with every tensor encoding: the importer must answer
// with a graph or an error, never crash (run under AMP_SANITIZE=ON to mean it).
TEST(OnnxImporter, MutatedModelsNeverCrash) {
  ModelMaker mm(9);
  mm.input("x", {std::string("N"), 4});
  mm.init_f32("w", {4}, {1, 2, 3, 4});
  auto* raw = mm.g()->add_initializer();
  raw->set_name("starts");
  raw->set_data_type(onnx::TensorProto_DataType_INT64);
  raw->add_dims(1);
  const int64_t one = 1;
  raw->set_raw_data(std::string(reinterpret_cast<const char*>(&one), sizeof(one)));
  mm.node("Add", {"x", "w"}, {"a"});
  auto* sl = mm.node("Slice", {"a"}, {"s"});
  attr_ints(sl, "starts", {1});
  attr_ints(sl, "ends", {3});
  attr_float(mm.node("Clip", {"s"}, {"y"}), "max", 2.0f);
  mm.output("y", {std::string("N"), 2});
  const std::string full = mm.bytes();
  uint32_t seed = 12345;
  auto next = [&seed] { return seed = seed * 1664525u + 1013904223u; };
  int ok = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    std::string b = full;
    const int flips = 1 + static_cast<int>(next() % 4);
    for (int f = 0; f < flips; ++f) b[next() % b.size()] = static_cast<char>(next() >> 24);
    auto r = import_onnx_bytes(b.data(), b.size());
    if (r.is_ok()) {
      ++ok;
      EXPECT_TRUE(verify_graph(*r).is_ok());
    }
  }
  EXPECT_GT(ok, 0);  // some flips only touch names or values
}

TEST(OnnxImporter, MissingFileIsNotFound) {
  auto r = import_onnx_file("/nonexistent/model.onnx");
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kNotFound);
}

TEST(OnnxImporter, UndefinedAndTwiceDefinedValuesAreInvalid) {
  {
    ModelMaker mm(13);
    mm.input("x", {1});
    mm.node("Relu", {"nowhere"}, {"y"});
    mm.output("y");
    auto r = mm.import();
    ASSERT_FALSE(r.is_ok());
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidModel);
    EXPECT_TRUE(contains(r.status().message(), "nowhere")) << r.status().message();
  }
  {
    ModelMaker mm(13);
    mm.input("x", {1});
    mm.node("Relu", {"x"}, {"y"});
    mm.node("Neg", {"x"}, {"y"});
    mm.output("y");
    auto r = mm.import();
    ASSERT_FALSE(r.is_ok());
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidModel);
  }
}

// ---- order and names --------------------------------------------------------------

TEST(OnnxImporter, UnsortedNodesAreSortedAndCyclesRejected) {
  ModelMaker mm(13);
  mm.input("x", {1});
  mm.node("Neg", {"a"}, {"y"}, "second");
  mm.node("Relu", {"x"}, {"a"}, "first");
  mm.output("y");
  Graph g = import_ok(mm);
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].name, "first");
  EXPECT_EQ(g.nodes[1].name, "second");

  ModelMaker cyc(13);
  cyc.input("x", {1});
  cyc.node("Add", {"x", "b"}, {"a"}, "n1");
  cyc.node("Neg", {"a"}, {"b"}, "n2");
  cyc.output("b");
  auto r = cyc.import();
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidModel);
  EXPECT_TRUE(contains(r.status().message(), "cycle")) << r.status().message();
}

TEST(OnnxImporter, EmptyAndDuplicateNodeNamesGetUniqueNames) {
  ModelMaker mm(13);
  mm.input("x", {1});
  mm.node("Relu", {"x"}, {"a"}, "dup");
  mm.node("Neg", {"a"}, {"b"}, "dup");
  mm.node("Abs", {"b"}, {"y"}, "");
  mm.output("y");
  Graph g = import_ok(mm);
  ASSERT_EQ(g.nodes.size(), 3u);
  EXPECT_EQ(g.nodes[0].name, "dup");
  EXPECT_EQ(g.nodes[1].name, "Neg_1");
  EXPECT_EQ(g.nodes[2].name, "Abs_2");
}

TEST(OnnxImporter, AbsentOptionalInputsAndOutputs) {
  ModelMaker mm(13);
  mm.input("x", {4});
  mm.init_f32("hi", {}, {1.0f});
  mm.node("Clip", {"x", "", "hi"}, {"c"});
  mm.node("Split", {"c", ""}, {"s0", ""});  // trailing "" input trimmed; output kept absent
  mm.output("s0");
  Graph g = import_ok(mm);
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].inputs[1], kNoValue);
  EXPECT_EQ(g.nodes[1].inputs.size(), 1u);
  ASSERT_EQ(g.nodes[1].outputs.size(), 2u);
  EXPECT_EQ(g.nodes[1].outputs[1], kNoValue);
}

// ---- shapes -----------------------------------------------------------------------

TEST(OnnxImporter, SymbolicDimsKeepTheirNames) {
  ModelMaker mm(13);
  mm.input("x", {std::string("batch"), 3, std::string("")});
  mm.node("Relu", {"x"}, {"y"});
  mm.output("y", {std::string("batch"), 3, std::string("")});
  Graph g = import_ok(mm);
  const Shape& s = *g.value(g.inputs[0]).shape;
  ASSERT_EQ(s.rank(), 3u);
  EXPECT_FALSE(s.dims[0].is_static());
  EXPECT_EQ(s.dims[0].symbol, "batch");
  EXPECT_EQ(s.dims[1].value, 3);
  EXPECT_FALSE(s.dims[2].is_static());
  EXPECT_EQ(s.dims[2].symbol, "");
  EXPECT_EQ(g.value(g.outputs[0]).dtype, DType::kF32);
  EXPECT_EQ(g.value(g.outputs[0]).shape->dims[0].symbol, "batch");
}

// A declared output shape is a hint: ddddocr's OCR model declares its [T, 1, C] logits
// [1, seqlen] (a rank its Reshape never makes), and ONNX Runtime runs it. Inference wins.
TEST(OnnxImporter, ADeclaredOutputShapeThatInferenceContradictsIsOverruled) {
  ModelMaker mm(13);
  mm.input("x", {2, 3, 4});
  mm.node("Relu", {"x"}, {"r"});
  mm.init_i64("to", {4, 1, 6});
  mm.node("Reshape", {"r", "to"}, {"y"});
  mm.output("y", {1, std::string("seqlen")});
  Graph g = import_ok(mm);
  const Status inferred = infer_shapes(g);
  ASSERT_TRUE(inferred.is_ok()) << inferred.to_string();
  EXPECT_EQ(g.value(g.outputs[0]).shape->to_string(), "[4,1,6]");
}

TEST(OnnxImporter, InputShapesFixDimsAndSymbolsEverywhere) {
  ModelMaker mm(13);
  mm.input("x", {std::string("N"), 3, std::string("")});
  mm.input("z", {std::string("N"), 3, 1});
  mm.node("Add", {"x", "z"}, {"y"});
  mm.output("y", {std::string("N"), 3, std::string("")});
  ImportOptions opts;
  opts.input_shapes["x"] = {2, 3, 5};
  Graph g = import_ok(mm, opts);
  EXPECT_EQ(*g.value(g.inputs[0]).shape, Shape({2, 3, 5}));
  EXPECT_EQ(*g.value(g.inputs[1]).shape, Shape({2, 3, 1}));  // same symbol N
  const Shape& out = *g.value(g.outputs[0]).shape;
  EXPECT_EQ(out.dims[0].value, 2);
  EXPECT_FALSE(out.dims[2].is_static());  // unnamed: not the same dim as x's

  ImportOptions bad_rank;
  bad_rank.input_shapes["x"] = {2, 3};
  auto r1 = mm.import(bad_rank);
  ASSERT_FALSE(r1.is_ok());
  EXPECT_EQ(r1.status().code(), ErrorCode::kInvalidArgument);

  ImportOptions unknown;
  unknown.input_shapes["nope"] = {1};
  auto r2 = mm.import(unknown);
  ASSERT_FALSE(r2.is_ok());
  EXPECT_EQ(r2.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_TRUE(contains(r2.status().message(), "nope")) << r2.status().message();

  ImportOptions static_conflict;
  static_conflict.input_shapes["x"] = {2, 4, 5};
  EXPECT_FALSE(mm.import(static_conflict).is_ok());

  ImportOptions symbol_conflict;
  symbol_conflict.input_shapes["x"] = {2, 3, 5};
  symbol_conflict.input_shapes["z"] = {4, 3, 1};
  EXPECT_FALSE(mm.import(symbol_conflict).is_ok());
}

TEST(OnnxImporter, ValueInfoGivesIntermediateHints) {
  ModelMaker mm(13);
  mm.input("x", {2});
  mm.node("Relu", {"x"}, {"a"});
  mm.node("Neg", {"a"}, {"y"});
  auto* vi = mm.g()->add_value_info();
  vi->set_name("a");
  ModelMaker::set_type(vi, onnx::TensorProto_DataType_FLOAT, {2});
  mm.output("y");
  Graph g = import_ok(mm);
  const Value& a = g.value(*g.find_value("a"));
  EXPECT_EQ(a.dtype, DType::kF32);
  EXPECT_EQ(*a.shape, Shape({2}));
}

TEST(OnnxImporter, ParseShapeArg) {
  auto a = parse_shape_arg("data=1x3x224x224");
  ASSERT_TRUE(a.is_ok());
  EXPECT_EQ(a->first, "data");
  EXPECT_EQ(a->second, (std::vector<int64_t>{1, 3, 224, 224}));
  auto b = parse_shape_arg("input:0=8,16");
  ASSERT_TRUE(b.is_ok());
  EXPECT_EQ(b->first, "input:0");
  EXPECT_EQ(b->second, (std::vector<int64_t>{8, 16}));
  auto scalar = parse_shape_arg("s=");
  ASSERT_TRUE(scalar.is_ok());
  EXPECT_TRUE(scalar->second.empty());
  for (const char* bad : {"data", "=1x2", "d=1x", "d=1xx2", "d=-1", "d=1x3a", "d=x"}) {
    auto r = parse_shape_arg(bad);
    EXPECT_FALSE(r.is_ok()) << bad;
    if (!r.is_ok()) {
      EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument) << bad;
    }
  }
}

// ---- real models ------------------------------------------------------------------

TEST(OnnxImporterModels, SharedModelsImportAndVerify) {
  AMP_REQUIRE_SHARED();
  const fs::path models = amp::test::shared_dir() / "models";
  int seen = 0;
  for (const auto& entry : fs::directory_iterator(models)) {
    const fs::path path = entry.path() / "model.onnx";
    if (!fs::exists(path)) continue;
    ++seen;
    auto r = import_onnx_file(path.string());
    ASSERT_TRUE(r.is_ok()) << path << ": " << r.status().to_string();
    EXPECT_TRUE(verify_graph(*r).is_ok()) << path;
    EXPECT_FALSE(r->inputs.empty()) << path;
    for (ValueId in : r->inputs) EXPECT_FALSE(r->value(in).is_constant());
    std::map<std::string_view, int> hist;
    for (const Node& n : r->nodes) ++hist[op_name(n.op)];
    std::cout << entry.path().filename().string() << " (" << r->metadata.producer << ", opset "
              << r->metadata.source_opset << "): " << r->nodes.size() << " nodes:";
    for (const auto& [op, count] : hist) std::cout << " " << op << "=" << count;
    std::cout << "\n";
  }
  EXPECT_GE(seen, 4);
}

}  // namespace
}  // namespace amp::graph
