#include <gtest/gtest.h>

#include "graph/ir/graph_builder.h"
#include "graph/ir/verifier.h"
#include "graph/ops/shape_inference.h"

namespace amp::graph {
namespace {

TEST(Verifier, AcceptsBuiltGraph) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, {1, 4});
  ValueId y = b.node(OpType::kRelu, {x});
  b.output(y);
  Graph g = b.build();
  EXPECT_TRUE(verify_graph(g).is_ok()) << verify_graph(g).to_string();
}

TEST(Verifier, RejectsUseBeforeDefinitionAndCycles) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, {1, 4});
  ValueId y = b.node(OpType::kRelu, {x});
  ValueId z = b.node(OpType::kNeg, {y});
  b.output(z);
  Graph g = b.build();
  // Make relu consume neg's output: a cycle.
  g.nodes[0].inputs[0] = z;
  Status s = verify_graph(g);
  EXPECT_EQ(s.code(), ErrorCode::kInvalidModel);
  EXPECT_NE(s.message().find("relu_0"), std::string::npos) << s.message();
}

TEST(Verifier, RejectsTwoProducersAndBadIds) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, {4});
  ValueId y = b.node(OpType::kRelu, {x});
  b.node(OpType::kNeg, {x});
  b.output(y);
  Graph g = b.build();
  g.nodes[1].outputs[0] = y;
  EXPECT_NE(verify_graph(g).message().find("exactly one producer"), std::string::npos);
  g.nodes[1].outputs[0] = 99;
  EXPECT_NE(verify_graph(g).message().find("out of range"), std::string::npos);
}

TEST(Graph, CompactValuesRenumbers) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, {4});
  b.constant("unused", TensorData::scalar_f32(1.0f));
  ValueId y = b.node(OpType::kRelu, {x});
  b.output(y);
  Graph g = b.build();
  ASSERT_EQ(g.values.size(), 3u);
  g.compact_values();
  EXPECT_EQ(g.values.size(), 2u);
  EXPECT_EQ(g.value(g.outputs[0]).name, "relu_0");
  EXPECT_TRUE(verify_graph(g).is_ok());
}

// copy_for_reinference leaves out only what inference refills: inferring the copy gives the
// graph back, its symbolic values and resolved attributes included, before and after the
// input dims are bound.
TEST(Graph, CopyForReinferenceInfersBackToTheSameGraph) {
  GraphBuilder b;
  const ValueId x = b.input("x", DType::kF32, Shape({Dim::symbolic("N"), Dim(6)}));
  Attributes axis0;
  axis0.set("axis", int64_t{0});
  const ValueId shape = b.node(OpType::kShape, {x});
  const ValueId n =
      b.node(OpType::kGather, {shape, b.constant("zero", TensorData::vector_i64({0}))}, axis0);
  const ValueId target = b.node(OpType::kConcat,
                                {b.constant("three", TensorData::vector_i64({3})), n,
                                 b.constant("two", TensorData::vector_i64({2}))},
                                axis0);
  Attributes perm;
  perm.set("perm", std::vector<int64_t>{2, 1, 0});
  b.output(b.node(OpType::kTranspose, {b.node(OpType::kReshape, {x, target})}, perm));
  Graph g = b.build();
  for (bool bind : {false, true}) {
    SCOPED_TRACE(bind ? "dims bound" : "symbolic");
    if (bind) g.value(g.inputs[0]).shape = Shape{4, 6};
    ASSERT_TRUE(infer_shapes(g).is_ok());
    Graph copy = copy_for_reinference(g);
    for (const Value& v : copy.values) EXPECT_FALSE(v.sym_value.has_value()) << v.name;
    for (const Node& node : copy.nodes) EXPECT_EQ(node.resolved.index(), 0u) << node.name;
    ASSERT_TRUE(infer_shapes(copy).is_ok());
    EXPECT_TRUE(copy == g);
    for (size_t i = 0; i < g.values.size(); ++i)
      EXPECT_EQ(copy.values[i].sym_value, g.values[i].sym_value) << g.values[i].name;
    for (size_t i = 0; i < g.nodes.size(); ++i)
      EXPECT_EQ(copy.nodes[i].resolved.index(), g.nodes[i].resolved.index()) << g.nodes[i].name;
  }
  EXPECT_EQ(*g.value(g.outputs[0]).shape, (Shape{2, 4, 3}));
  ASSERT_TRUE(g.value(n).sym_value.has_value());
  EXPECT_EQ((*g.value(n).sym_value)[0].constant_value(), 4);
}

}  // namespace
}  // namespace amp::graph
