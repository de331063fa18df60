// Subgraphs (If/Loop/Scan bodies) in the IR's checks and the .amp format: nesting caps in the
// verifier and the reader (a hostile file nesting 10,000 levels is a clear error, not a stack
// overflow), body constants in the weight region, and the InlineConstantIf pass.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "graph/ir/graph_builder.h"
#include "graph/ir/limits.h"
#include "graph/ir/verifier.h"
#include "graph/ops/shape_inference.h"
#include "graph/passes/pipelines.h"
#include "graph/schema/model_generated.h"
#include "graph/serialize/amp_format.h"
#include "graph/serialize/amp_reader.h"
#include "graph/serialize/amp_writer.h"

namespace amp::graph {
namespace {

// `levels` Ifs, each in the then_branch of the one above, the innermost returning x + w
// (a constant of the innermost body) and every level capturing x.
Graph nested_ifs(int levels) {
  GraphBuilder inner;
  auto x = inner.input("x", DType::kF32, Shape({2}));
  auto w = inner.constant("w", TensorData::from_vector<float>(DType::kF32, {2}, {10, 20}));
  inner.output(inner.node(OpType::kAdd, {x, w}));
  Graph body = inner.build();
  for (int level = 1; level <= levels; ++level) {
    GraphBuilder b;
    const bool top = level == levels;
    auto bx = b.input("x", DType::kF32, Shape({2}));
    ValueId cond = top ? b.input("flag", DType::kBool, Shape())
                       : b.constant("c", TensorData::from_vector<uint8_t>(DType::kBool, {}, {1}));
    GraphBuilder other;
    auto ox = other.input("x", DType::kF32, Shape({2}));
    other.output(other.node(OpType::kNeg, {ox}));
    Attributes a;
    a.set("then_branch", SubgraphAttr{std::make_shared<const Graph>(std::move(body))});
    a.set("else_branch", SubgraphAttr{std::make_shared<const Graph>(other.build())});
    a.set("captured_inputs", int64_t{1});
    b.output(b.node(OpType::kIf, {cond, bx}, a, "if_" + std::to_string(level)));
    body = b.build();
  }
  return body;
}

TEST(SubgraphFormat, BodiesAndTheirConstantsRoundTrip) {
  Graph g = nested_ifs(3);
  ASSERT_TRUE(infer_shapes(g).is_ok());
  auto bytes = write_amp_bytes(g);
  ASSERT_TRUE(bytes.is_ok()) << bytes.status().to_string();
  auto back = read_amp_bytes(std::make_shared<const std::vector<uint8_t>>(std::move(*bytes)));
  ASSERT_TRUE(back.is_ok()) << back.status().to_string();
  EXPECT_TRUE(*back == g);
}

TEST(SubgraphFormat, TheVerifierCapsNesting) {
  EXPECT_TRUE(verify_graph(nested_ifs(kMaxSubgraphDepth)).is_ok());
  const Status s = verify_graph(nested_ifs(kMaxSubgraphDepth + 1));
  EXPECT_EQ(s.code(), ErrorCode::kInvalidModel);
  EXPECT_NE(s.message().find("nest deeper than 32 levels"), std::string::npos) << s.message();
}

// Hand-built FlatBuffer: 10,000 Ifs, each the only node of the body above. No writer would
// produce it; the reader must refuse it without recursing 10,000 levels.
TEST(SubgraphFormat, AFileNestingTenThousandLevelsIsAClearError) {
  flatbuffers::FlatBufferBuilder b;
  flatbuffers::Offset<fb::GraphAttr> body = fb::CreateGraphAttr(b);
  flatbuffers::Offset<fb::Node> node;
  for (int level = 0; level < 10000; ++level) {
    auto attr = fb::CreateAttribute(b, b.CreateString("then_branch"), fb::AttrValue::GraphAttr,
                                    body.Union());
    std::vector<flatbuffers::Offset<fb::Attribute>> attrs = {attr};
    node = fb::CreateNode(b, b.CreateString("If"), 13, b.CreateString("n"), 0, 0,
                          b.CreateVector(attrs));
    std::vector<flatbuffers::Offset<fb::Node>> nodes = {node};
    body = fb::CreateGraphAttr(b, 0, b.CreateVector(nodes));
  }
  std::vector<flatbuffers::Offset<fb::Node>> nodes = {node};
  auto model = fb::CreateModel(b, kAmpSchemaVersion, 0, b.CreateVector(nodes));
  fb::FinishSizePrefixedModelBuffer(b, model);
  auto bytes = std::make_shared<const std::vector<uint8_t>>(b.GetBufferPointer(),
                                                            b.GetBufferPointer() + b.GetSize());
  auto g = read_amp_bytes(bytes);
  ASSERT_FALSE(g.is_ok());
  EXPECT_EQ(g.status().code(), ErrorCode::kInvalidModel);
  EXPECT_NE(g.status().message().find("subgraphs nest at most 32 levels"), std::string::npos)
      << g.status().message();
}

TEST(SubgraphFormat, IfsWithConstantConditionsAreInlinedAtConversion) {
  // Levels below the top have constant conditions; the top one reads an input.
  Graph g = nested_ifs(4);
  ASSERT_TRUE(run_conversion_passes(g).is_ok());
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].op, OpType::kIf);
  const Graph& then_g = *g.nodes[0].attrs.get_graph("then_branch").value();
  // The three constant Ifs inside collapsed into the innermost Add (its weight folded in).
  ASSERT_EQ(then_g.nodes.size(), 1u);
  EXPECT_EQ(then_g.nodes[0].op, OpType::kAdd);
}

}  // namespace
}  // namespace amp::graph
