// ConstantFolding and DeadCodeElimination, tested XNNPACK-style: build the graph before,
// run the pass, compare with the graph expected after.
#include "graph/passes/constant_folding.h"

#include <gtest/gtest.h>

#include "graph/ir/graph_builder.h"
#include "graph/ir/verifier.h"
#include "graph/ops/shape_inference.h"
#include "graph/passes/dead_code_elimination.h"
#include "graph/passes/pipelines.h"

namespace amp::graph {
namespace {

Attributes attrs_axis(int64_t axis) {
  Attributes a;
  a.set("axis", axis);
  return a;
}

std::vector<OpType> ops_of(const Graph& g) {
  std::vector<OpType> ops;
  for (const Node& n : g.nodes) ops.push_back(n.op);
  return ops;
}

// The PyTorch-export flatten idiom on a static shape:
//
//   x[2,3,4,4] --Shape--> [4] --Gather(0)--> [] --Unsqueeze--> [1] --Concat(-1)--> [2]
//        \                                                                          |
//         `----------------------------- Reshape <----------------------------------'
// after:
//   x[2,3,4,4] -- Reshape(const [2,-1]) --> y[2,48]
TEST(ConstantFolding, FoldsStaticShapeChainIntoReshape) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, {2, 3, 4, 4});
  ValueId shape = b.node(OpType::kShape, {x});
  ValueId zero = b.constant("zero", TensorData::scalar_i64(0));
  ValueId batch = b.node(OpType::kGather, {shape, zero}, attrs_axis(0));
  ValueId axes = b.constant("axes", TensorData::vector_i64({0}));
  ValueId batch1 = b.node(OpType::kUnsqueeze, {batch, axes});
  ValueId minus1 = b.constant("minus1", TensorData::vector_i64({-1}));
  ValueId target = b.node(OpType::kConcat, {batch1, minus1}, attrs_axis(0));
  ValueId y = b.node(OpType::kReshape, {x, target});
  b.output(y);
  Graph g = b.build();

  ASSERT_TRUE(run_conversion_passes(g).is_ok()) << run_conversion_passes(g).to_string();
  ASSERT_EQ(ops_of(g), std::vector<OpType>{OpType::kReshape});
  const Value& shape_in = g.value(g.nodes[0].inputs[1]);
  ASSERT_TRUE(shape_in.is_constant());
  EXPECT_EQ(*shape_in.constant->to_i64_vector(), (std::vector<int64_t>{2, -1}));
  EXPECT_EQ(*g.value(g.outputs[0]).shape, (Shape{2, 48}));
  EXPECT_TRUE(verify_graph(g).is_ok());
}

// A weight wrapped in Transpose + Cast by an exporter is folded into one constant:
//   w[2,3] f64 --Transpose--> --Cast(f32)--> MatMul(x, .)
TEST(ConstantFolding, FoldsWeightTransformsAndKeepsValues) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, {1, 2});
  ValueId w =
      b.constant("w", TensorData::from_vector<double>(DType::kF64, {3, 2}, {1, 2, 3, 4, 5, 6}));
  ValueId wt = b.node(OpType::kTranspose, {w});
  Attributes to_f32;
  to_f32.set("to", int64_t{1});
  ValueId wf = b.node(OpType::kCast, {wt}, to_f32);
  ValueId y = b.node(OpType::kMatMul, {x, wf});
  b.output(y);
  Graph g = b.build();

  ASSERT_TRUE(run_conversion_passes(g).is_ok());
  ASSERT_EQ(ops_of(g), std::vector<OpType>{OpType::kMatMul});
  const TensorData& folded = *g.value(g.nodes[0].inputs[1]).constant;
  EXPECT_EQ(folded.dtype(), DType::kF32);
  EXPECT_EQ(folded.dims(), (std::vector<int64_t>{2, 3}));
  const float* p = folded.data<float>();
  EXPECT_EQ(std::vector<float>(p, p + 6), (std::vector<float>{1, 3, 5, 2, 4, 6}));
}

// Shape of a symbolic input is not folded (and must not be).
TEST(ConstantFolding, LeavesSymbolicShapesAlone) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, Shape({Dim::symbolic("N"), Dim(3)}));
  ValueId s = b.node(OpType::kShape, {x});
  b.output(s);
  Graph g = b.build();
  ASSERT_TRUE(run_conversion_passes(g).is_ok());
  EXPECT_EQ(ops_of(g), std::vector<OpType>{OpType::kShape});
}

// A huge ConstantOfShape stays a node rather than bloating the file.
TEST(ConstantFolding, DoesNotMaterializeHugeConstants) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, {1024, 1024});
  ValueId shape = b.constant("shape", TensorData::vector_i64({1024, 1024}));
  ValueId zeros = b.node(OpType::kConstantOfShape, {shape});
  ValueId y = b.node(OpType::kAdd, {x, zeros});
  b.output(y);
  Graph g = b.build();
  ASSERT_TRUE(run_conversion_passes(g).is_ok());
  EXPECT_EQ(ops_of(g), (std::vector<OpType>{OpType::kConstantOfShape, OpType::kAdd}));
}

TEST(ConstantFolding, GatherIndexOutOfRangeIsAnErrorNamingTheNode) {
  GraphBuilder b;
  ValueId data = b.constant("data", TensorData::vector_i64({1, 2, 3}));
  ValueId idx = b.constant("idx", TensorData::scalar_i64(7));
  ValueId y = b.node(OpType::kGather, {data, idx}, attrs_axis(0), "bad_gather");
  b.output(y);
  Graph g = b.build();
  Status s = run_conversion_passes(g);
  EXPECT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("bad_gather"), std::string::npos) << s.message();
}

// What a plan build does: set x's dims to [4, 6] without inferring anything, then fold,
// which infers each node once as it reaches it. The Reshape's target goes through float,
// which symbolic shape values do not follow, so only folding it tells the Reshape (and the
// Relu after it) their shapes. The result must equal inferring the bound graph first and
// folding after.
//
//   x[N,6] --Shape--Cast(f32)--Mul(0.5, 2)--Cast(i64)--> target
//   x --Reshape(target reversed by Concat of its Gathers: [6, N])--> Relu --> y
//   x --Sigmoid--> z
TEST(ConstantFolding, InfersAnUninferredBoundGraphAsItFolds) {
  GraphBuilder b;
  const ValueId x = b.input("x", DType::kF32, Shape({Dim::symbolic("N"), Dim(6)}));
  Attributes to_f32, to_i64;
  to_f32.set("to", int64_t{1});
  to_i64.set("to", int64_t{7});
  const ValueId shape_f = b.node(OpType::kCast, {b.node(OpType::kShape, {x})}, to_f32);
  const ValueId halves =
      b.constant("halves", TensorData::from_vector<float>(DType::kF32, {2}, {0.5f, 0.5f}));
  const ValueId twos =
      b.constant("twos", TensorData::from_vector<float>(DType::kF32, {2}, {2.0f, 2.0f}));
  const ValueId same =
      b.node(OpType::kCast, {b.node(OpType::kMul, {b.node(OpType::kMul, {shape_f, halves}), twos})},
             to_i64);
  const ValueId one = b.constant("one", TensorData::vector_i64({1}));
  const ValueId zero = b.constant("zero", TensorData::vector_i64({0}));
  const ValueId target = b.node(OpType::kConcat,
                                {b.node(OpType::kGather, {same, one}, attrs_axis(0)),
                                 b.node(OpType::kGather, {same, zero}, attrs_axis(0))},
                                attrs_axis(0));
  const ValueId y = b.node(OpType::kRelu, {b.node(OpType::kReshape, {x, target})});
  const ValueId z = b.node(OpType::kSigmoid, {x});
  b.output(y);
  b.output(z);
  Graph bound = copy_for_reinference(b.build());
  bound.value(bound.inputs[0]).shape = Shape{4, 6};
  Graph inferred_first = bound;
  ASSERT_TRUE(infer_shapes(inferred_first).is_ok());
  EXPECT_FALSE(inferred_first.value(inferred_first.outputs[0]).shape->is_static());

  ASSERT_TRUE(ConstantFolding().run(bound).is_ok());
  ASSERT_TRUE(ConstantFolding().run(inferred_first).is_ok());
  const Graph& everything = inferred_first;

  EXPECT_EQ(*bound.value(bound.outputs[0]).shape, (Shape{6, 4}));
  EXPECT_EQ(*bound.value(bound.outputs[1]).shape, (Shape{4, 6}));
  EXPECT_TRUE(bound == everything);
  ASSERT_EQ(bound.values.size(), everything.values.size());
  for (size_t i = 0; i < bound.values.size(); ++i)
    EXPECT_EQ(bound.values[i].sym_value, everything.values[i].sym_value) << bound.values[i].name;
  EXPECT_EQ(ops_of(bound),
            (std::vector<OpType>{OpType::kReshape, OpType::kRelu, OpType::kSigmoid}));
}

// An evaluator that folds nothing.
class DecliningEvaluator : public ConstantEvaluator {
 public:
  Result<std::optional<std::vector<TensorData>>> evaluate(
      const Node&, const std::vector<const Value*>&, const std::vector<const Value*>&) override {
    return std::optional<std::vector<TensorData>>();
  }
};

// A node with constant inputs is inferred without symbolic values when it is about to fold;
// when the evaluator declines it, it must get them after all, since the Reshape reads its
// target's elements through them.
//
//   Concat([2], [3]) --> target;  x[6] --Reshape(target)--> y
TEST(ConstantFolding, ANodeTheEvaluatorDeclinesKeepsItsSymbolicValues) {
  GraphBuilder b;
  const ValueId x = b.input("x", DType::kF32, Shape{6});
  const ValueId two = b.constant("two", TensorData::vector_i64({2}));
  const ValueId three = b.constant("three", TensorData::vector_i64({3}));
  const ValueId target = b.node(OpType::kConcat, {two, three}, attrs_axis(0));
  b.output(b.node(OpType::kReshape, {x, target}));
  Graph g = copy_for_reinference(b.build());

  ConstantFolding folding(std::make_shared<DecliningEvaluator>());
  ASSERT_TRUE(folding.run(g).is_ok());
  EXPECT_EQ(ops_of(g), (std::vector<OpType>{OpType::kConcat, OpType::kReshape}));
  EXPECT_EQ(*g.value(g.outputs[0]).shape, (Shape{2, 3}));
}

//   x --Relu--> y (output)
//   x --Neg--> dead --Abs--> dead2        (removed, with the unused constant)
TEST(DeadCodeElimination, RemovesUnreachableNodesAndValues) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, {4});
  b.constant("unused", TensorData::scalar_f32(3.0f));
  ValueId y = b.node(OpType::kRelu, {x});
  ValueId dead = b.node(OpType::kNeg, {x});
  b.node(OpType::kAbs, {dead});
  b.output(y);
  Graph g = b.build();
  DeadCodeElimination dce;
  auto changed = dce.run(g);
  ASSERT_TRUE(changed.is_ok());
  EXPECT_TRUE(*changed);
  EXPECT_EQ(ops_of(g), std::vector<OpType>{OpType::kRelu});
  EXPECT_EQ(g.values.size(), 2u);  // x and y
  EXPECT_TRUE(verify_graph(g).is_ok());
  EXPECT_FALSE(*dce.run(g));  // idempotent
}

}  // namespace
}  // namespace amp::graph
