#include <gtest/gtest.h>

#include "graph/ir/graph_builder.h"
#include "graph/ir/verifier.h"

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

}  // namespace
}  // namespace amp::graph
