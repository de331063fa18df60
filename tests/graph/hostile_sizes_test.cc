// Models that declare absurd sizes: each is rejected before anything is allocated for it,
// with an error naming the value or node, or (constant folding) left for run time. The
// caps are in ir/limits.h and passes/constant_folding.h.
#include <gtest/gtest.h>

#include "graph/ir/limits.h"
#include "graph/ir/verifier.h"
#include "graph/onnx/onnx_importer.h"
#include "graph/ops/shape_inference.h"
#include "graph/passes/constant_folding.h"
#include "graph/serialize/amp_reader.h"
#include "tests/fuzz/load_pipeline.h"
#include "tests/graph/hostile_models.h"
#include "tests/graph/serialize/amp_test_util.h"

namespace amp::graph {
namespace {

using hostile::ChainGraph;
using hostile::OnnxModel;

constexpr int64_t k2p40 = int64_t{1} << 40;
constexpr int kF32 = onnx::TensorProto_DataType_FLOAT;

void expect_error(const Status& s, ErrorCode code, std::vector<std::string> fragments) {
  EXPECT_EQ(s.code(), code) << s.to_string();
  for (const std::string& f : fragments)
    EXPECT_NE(s.message().find(f), std::string::npos) << "'" << f << "' not in: " << s.message();
}

Value declared(const std::string& name, DType dtype, Shape shape) {
  Value v;
  v.name = name;
  v.dtype = dtype;
  v.shape = std::move(shape);
  return v;
}

TEST(HostileSizes, ValueSizeCaps) {
  EXPECT_TRUE(check_value_size(declared("ok", DType::kF32, {1, 3, 224, 224})).is_ok());
  // 1e12 f32 elements: 4 TB.
  expect_error(check_value_size(declared("x", DType::kF32, {1000000, 1000000})),
               ErrorCode::kOutOfMemory, {"value 'x'", "[1000000,1000000]", "GiB"});
  // The product overflows int64.
  expect_error(check_value_size(declared("y", DType::kU8, {k2p40, k2p40})),
               ErrorCode::kInvalidModel, {"value 'y'", "overflows int64"});
  // Symbolic dims count as 1: the static part alone is too big.
  expect_error(check_value_size(declared("z", DType::kF16, Shape({Dim::symbolic("N"), k2p40}))),
               ErrorCode::kOutOfMemory, {"value 'z'"});
  // A zero dim empties the tensor whatever the others are.
  EXPECT_TRUE(check_value_size(declared("e", DType::kF32, {k2p40, 0, k2p40})).is_ok());
  expect_error(check_value_size(declared("r", DType::kF32, Shape(std::vector<Dim>(65, Dim(1))))),
               ErrorCode::kInvalidModel, {"value 'r'", "rank 65"});
  // Exactly at the cap passes; one element more fails.
  const int64_t max_f32 = static_cast<int64_t>(kMaxTensorBytes / 4);
  EXPECT_TRUE(check_value_size(declared("m", DType::kF32, {max_f32})).is_ok());
  EXPECT_FALSE(check_value_size(declared("m", DType::kF32, {max_f32 + 1})).is_ok());
}

TEST(HostileSizes, VerifierChecksEveryRecordedShape) {
  ChainGraph c(DType::kF32, {1, 4});
  c.add(OpType::kRelu, {});
  Graph g = c.finish();
  ASSERT_TRUE(verify_graph(g).is_ok());
  g.values[1].shape = Shape({k2p40, k2p40, 16});  // an intermediate's value_info
  expect_error(verify_graph(g), ErrorCode::kInvalidModel, {"value 'v1'", "overflows"});
}

// An .amp file whose input declares 1e12 elements, and one whose weight claims 2^40 bytes.
TEST(HostileSizes, AmpReaderRejectsAbsurdDeclarations) {
  amp_test::RawModel m = amp_test::small_raw_model();
  m.values[0].shape = {1000000, 1000000, 3};
  auto r = read_amp_bytes(std::make_shared<const std::vector<uint8_t>>(
      amp_test::craft_amp(m, amp_test::small_raw_weights())));
  expect_error(r.status(), ErrorCode::kOutOfMemory, {"value 'x'", "[1000000,1000000,3]"});

  m = amp_test::small_raw_model();
  m.values[1].shape = {k2p40 / 4};
  m.values[1].weight =
      amp_test::RawWeight{.offset = 0, .size = uint64_t{1} << 40, .dims = {k2p40 / 4}};
  r = read_amp_bytes(std::make_shared<const std::vector<uint8_t>>(
      amp_test::craft_amp(m, amp_test::small_raw_weights())));
  expect_error(r.status(), ErrorCode::kInvalidModel, {"value 'w'", "outside"});
}

// ONNX: a graph input of 1e12 elements; initializers whose dims claim far more data than
// they carry (the check happens before any copy).
TEST(HostileSizes, OnnxImporterRejectsAbsurdDeclarations) {
  {
    OnnxModel m(17);
    m.input("x", kF32, {1000000, 1000000});
    m.node("Relu", {"x"}, {"y"});
    m.output("y");
    const std::string b = m.bytes();
    expect_error(import_onnx_bytes(b.data(), b.size()).status(), ErrorCode::kOutOfMemory,
                 {"value 'x'", "[1000000,1000000]"});
  }
  {
    OnnxModel m(17);
    m.input("x", kF32, {1});
    m.initializer("w", kF32, {k2p40, k2p40}, std::string(4, '\0'));
    m.node("Add", {"x", "w"}, {"y"});
    m.output("y");
    const std::string b = m.bytes();
    expect_error(import_onnx_bytes(b.data(), b.size()).status(), ErrorCode::kInvalidModel,
                 {"initializer 'w'", "overflowing"});
  }
  {
    OnnxModel m(17);
    m.input("x", kF32, {1});
    m.initializer("w", kF32, {1000000, 1000000}, std::string(4, '\0'));
    m.node("Add", {"x", "w"}, {"y"});
    m.output("y");
    const std::string b = m.bytes();
    expect_error(import_onnx_bytes(b.data(), b.size()).status(), ErrorCode::kInvalidModel,
                 {"initializer 'w'", "raw_data has 4 bytes"});
  }
}

// Ops whose output size comes from a small constant: inference names the node and value.
TEST(HostileSizes, InferenceRejectsHugeOutputs) {
  {
    ChainGraph c(DType::kF32, {1});
    const ValueId shape = c.constant(TensorData::vector_i64({1000000, 1000000, 1000000}));
    c.add(OpType::kExpand, {shape});
    Graph g = c.finish();
    expect_error(infer_shapes(g), ErrorCode::kOutOfMemory, {"node 'n0' (Expand)", "value 'v2'"});
  }
  {
    ChainGraph c(DType::kF32, {1, 1});
    const ValueId reps = c.constant(TensorData::vector_i64({k2p40, k2p40}));
    c.add(OpType::kTile, {reps});
    Graph g = c.finish();
    expect_error(infer_shapes(g), ErrorCode::kInvalidModel, {"node 'n0' (Tile)", "overflows"});
  }
  {
    ChainGraph c(DType::kI64, {2});
    const ValueId zero = c.constant(TensorData::scalar_i64(0));
    const ValueId limit = c.constant(TensorData::scalar_i64(int64_t{1} << 40));
    const ValueId one = c.constant(TensorData::scalar_i64(1));
    Node n;
    n.name = "range";
    n.op = OpType::kRange;
    n.op_version = 17;
    n.inputs = {zero, limit, one};
    Value out;
    out.name = "r";
    n.outputs = {c.graph().add_value(std::move(out))};
    c.graph().add_node(std::move(n));
    Graph g = c.finish();
    expect_error(infer_shapes(g), ErrorCode::kOutOfMemory, {"node 'range' (Range)", "value 'r'"});
  }
  {
    ChainGraph c(DType::kI64, {2});
    Graph& g = c.graph();
    Node n;
    n.name = "cos";
    n.op = OpType::kConstantOfShape;
    n.op_version = 17;
    Value shape;
    shape.name = "shape";
    shape.dtype = DType::kI64;
    shape.shape = Shape({2});
    shape.constant = TensorData::vector_i64({int64_t{1} << 20, int64_t{1} << 20});
    n.inputs = {g.add_value(std::move(shape))};
    Value out;
    out.name = "big";
    const ValueId big = g.add_value(std::move(out));
    n.outputs = {big};
    g.add_node(std::move(n));
    g.outputs.push_back(big);
    expect_error(infer_shapes(g), ErrorCode::kOutOfMemory, {"(ConstantOfShape)", "value 'big'"});
  }
  {
    // A constant Reshape target of 100,000 entries: rejected as a rank, not built.
    ChainGraph c(DType::kF32, {1});
    const ValueId shape = c.constant(TensorData::vector_i64(std::vector<int64_t>(100000, 1)));
    c.add(OpType::kReshape, {shape});
    Graph g = c.finish();
    expect_error(infer_shapes(g), ErrorCode::kInvalidModel, {"(Reshape)", "rank 100000"});
  }
}

// Graph of `count` ConstantOfShape nodes, each making `bytes_each` bytes of f32 zeros, all
// graph outputs.
Graph many_constant_of_shape(int count, int64_t bytes_each) {
  ChainGraph c(DType::kF32, {1});
  Graph& g = c.graph();
  Value shape;
  shape.name = "shape";
  shape.dtype = DType::kI64;
  shape.shape = Shape({1});
  shape.constant = TensorData::vector_i64({bytes_each / 4});
  const ValueId s = g.add_value(std::move(shape));
  for (int i = 0; i < count; ++i) {
    Node n;
    n.name = "cos" + std::to_string(i);
    n.op = OpType::kConstantOfShape;
    n.op_version = 17;
    n.inputs = {s};
    Value out;
    out.name = "z" + std::to_string(i);
    n.outputs = {g.add_value(std::move(out))};
    g.outputs.push_back(n.outputs[0]);
    g.add_node(std::move(n));
  }
  return std::move(g);
}

size_t constant_bytes(const Graph& g) {
  size_t total = 0;
  for (const Value& v : g.values)
    if (v.is_constant()) total += v.constant->byte_size();
  return total;
}

// Folding materializes at most the graph's own constants plus 64 MiB per run: 2,000 nodes of
// 1 MiB each (2 GiB if all folded) leave all but 64 of them for run time.
TEST(HostileSizes, ConstantFoldingStopsAtItsBudget) {
  Graph g = many_constant_of_shape(2000, int64_t{1} << 20);
  ASSERT_TRUE(infer_shapes(g).is_ok());
  ConstantFolding folding;
  auto changed = folding.run(g);
  ASSERT_TRUE(changed.is_ok()) << changed.status().to_string();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(g.nodes.size(), 2000u - 64u);
  EXPECT_LE(constant_bytes(g), (size_t{64} << 20) + 8);
  EXPECT_TRUE(verify_graph(g).is_ok());
}

// One big ConstantOfShape (1 GiB) is never folded: it is more than 1 MiB and more than its
// inputs.
TEST(HostileSizes, ConstantFoldingLeavesHugeOutputsUnfolded) {
  Graph g = many_constant_of_shape(1, int64_t{1} << 30);
  ASSERT_TRUE(infer_shapes(g).is_ok());
  ConstantFolding folding;
  auto changed = folding.run(g);
  ASSERT_TRUE(changed.is_ok());
  EXPECT_FALSE(*changed);
  EXPECT_EQ(g.nodes.size(), 1u);
}

// One 8 MiB weight copied through 200 Identity nodes would be 1.6 GB folded; the budget is
// the graph's constants (8 MiB) plus 64 MiB.
TEST(HostileSizes, ConstantFoldingOfWeightCopiesIsBounded) {
  ChainGraph c(DType::kF32, {1});
  Graph& g = c.graph();
  Value w;
  w.name = "w";
  w.dtype = DType::kF32;
  w.shape = Shape({int64_t{1} << 21});
  w.constant = TensorData::from_vector<float>(DType::kF32, {int64_t{1} << 21},
                                              std::vector<float>(size_t{1} << 21, 1.0f));
  ValueId prev = g.add_value(std::move(w));
  for (int i = 0; i < 200; ++i) {
    Node n;
    n.name = "id" + std::to_string(i);
    n.op = OpType::kIdentity;
    n.op_version = 17;
    n.inputs = {prev};
    Value out;
    out.name = "copy" + std::to_string(i);
    prev = g.add_value(std::move(out));
    n.outputs = {prev};
    g.outputs.push_back(prev);
    g.add_node(std::move(n));
  }
  ASSERT_TRUE(infer_shapes(g).is_ok());
  ConstantFolding folding;
  ASSERT_TRUE(folding.run(g).is_ok());
  EXPECT_LE(constant_bytes(g), (size_t{8} << 20) + (size_t{64} << 20) + (size_t{8} << 20));
  EXPECT_GT(g.nodes.size(), 150u);
}

// 1,000 weights that view the same 1 MiB of one buffer (an .amp file may point them all at
// one range) count once towards the budget.
TEST(HostileSizes, ConstantFoldingBudgetCountsSharedBytesOnce) {
  auto buffer = std::make_shared<std::vector<uint8_t>>(size_t{1} << 20, 0);
  ChainGraph c(DType::kF32, {1});
  Graph& g = c.graph();
  for (int i = 0; i < 1000; ++i) {
    Value w;
    w.name = "w" + std::to_string(i);
    w.dtype = DType::kF32;
    w.shape = Shape({int64_t{1} << 18});
    w.constant =
        TensorData::view(DType::kF32, {int64_t{1} << 18}, buffer, buffer->data(), buffer->size())
            .value();
    const ValueId wid = g.add_value(std::move(w));
    Node n;
    n.name = "id" + std::to_string(i);
    n.op = OpType::kIdentity;
    n.op_version = 17;
    n.inputs = {wid};
    Value out;
    out.name = "copy" + std::to_string(i);
    n.outputs = {g.add_value(std::move(out))};
    g.outputs.push_back(n.outputs[0]);
    g.add_node(std::move(n));
  }
  ASSERT_TRUE(infer_shapes(g).is_ok());
  ConstantFolding folding;
  ASSERT_TRUE(folding.run(g).is_ok());
  // 1 MiB of shared bytes + 64 MiB: 65 copies of 1 MiB.
  EXPECT_EQ(g.nodes.size(), 1000u - 65u);
}

// The whole load path on a file that declares a huge intermediate (value_info style): a
// clean error, no allocation.
TEST(HostileSizes, LoadPipelineRejectsHugeDeclaredIntermediate) {
  amp_test::RawModel m = amp_test::small_raw_model();
  m.values[2].has_shape = true;
  m.values[2].shape = {k2p40, 1000};
  const std::vector<uint8_t> file = amp_test::craft_amp(m, amp_test::small_raw_weights());
  expect_error(fuzz::load_amp_untrusted(file.data(), file.size()), ErrorCode::kOutOfMemory,
               {"value 'r'"});
}

}  // namespace
}  // namespace amp::graph
