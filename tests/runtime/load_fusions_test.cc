// The load-time fusions, before and after: FuseDecomposedOps
// (graph/passes/fuse_decomposed_ops.h), FuseMatMulBias (graph/passes/fuse_matmul_bias.h) and
// FoldAddIntoConvBias (graph/passes/fold_conv_bias_add.h) and FoldBatchNormIntoConv
// (graph/passes/fuse_batchnorm.h) on a ConvTranspose, FuseChannelShuffle
// (graph/passes/fuse_channel_shuffle.h) and GlobalPoolFromReduce
// (graph/passes/global_pool_from_reduce.h), with FuseActivation after them, and
// EliminateIdentity (graph/passes/eliminate_identity.h) before them all. Each
// exported spelling is built with the GraphBuilder, run through the load-time passes, and checked
// for the ops left and for the same numbers as the unfused graph (both run on the CPU kernels).
// Near misses (a value used outside the pattern, a wrong constant) stay unfused.
#include "graph/passes/fold_conv_bias_add.h"
#include "graph/passes/fuse_decomposed_ops.h"
#include "graph/passes/fuse_matmul_bias.h"

#include <gtest/gtest.h>

#include <cmath>

#include "graph/ir/graph_builder.h"
#include "graph/ops/shape_inference.h"
#include "graph/passes/pipelines.h"
#include "tests/test_util/graph_runner.h"
#include "tests/test_util/test_models.h"

namespace amp::graph {
namespace {

std::vector<OpType> ops_of(const Graph& g) {
  std::vector<OpType> ops;
  for (const Node& n : g.nodes) ops.push_back(n.op);
  return ops;
}

ValueId scalar(GraphBuilder& b, const std::string& name, float v) {
  return b.constant(name, TensorData::scalar_f32(v));
}

ValueId vec(GraphBuilder& b, const std::string& name, std::vector<int64_t> dims, float base) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = base + 0.1f * static_cast<float>(i % 7);
  return b.constant(name, TensorData::from_vector<float>(DType::kF32, std::move(dims), v));
}

// Runs `g` unfused and after the load-time passes on input "x"; expects the fused graph's
// ops to be `expected` and its output within `tol` of the unfused one. Returns the fused
// graph for further checks.
Graph expect_fused(Graph g, const std::vector<int64_t>& x_dims, const std::vector<OpType>& expected,
                   double tol = 2e-5) {
  EXPECT_TRUE(infer_shapes(g).is_ok());
  const std::map<std::string, TensorData> in = {{"x", test::random_f32(x_dims, 3.0f, 7)}};
  auto before = test::run_graph(g, in);
  EXPECT_TRUE(before.is_ok()) << before.status().to_string();
  Graph fused = g;
  const Status s = run_runtime_passes(fused);
  EXPECT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_EQ(ops_of(fused), expected);
  auto after = test::run_graph(fused, in);
  EXPECT_TRUE(after.is_ok()) << after.status().to_string();
  if (!before.is_ok() || !after.is_ok()) return fused;
  const std::vector<double> a = (*before)[0].to_f64_vector(), b = (*after)[0].to_f64_vector();
  EXPECT_EQ(a.size(), b.size());
  double worst = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i)
    worst = std::max(worst, std::abs(a[i] - b[i]) / (1.0 + std::abs(a[i])));
  EXPECT_LE(worst, tol);
  return fused;
}

Attributes keepdims() {
  Attributes a;
  a.set("keepdims", int64_t{1});
  return a;
}

// PyTorch < opset 17:  u = mean(x); d = x - u; d / sqrt(mean(d^2) + eps) * gamma + beta.
// `mul_square`: d * d for Pow(d, 2); `gamma_dims`: gamma as [D] or [1, 1, D].
Graph layer_norm_graph(bool mul_square, std::vector<int64_t> gamma_dims, bool with_beta,
                       bool mean_is_output = false) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, {2, 5, 8});
  ValueId axes = b.constant("axes", TensorData::vector_i64({-1}));
  ValueId mean = b.node(OpType::kReduceMean, {x, axes}, keepdims());
  ValueId d = b.node(OpType::kSub, {x, mean});
  ValueId sq =
      mul_square ? b.node(OpType::kMul, {d, d}) : b.node(OpType::kPow, {d, scalar(b, "two", 2.0f)});
  ValueId var = b.node(OpType::kReduceMean, {sq, axes}, keepdims());
  ValueId sd = b.node(OpType::kSqrt, {b.node(OpType::kAdd, {var, scalar(b, "eps", 1e-5f)})});
  ValueId y = b.node(OpType::kDiv, {d, sd});
  y = b.node(OpType::kMul, {vec(b, "gamma", std::move(gamma_dims), 0.5f), y});
  if (with_beta) y = b.node(OpType::kAdd, {y, vec(b, "beta", {8}, -0.2f)});
  b.output(y);
  if (mean_is_output) b.output(mean);
  return b.build();
}

TEST(FuseDecomposedOps, LayerNormAsPyTorchExportsIt) {
  Graph g =
      expect_fused(layer_norm_graph(false, {8}, true), {2, 5, 8}, {OpType::kLayerNormalization});
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].inputs.size(), 3u);
  EXPECT_NEAR(*g.nodes[0].attrs.get_float("epsilon", 0), 1e-5f, 1e-12);
}

TEST(FuseDecomposedOps, LayerNormWithSquareAsMulAndBroadcastGammaNoBeta) {
  Graph g = expect_fused(layer_norm_graph(true, {1, 1, 8}, false), {2, 5, 8},
                         {OpType::kLayerNormalization});
  ASSERT_EQ(g.nodes.size(), 1u);
  ASSERT_EQ(g.nodes[0].inputs.size(), 2u);
  EXPECT_EQ(g.value(g.nodes[0].inputs[1]).constant->dims(), (std::vector<int64_t>{8}));
}

TEST(FuseDecomposedOps, LayerNormWhoseMeanIsAlsoAnOutputStaysDecomposed) {
  Graph g = layer_norm_graph(false, {8}, true, /*mean_is_output=*/true);
  ASSERT_TRUE(infer_shapes(g).is_ok());
  const std::vector<OpType> before = ops_of(g);
  ASSERT_TRUE(run_runtime_passes(g).is_ok());
  EXPECT_EQ(ops_of(g), before);
}

// x * 0.5 * (1 + erf(x / sqrt 2)): `half_first` (x * 0.5) * (1 + ...), else
// (x * (1 + ...)) * 0.5 as torch.nn.GELU exports; `mul_scale` x * (1 / sqrt 2).
Graph gelu_erf_graph(bool half_first, bool mul_scale, float sqrt2 = 1.4142135f) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, {3, 16});
  ValueId t = mul_scale ? b.node(OpType::kMul, {x, scalar(b, "inv_sqrt2", 1.0f / sqrt2)})
                        : b.node(OpType::kDiv, {x, scalar(b, "sqrt2", sqrt2)});
  ValueId one_plus = b.node(OpType::kAdd, {scalar(b, "one", 1.0f), b.node(OpType::kErf, {t})});
  ValueId y;
  if (half_first) {
    y = b.node(OpType::kMul, {b.node(OpType::kMul, {x, scalar(b, "half", 0.5f)}), one_plus});
  } else {
    y = b.node(OpType::kMul, {b.node(OpType::kMul, {x, one_plus}), scalar(b, "half", 0.5f)});
  }
  b.output(y);
  return b.build();
}

TEST(FuseDecomposedOps, GeluErfBothOrders) {
  expect_fused(gelu_erf_graph(true, false), {3, 16}, {OpType::kGelu});
  expect_fused(gelu_erf_graph(false, true), {3, 16}, {OpType::kGelu});
}

TEST(FuseDecomposedOps, GeluWithAWrongConstantStaysDecomposed) {
  Graph g = gelu_erf_graph(true, false, /*sqrt2=*/1.5f);
  ASSERT_TRUE(infer_shapes(g).is_ok());
  const std::vector<OpType> before = ops_of(g);
  ASSERT_TRUE(run_runtime_passes(g).is_ok());
  EXPECT_EQ(ops_of(g), before);
}

// HF gelu_new: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))).
Graph gelu_tanh_graph(bool pow_cube) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, {3, 16});
  ValueId cube = pow_cube ? b.node(OpType::kPow, {x, scalar(b, "three", 3.0f)})
                          : b.node(OpType::kMul, {x, b.node(OpType::kMul, {x, x})});
  ValueId inner =
      b.node(OpType::kAdd, {x, b.node(OpType::kMul, {scalar(b, "c", 0.044715f), cube})});
  ValueId t = b.node(OpType::kTanh, {b.node(OpType::kMul, {inner, scalar(b, "k", 0.7978845608f)})});
  ValueId one_plus = b.node(OpType::kAdd, {t, scalar(b, "one", 1.0f)});
  ValueId y = b.node(OpType::kMul, {b.node(OpType::kMul, {scalar(b, "half", 0.5f), x}), one_plus});
  b.output(y);
  return b.build();
}

TEST(FuseDecomposedOps, GeluTanhWithPowOrProducts) {
  for (bool pow_cube : {true, false}) {
    Graph g = expect_fused(gelu_tanh_graph(pow_cube), {3, 16}, {OpType::kGelu});
    ASSERT_EQ(g.nodes.size(), 1u);
    EXPECT_EQ(*g.nodes[0].attrs.get_string("approximate", ""), "tanh");
  }
}

// PaddlePaddle's hard_swish after a conv: x * Clip(x + 3, 0, 6) / 6 becomes HardSwish and
// then the conv's epilogue.
TEST(FuseDecomposedOps, HardSwishAfterConvBecomesItsEpilogue) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, {1, 3, 6, 6});
  ValueId c = b.node(OpType::kConv, {x, vec(b, "w", {4, 3, 3, 3}, -0.3f), vec(b, "bias", {4}, 0)});
  ValueId clip = b.node(OpType::kClip, {b.node(OpType::kAdd, {c, scalar(b, "three", 3.0f)}),
                                        scalar(b, "lo", 0.0f), scalar(b, "hi", 6.0f)});
  ValueId y = b.node(OpType::kDiv, {b.node(OpType::kMul, {c, clip}), scalar(b, "six", 6.0f)});
  b.output(y);
  Graph g = expect_fused(b.build(), {1, 3, 6, 6}, {OpType::kConv});
  EXPECT_EQ(*g.nodes[0].attrs.get_string("fused_activation", ""), "HardSwish");
}

// SiLU as PyTorch exports it (YOLOv5/v8): Conv, then Mul of its output and its Sigmoid, in
// either order; a BatchNorm between them folds first.
TEST(FuseActivation, SiluAfterConvBecomesItsSwishEpilogue) {
  for (bool sigmoid_first : {false, true}) {
    GraphBuilder b;
    ValueId x = b.input("x", DType::kF32, {1, 3, 6, 6});
    ValueId c = b.node(OpType::kConv, {x, vec(b, "w", {4, 3, 3, 3}, -0.3f)});
    c = b.node(OpType::kBatchNormalization,
               {c, vec(b, "scale", {4}, 0.9f), vec(b, "shift", {4}, -0.1f),
                vec(b, "mean", {4}, 0.05f), vec(b, "var", {4}, 0.8f)});
    ValueId s = b.node(OpType::kSigmoid, {c});
    b.output(b.node(OpType::kMul,
                    sigmoid_first ? std::vector<ValueId>{s, c} : std::vector<ValueId>{c, s}));
    Graph g = expect_fused(b.build(), {1, 3, 6, 6}, {OpType::kConv});
    EXPECT_EQ(*g.nodes[0].attrs.get_string("fused_activation", ""), "Swish");
  }
}

TEST(FuseActivation, SiluNearMissesStayUnfused) {
  {  // The conv output is also read elsewhere.
    GraphBuilder b;
    ValueId x = b.input("x", DType::kF32, {1, 3, 6, 6});
    ValueId c = b.node(OpType::kConv, {x, vec(b, "w", {4, 3, 3, 3}, -0.3f)});
    ValueId y = b.node(OpType::kMul, {c, b.node(OpType::kSigmoid, {c})});
    b.output(b.node(OpType::kAdd, {y, c}));
    expect_fused(b.build(), {1, 3, 6, 6},
                 {OpType::kConv, OpType::kSigmoid, OpType::kMul, OpType::kAdd});
  }
  {  // A gate of another value: x * Sigmoid(Neg(x)).
    GraphBuilder b;
    ValueId x = b.input("x", DType::kF32, {1, 3, 6, 6});
    ValueId c = b.node(OpType::kConv, {x, vec(b, "w", {4, 3, 3, 3}, -0.3f)});
    b.output(b.node(OpType::kMul, {c, b.node(OpType::kSigmoid, {b.node(OpType::kNeg, {c})})}));
    expect_fused(b.build(), {1, 3, 6, 6},
                 {OpType::kConv, OpType::kNeg, OpType::kSigmoid, OpType::kMul});
  }
  {  // The Sigmoid is an output too.
    GraphBuilder b;
    ValueId x = b.input("x", DType::kF32, {1, 3, 6, 6});
    ValueId c = b.node(OpType::kConv, {x, vec(b, "w", {4, 3, 3, 3}, -0.3f)});
    ValueId s = b.node(OpType::kSigmoid, {c});
    b.output(b.node(OpType::kMul, {c, s}));
    b.output(s);
    expect_fused(b.build(), {1, 3, 6, 6}, {OpType::kConv, OpType::kSigmoid, OpType::kMul});
  }
}

// HardSigmoid(alpha 1/6, beta 1/2): x times it is HardSwish.
Attributes hard_sigmoid_sixth() {
  Attributes a;
  a.set("alpha", 1.0f / 6.0f);
  a.set("beta", 0.5f);
  return a;
}

TEST(FuseDecomposedOps, HardSwishFromHardSigmoid) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, {2, 12});
  ValueId y = b.node(OpType::kMul, {b.node(OpType::kHardSigmoid, {x}, hard_sigmoid_sixth()), x});
  b.output(y);
  expect_fused(b.build(), {2, 12}, {OpType::kHardSwish});
}

TEST(FuseDecomposedOps, SqueezeExcitationScaleIsNoHardSwish) {
  // x * HardSigmoid(f(x)) scales by another value: not x * HardSigmoid(x).
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, {2, 12});
  ValueId gate = b.node(OpType::kHardSigmoid, {b.node(OpType::kNeg, {x})}, hard_sigmoid_sixth());
  b.output(b.node(OpType::kMul, {x, gate}));
  expect_fused(b.build(), {2, 12}, {OpType::kNeg, OpType::kHardSigmoid, OpType::kMul});
}

// A Linear layer on [batch, tokens, features] as exporters write it, then GELU:
// MatMul + Add(bias) + Gelu becomes Reshape -> Gemm (bias, Gelu epilogue) -> Reshape.
TEST(FuseMatMulBias, LinearWithGeluOnATokenBatchBecomesOneGemm) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, Shape({Dim::symbolic("N"), Dim(5), Dim(8)}));
  ValueId y = b.node(OpType::kMatMul, {x, vec(b, "w", {8, 6}, -0.3f)});
  y = b.node(OpType::kAdd, {vec(b, "bias", {6}, 0.1f), y});
  b.output(b.node(OpType::kGelu, {y}));
  Graph g = expect_fused(b.build(), {3, 5, 8}, {OpType::kReshape, OpType::kGemm, OpType::kReshape});
  ASSERT_EQ(g.nodes.size(), 3u);
  EXPECT_EQ(*g.nodes[1].attrs.get_string("fused_activation", ""), "Gelu");
  EXPECT_EQ(*g.value(g.nodes[2].inputs[1]).constant->to_i64_vector(),
            (std::vector<int64_t>{-1, 5, 6}));
  EXPECT_FALSE(g.value(g.outputs[0]).shape->dims[0].is_static());  // -1: bound at run time
}

TEST(FuseMatMulBias, TwoDimensionalNeedsNoReshape) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, {4, 8});
  ValueId y = b.node(OpType::kMatMul, {x, vec(b, "w", {8, 6}, -0.3f)});
  b.output(b.node(OpType::kAdd, {y, vec(b, "bias", {1, 6}, 0.1f)}));
  expect_fused(b.build(), {4, 8}, {OpType::kGemm});
}

TEST(FuseMatMulBias, ABiasThatBroadcastsRowsOrAVariableWeightStaysAMatMul) {
  for (int variant = 0; variant < 2; ++variant) {
    GraphBuilder b;
    ValueId x = b.input("x", DType::kF32, {4, 8});
    ValueId w = variant == 0 ? vec(b, "w", {8, 6}, -0.3f) : b.input("w", DType::kF32, {8, 6});
    ValueId y = b.node(OpType::kMatMul, {x, w});
    // variant 0: a [4, 1] bias adds per row, not per column.
    ValueId bias = variant == 0 ? vec(b, "bias", {4, 1}, 0.1f) : vec(b, "bias", {6}, 0.1f);
    b.output(b.node(OpType::kAdd, {y, bias}));
    Graph g = b.build();
    ASSERT_TRUE(infer_shapes(g).is_ok());
    ASSERT_TRUE(run_runtime_passes(g).is_ok());
    EXPECT_EQ(ops_of(g), (std::vector<OpType>{OpType::kMatMul, OpType::kAdd})) << variant;
  }
}

// CNTK's mnist-8 (and tf2onnx's BiasAdd): a bias-less Conv, the Add of a [C, 1, 1] constant,
// then Relu. The Add becomes the conv's bias, and so the Relu its epilogue.
TEST(FoldAddIntoConvBias, ChannelConstantBecomesTheBiasAndReluTheEpilogue) {
  for (const std::vector<int64_t>& c_dims :
       {std::vector<int64_t>{4, 1, 1}, {1, 4, 1, 1}, {1}, std::vector<int64_t>{}}) {
    GraphBuilder b;
    ValueId x = b.input("x", DType::kF32, {2, 3, 6, 6});
    ValueId y = b.node(OpType::kConv, {x, vec(b, "w", {4, 3, 3, 3}, -0.3f)});
    y = b.node(OpType::kAdd, {vec(b, "c", c_dims, 0.7f), y});
    b.output(b.node(OpType::kRelu, {y}));
    Graph g = expect_fused(b.build(), {2, 3, 6, 6}, {OpType::kConv});
    ASSERT_EQ(g.nodes[0].inputs.size(), 3u);
    EXPECT_EQ(g.value(g.nodes[0].inputs[2]).constant->dims(), (std::vector<int64_t>{4}));
    EXPECT_EQ(*g.nodes[0].attrs.get_string("fused_activation", ""), "Relu");
  }
}

// With a bias already, the constant adds to it; a ConvTranspose counts its channels from
// W's second axis times the groups.
TEST(FoldAddIntoConvBias, AddsToAnExistingBiasAndServesConvTranspose) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, {1, 4, 5, 5});
  ValueId y = b.node(OpType::kConv, {x, vec(b, "w", {4, 4, 3, 3}, -0.3f), vec(b, "b", {4}, 1)});
  y = b.node(OpType::kAdd, {y, vec(b, "c", {4, 1, 1}, -0.5f)});
  Attributes groups;
  groups.set("group", int64_t{2});
  y = b.node(OpType::kConvTranspose, {y, vec(b, "wt", {4, 3, 2, 2}, 0.2f)}, groups);
  b.output(b.node(OpType::kAdd, {y, vec(b, "ct", {1, 6, 1, 1}, 0.3f)}));
  Graph g = expect_fused(b.build(), {1, 4, 5, 5}, {OpType::kConv, OpType::kConvTranspose});
  ASSERT_EQ(g.nodes[0].inputs.size(), 3u);
  const std::vector<double> bias = g.value(g.nodes[0].inputs[2]).constant->to_f64_vector();
  EXPECT_NEAR(bias[0], 1.0 + -0.5, 1e-6);  // vec(): base + 0.1 * (i % 7)
  EXPECT_NEAR(bias[3], 1.3 + -0.2, 1e-6);
  EXPECT_EQ(g.value(g.nodes[1].inputs[2]).constant->dims(), (std::vector<int64_t>{6}));
}

// A DB text detector's head: ConvTranspose, BatchNormalization, Relu. The BN scales the
// weights of each output channel, which a ConvTranspose holds in W's second axis per group
// (W [C, M/group, k...]); the Relu becomes the epilogue. Grouped and not, with and without
// a bias, the 2x2 stride-2 form the CPU runs as a 1x1 conv among them.
TEST(FoldBatchNormIntoConv, ScalesAConvTransposesOutputChannels) {
  for (int variant = 0; variant < 3; ++variant) {
    const int64_t group = variant == 0 ? 1 : 2, k = variant == 2 ? 3 : 2;
    GraphBuilder b;
    ValueId x = b.input("x", DType::kF32, {2, 4, 5, 5});
    Attributes a;
    a.set("group", group);
    a.set("strides", std::vector<int64_t>{2, 2});
    std::vector<ValueId> ins = {x, vec(b, "w", {4, 6 / group, k, k}, -0.3f)};
    if (variant != 0) ins.push_back(vec(b, "b", {6}, 0.2f));
    ValueId y = b.node(OpType::kConvTranspose, ins, a);
    y = b.node(OpType::kBatchNormalization,
               {y, vec(b, "gamma", {6}, 0.8f), vec(b, "beta", {6}, -0.2f),
                vec(b, "mean", {6}, 0.1f), vec(b, "var", {6}, 0.5f)});
    b.output(b.node(OpType::kRelu, {y}));
    Graph g = expect_fused(b.build(), {2, 4, 5, 5}, {OpType::kConvTranspose});
    EXPECT_EQ(*g.nodes[0].attrs.get_string("fused_activation", ""), "Relu") << variant;
  }
}

// ShuffleNet's channel shuffle as torchvision exports it: Reshape [N, g, C/g, H, W],
// Transpose (0, 2, 1, 3, 4), Reshape back. It becomes one Gather of the channels, and a
// Split of its channels (the next unit's chunk) one Gather per part.
Graph shuffle_graph(int64_t c, int64_t groups, bool split, std::vector<int64_t> perm = {}) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, {2, 3, 5, 4});
  ValueId y = b.node(OpType::kConv, {x, vec(b, "w", {c, 3, 1, 1}, -0.3f)});
  y = b.node(OpType::kReshape,
             {y, b.constant("s1", TensorData::vector_i64({2, groups, c / groups, 5, 4}))});
  Attributes t;
  t.set("perm", perm.empty() ? std::vector<int64_t>{0, 2, 1, 3, 4} : perm);
  y = b.node(OpType::kTranspose, {y}, t);
  y = b.node(OpType::kReshape, {y, b.constant("s2", TensorData::vector_i64({2, c, 5, 4}))});
  if (!split) {
    b.output(b.node(OpType::kRelu, {y}));
    return b.build();
  }
  Attributes axis;
  axis.set("axis", int64_t{1});
  std::vector<ValueId> halves = b.node_multi(
      OpType::kSplit, {y, b.constant("sizes", TensorData::vector_i64({c / 2, c / 2}))}, 2, axis);
  b.output(halves[0]);
  b.output(b.node(OpType::kRelu, {halves[1]}));
  return b.build();
}

TEST(FuseChannelShuffle, ShuffleBecomesAGatherAndItsSplitAGatherPerPart) {
  for (int64_t groups : {2, 3}) {
    Graph g = expect_fused(shuffle_graph(12, groups, false), {2, 3, 5, 4},
                           {OpType::kConv, OpType::kGather, OpType::kRelu});
    const std::vector<double> idx = g.value(g.nodes[1].inputs[1]).constant->to_f64_vector();
    // Output channel k g + j reads input channel j (C / g) + k.
    EXPECT_EQ(idx[1], 12.0 / static_cast<double>(groups));
    EXPECT_EQ(idx[static_cast<size_t>(groups)], 1.0);
  }
  expect_fused(shuffle_graph(16, 2, true), {2, 3, 5, 4},
               {OpType::kConv, OpType::kGather, OpType::kGather, OpType::kRelu});
}

// Near misses: another permutation (a transpose of the spatial axes), a Reshape that splits
// H rather than the channels keep the chain; a Split along H keeps its Split.
TEST(FuseChannelShuffle, NearMissesStayAsTheyAre) {
  {
    Graph g = shuffle_graph(12, 2, false, {0, 1, 2, 4, 3});
    ASSERT_TRUE(infer_shapes(g).is_ok());
    ASSERT_TRUE(run_runtime_passes(g).is_ok());
    EXPECT_EQ(ops_of(g), (std::vector<OpType>{OpType::kConv, OpType::kReshape, OpType::kTranspose,
                                              OpType::kReshape, OpType::kRelu}));
  }
  {
    GraphBuilder b;
    ValueId x = b.input("x", DType::kF32, {1, 4, 6, 2});
    ValueId y =
        b.node(OpType::kReshape, {x, b.constant("s1", TensorData::vector_i64({1, 4, 2, 3, 2}))});
    Attributes t;
    t.set("perm", std::vector<int64_t>{0, 2, 1, 3, 4});
    y = b.node(OpType::kTranspose, {y}, t);
    b.output(b.node(OpType::kReshape, {y, b.constant("s2", TensorData::vector_i64({1, 4, 6, 2}))}));
    Graph g = b.build();
    ASSERT_TRUE(infer_shapes(g).is_ok());
    ASSERT_TRUE(run_runtime_passes(g).is_ok());
    EXPECT_EQ(ops_of(g),
              (std::vector<OpType>{OpType::kReshape, OpType::kTranspose, OpType::kReshape}));
  }
  {
    GraphBuilder b;
    ValueId x = b.input("x", DType::kF32, {2, 3, 5, 4});
    ValueId y = b.node(OpType::kConv, {x, vec(b, "w", {12, 3, 1, 1}, -0.3f)});
    y = b.node(OpType::kReshape, {y, b.constant("s1", TensorData::vector_i64({2, 2, 6, 5, 4}))});
    Attributes t;
    t.set("perm", std::vector<int64_t>{0, 2, 1, 3, 4});
    y = b.node(OpType::kTranspose, {y}, t);
    y = b.node(OpType::kReshape, {y, b.constant("s2", TensorData::vector_i64({2, 12, 5, 4}))});
    Attributes axis;
    axis.set("axis", int64_t{2});
    std::vector<ValueId> parts = b.node_multi(
        OpType::kSplit, {y, b.constant("sizes", TensorData::vector_i64({2, 3}))}, 2, axis);
    b.output(parts[0]);
    b.output(parts[1]);
    expect_fused(b.build(), {2, 3, 5, 4}, {OpType::kConv, OpType::kGather, OpType::kSplit});
  }
}

// A squeeze-and-excitation block as torch.export writes it: Conv -> ReduceMean over H, W
// (axes in any order, negative too) -> 1x1 Conv -> Sigmoid -> Mul. ReduceMean becomes
// GlobalAveragePool (and ReduceMax GlobalMaxPool; in 3-D too), so the layout plan keeps the
// convolution's output in its layout.
Graph squeeze_excitation(OpType reduce, std::vector<int64_t> axes, int64_t keepdims = 1,
                         std::vector<int64_t> x_dims = {1, 8, 6, 5}) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, Shape::from_static(x_dims));
  std::vector<int64_t> w_dims = {8, 8};
  for (size_t i = 2; i < x_dims.size(); ++i) w_dims.push_back(1);
  ValueId y = b.node(OpType::kConv, {x, vec(b, "w", w_dims, -0.3f)});
  Attributes a;
  a.set("keepdims", keepdims);
  ValueId s = b.node(reduce, {y, b.constant("axes", TensorData::vector_i64(axes))}, a);
  if (keepdims == 1) {
    s = b.node(OpType::kConv, {s, vec(b, "w2", w_dims, -0.2f)});
    s = b.node(OpType::kSigmoid, {s});
    b.output(b.node(OpType::kMul, {y, s}));
  } else {
    b.output(s);
  }
  return b.build();
}

TEST(GlobalPoolFromReduce, SpatialReduceMeanAndMaxBecomeGlobalPools) {
  const std::vector<OpType> se = {OpType::kConv, OpType::kGlobalAveragePool, OpType::kConv,
                                  OpType::kMul};
  expect_fused(squeeze_excitation(OpType::kReduceMean, {2, 3}), {1, 8, 6, 5}, se);
  expect_fused(squeeze_excitation(OpType::kReduceMean, {-1, -2}), {1, 8, 6, 5}, se);
  expect_fused(squeeze_excitation(OpType::kReduceMean, {2, 3, 4}, 1, {1, 8, 3, 4, 5}),
               {1, 8, 3, 4, 5}, se);
  expect_fused(squeeze_excitation(OpType::kReduceMax, {3, 2}), {1, 8, 6, 5},
               {OpType::kConv, OpType::kGlobalMaxPool, OpType::kConv, OpType::kMul});
}

// Not a global pooling: over H only, over N too, without keepdims, or over the last axis of
// a 3-D tensor (a transformer's hidden axis: LayerNorm's and RMSNorm's mean).
TEST(GlobalPoolFromReduce, OtherReductionsStayReductions) {
  const std::vector<OpType> kept = {OpType::kConv, OpType::kReduceMean, OpType::kConv,
                                    OpType::kMul};
  expect_fused(squeeze_excitation(OpType::kReduceMean, {2}), {1, 8, 6, 5}, kept);
  expect_fused(squeeze_excitation(OpType::kReduceMean, {0, 2, 3}), {1, 8, 6, 5}, kept);
  expect_fused(squeeze_excitation(OpType::kReduceMean, {2}, 1, {1, 8, 6}), {1, 8, 6}, kept);
  expect_fused(squeeze_excitation(OpType::kReduceMean, {2, 3}, 0), {1, 8, 6, 5},
               {OpType::kConv, OpType::kReduceMean});
}

// paddle2onnx 2.x's spelling: an Identity after every op. They go, and the conv's bias Add
// and activation fuse across them; a chain ending in a graph output has the Relu write it.
TEST(EliminateIdentity, IdentitiesBetweenOpsGoAndFusionsSeeThrough) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, {2, 3, 4, 4});
  ValueId y = b.node(OpType::kConv, {x, vec(b, "w", {4, 3, 1, 1}, -0.3f)});
  y = b.node(OpType::kIdentity, {y});
  y = b.node(OpType::kAdd, {y, vec(b, "bias", {1, 4, 1, 1}, 0.1f)});
  y = b.node(OpType::kIdentity, {b.node(OpType::kIdentity, {y})});
  y = b.node(OpType::kRelu, {y});
  y = b.node(OpType::kIdentity, {b.node(OpType::kIdentity, {y})});
  b.rename(y, "out");
  b.output(y);
  const Graph fused = expect_fused(b.build(), {2, 3, 4, 4}, {OpType::kConv});
  EXPECT_EQ(fused.value(fused.outputs[0]).name, "out");
}

// An Identity stays where it is the model's copy: of a graph input or a constant to an
// output, or of one tensor to a second output; a graph input read through one is read
// directly.
TEST(EliminateIdentity, CopiesOfInputsConstantsAndOutputsStay) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, {2, 3});
  ValueId r = b.node(OpType::kRelu, {b.node(OpType::kIdentity, {x})});
  b.output(r);
  b.output(b.node(OpType::kIdentity, {r}));
  b.output(b.node(OpType::kIdentity, {x}));
  b.output(b.node(OpType::kIdentity, {vec(b, "c", {2, 3}, 0.5f)}));
  const Graph g = expect_fused(
      b.build(), {2, 3}, {OpType::kRelu, OpType::kIdentity, OpType::kIdentity, OpType::kIdentity});
  EXPECT_EQ(g.nodes[0].inputs[0], g.inputs[0]);
}

// Near misses stay as they are: a constant that varies along width ([C] aligns with the
// last axis), one along batch, a conv output read twice, a variable addend.
TEST(FoldAddIntoConvBias, NearMissesStayAnAdd) {
  for (int variant = 0; variant < 4; ++variant) {
    GraphBuilder b;
    ValueId x = b.input("x", DType::kF32, {2, 3, 4, 4});
    ValueId y = b.node(OpType::kConv, {x, vec(b, "w", {4, 3, 1, 1}, -0.3f)});
    ValueId c = variant == 0   ? vec(b, "c", {4}, 0.1f)
                : variant == 1 ? vec(b, "c", {2, 1, 1, 1}, 0.1f)
                : variant == 2 ? vec(b, "c", {4, 1, 1}, 0.1f)
                               : b.input("c", DType::kF32, {4, 1, 1});
    b.output(b.node(OpType::kAdd, {y, c}));
    if (variant == 2) b.output(y);
    Graph g = b.build();
    ASSERT_TRUE(infer_shapes(g).is_ok());
    ASSERT_TRUE(run_runtime_passes(g).is_ok());
    EXPECT_EQ(ops_of(g), (std::vector<OpType>{OpType::kConv, OpType::kAdd})) << variant;
  }
}

}  // namespace
}  // namespace amp::graph
