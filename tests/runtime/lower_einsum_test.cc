// LowerEinsum (graph/passes/lower_einsum.h), before and after: each equation as exporters
// write it (attention products, a Linear layer, Transformer-XL's relative attention, an
// ellipsis, a size-1 batch dim) becomes the expected Transposes and MatMul and computes the
// same numbers as the Einsum kernel; equations outside its conditions keep their Einsum.
#include "graph/passes/lower_einsum.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "graph/ir/graph_builder.h"
#include "graph/ops/shape_inference.h"
#include "graph/passes/pipelines.h"
#include "tests/test_util/graph_runner.h"
#include "tests/test_util/test_models.h"

namespace amp::graph {
namespace {

Graph einsum_graph(const std::string& equation, Shape a, Shape b) {
  GraphBuilder g;
  ValueId x = g.input("x", DType::kF32, std::move(a));
  ValueId y = g.input("y", DType::kF32, std::move(b));
  Attributes attrs;
  attrs.set("equation", equation);
  g.output(g.node(OpType::kEinsum, {x, y}, attrs));
  return g.build();
}

std::vector<OpType> ops_of(const Graph& g) {
  std::vector<OpType> ops;
  for (const Node& n : g.nodes) ops.push_back(n.op);
  return ops;
}

// Lowers `equation` on inputs of these dims, expects the ops `expected`, and the same
// output as the Einsum kernel (the fp32 sums differ only in their order).
Graph expect_lowered(const std::string& equation, const std::vector<int64_t>& a,
                     const std::vector<int64_t>& b, const std::vector<OpType>& expected) {
  Graph g = einsum_graph(equation, Shape::from_static(a), Shape::from_static(b));
  EXPECT_TRUE(infer_shapes(g).is_ok());
  const std::map<std::string, TensorData> in = {{"x", test::random_f32(a, 2.0f, 3)},
                                                {"y", test::random_f32(b, 2.0f, 4)}};
  auto before = test::run_graph(g, in);
  EXPECT_TRUE(before.is_ok()) << equation << ": " << before.status().to_string();
  Graph lowered = g;
  const Status s = run_runtime_passes(lowered);
  EXPECT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_EQ(ops_of(lowered), expected) << equation;
  auto after = test::run_graph(lowered, in);
  EXPECT_TRUE(after.is_ok()) << equation << ": " << after.status().to_string();
  if (!before.is_ok() || !after.is_ok()) return lowered;
  EXPECT_EQ((*before)[0].dims(), (*after)[0].dims()) << equation;
  const std::vector<double> x = (*before)[0].to_f64_vector(), y = (*after)[0].to_f64_vector();
  EXPECT_EQ(x.size(), y.size());
  double worst = 0;
  for (size_t i = 0; i < x.size() && i < y.size(); ++i)
    worst = std::max(worst, std::abs(x[i] - y[i]) / (1.0 + std::abs(x[i])));
  EXPECT_LE(worst, 1e-5) << equation;
  return lowered;
}

const OpType kT = OpType::kTranspose, kMM = OpType::kMatMul;

TEST(LowerEinsum, AttentionProductsBecomeMatMuls) {
  // Q K^T: K is transposed to [b, h, d, j]; the MatMul keeps the Einsum's name.
  Graph g = expect_lowered("bhid,bhjd->bhij", {2, 3, 5, 4}, {2, 3, 6, 4}, {kT, kMM});
  EXPECT_EQ(g.nodes[0].attrs.get_ints("perm").value(), (std::vector<int64_t>{0, 1, 3, 2}));
  EXPECT_EQ(g.nodes[1].name,
            einsum_graph("bhid,bhjd->bhij", {2, 3, 5, 4}, {2, 3, 6, 4}).nodes[0].name);
  // P V needs nothing around it.
  expect_lowered("bhij,bhjd->bhid", {2, 3, 5, 6}, {2, 3, 6, 4}, {kMM});
  // MaxViT's spelling: the heads axis after the positions.
  expect_lowered("bihd,bjhd->bhij", {2, 5, 3, 4}, {2, 6, 3, 4}, {kT, kT, kMM});
}

TEST(LowerEinsum, LinearLayerRelativeAttentionEllipsisAndBroadcast) {
  // B lacks the batch label: MatMul's rank broadcasting.
  expect_lowered("bij,jk->bik", {2, 5, 4}, {4, 3}, {kMM});
  // Transformer-XL's scores and its attention-weighted values (output reordered).
  expect_lowered("ibnd,jbnd->bnij", {5, 2, 3, 4}, {6, 2, 3, 4}, {kT, kT, kMM});
  expect_lowered("bnij,jbnd->ibnd", {2, 3, 5, 6}, {6, 2, 3, 4}, {kT, kMM, kT});
  // An ellipsis whose leading dim only A has.
  expect_lowered("...id,...jd->...ij", {2, 3, 5, 4}, {3, 6, 4}, {kT, kMM});
  // A batch label of size 1 in A.
  expect_lowered("bhid,bhjd->bhij", {2, 1, 5, 4}, {2, 3, 6, 4}, {kT, kMM});
  // An m label other than m* becomes a batch label B lacks, in front.
  expect_lowered("aik,kj->aij", {3, 5, 4}, {4, 6}, {kMM});
}

TEST(LowerEinsum, OtherEquationsKeepTheirEinsum) {
  for (const auto& [eq, a, b] :
       std::vector<std::tuple<std::string, std::vector<int64_t>, std::vector<int64_t>>>{
           {"ij,ij->ij", {3, 4}, {3, 4}},            // no summed label
           {"ijk,jk->i", {2, 3, 4}, {3, 4}},         // two summed labels
           {"bij,jk->ik", {2, 3, 4}, {4, 5}},        // b summed within A alone
           {"bik,kjc->bcij", {2, 3, 4}, {4, 5, 6}},  // c missing from A after b
           {"iij,jk->ik", {3, 3, 4}, {4, 5}},        // a diagonal
           {"ij,j->i", {3, 4}, {4}}}) {              // no n label
    Graph g = einsum_graph(eq, Shape::from_static(a), Shape::from_static(b));
    ASSERT_TRUE(infer_shapes(g).is_ok()) << eq;
    ASSERT_TRUE(run_runtime_passes(g).is_ok()) << eq;
    EXPECT_EQ(ops_of(g), std::vector<OpType>{OpType::kEinsum}) << eq;
  }
  // A summed label whose sizes are two unnamed symbols (they might differ at run time).
  Graph g = einsum_graph("ij,jk->ik", Shape({Dim(3), Dim()}), Shape({Dim(), Dim(5)}));
  ASSERT_TRUE(infer_shapes(g).is_ok());
  ASSERT_TRUE(run_runtime_passes(g).is_ok());
  EXPECT_EQ(ops_of(g), std::vector<OpType>{OpType::kEinsum});
  // The same named symbol lowers.
  Graph named = einsum_graph("ij,jk->ik", Shape({Dim(3), Dim::symbolic("K")}),
                             Shape({Dim::symbolic("K"), Dim(5)}));
  ASSERT_TRUE(infer_shapes(named).is_ok());
  ASSERT_TRUE(run_runtime_passes(named).is_ok());
  EXPECT_EQ(ops_of(named), std::vector<OpType>{kMM});
}

}  // namespace
}  // namespace amp::graph
