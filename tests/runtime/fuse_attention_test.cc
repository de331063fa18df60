// FuseDecomposedOps' attention pattern (graph/passes/fuse_decomposed_ops.h): scaled
// dot-product attention as PyTorch / Hugging Face exports it becomes one Attention node,
// with the same numbers as the unfused graph on the CPU kernels; near misses stay unfused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "graph/ir/graph_builder.h"
#include "graph/ops/op_types.h"
#include "graph/ops/shape_inference.h"
#include "graph/passes/pipelines.h"
#include "tests/test_util/graph_runner.h"
#include "tests/test_util/test_models.h"

namespace amp::graph {
namespace {

constexpr int64_t kBatch = 2, kSeq = 5, kHeads = 3, kHeadDim = 4, kHidden = kHeads * kHeadDim;

struct AttentionSpelling {
  bool two_key_transposes = false;  // permute(0,2,1,3) then transpose(-1,-2)
  bool scale_by_mul = false;        // * (1 / sqrt d) instead of / sqrt d
  bool mask = true;                 // + HF's extended mask, (1 - m) * -3.4e38
  int64_t mask_len = kSeq;          // the mask's key axis (1: broadcast)
  bool probs_is_output = false;     // the probabilities are also a graph output
  // GPT-2's spelling: Where(constant bool [1, 1, S, S], scores, fill) instead of the Add.
  // "causal" (key j <= query i), "band" (i - 1 <= j <= i), "empty row" (causal, row 0 none).
  std::string where_mask;
  float where_fill = -3.4028234663852886e38f;
  // torch.export's scaled_dot_product_attention: Q and K^T each times sqrt(scale) (the
  // scores unscaled), K^T as Reshape [B H, S, D], Transpose 0 2 1, Reshape [B, H, D, S] of
  // the key heads, and Where(IsNaN(P), nan_fill, P) after the Softmax.
  bool sdpa_scale = false;
  bool scale_scores = true;  // false: no scale at all (Whisper scales q in its projection)
  bool keys_3d = false;
  bool nan_guard = false;
  float nan_fill = 0.0f;
  bool same_reshape = false;  // Whisper: the heads' output reshaped to its own shape
  bool merge_2d = false;      // GPT-2: the heads merged straight to [B S, H D]
};

TensorData where_mask_of(const std::string& kind) {
  std::vector<uint8_t> m(static_cast<size_t>(kSeq * kSeq));
  for (int64_t i = 0; i < kSeq; ++i)
    for (int64_t j = 0; j < kSeq; ++j)
      m[static_cast<size_t>(i * kSeq + j)] =
          j <= i && (kind != "band" || j >= i - 1) && (kind != "empty row" || i > 0);
  return TensorData::from_vector<uint8_t>(DType::kBool, {1, 1, kSeq, kSeq}, m);
}

Attributes perm(std::vector<int64_t> p) {
  Attributes a;
  a.set("perm", std::move(p));
  return a;
}

ValueId scale_of(GraphBuilder& b, ValueId x, const std::string& name, float c) {
  return b.node(OpType::kMul, {x, b.constant(name, TensorData::scalar_f32(c))});
}

Graph attention_graph(const AttentionSpelling& s) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, {kBatch, kSeq, kHidden});
  ValueId split = b.constant("split", TensorData::vector_i64({0, 0, kHeads, kHeadDim}));
  auto heads = [&](ValueId v, const std::vector<int64_t>& p) {
    return b.node(OpType::kTranspose, {b.node(OpType::kReshape, {v, split})}, perm(p));
  };
  auto reshape = [&](ValueId v, const std::string& name, std::vector<int64_t> dims) {
    return b.node(OpType::kReshape, {v, b.constant(name, TensorData::vector_i64(std::move(dims)))});
  };
  ValueId q = heads(scale_of(b, x, "wq", 0.9f), {0, 2, 1, 3});
  ValueId kt;
  if (s.keys_3d) {
    const ValueId k = heads(scale_of(b, x, "wk", -0.7f), {0, 2, 1, 3});
    kt = reshape(
        b.node(OpType::kTranspose, {reshape(k, "k3", {-1, kSeq, kHeadDim})}, perm({0, 2, 1})), "k4",
        {kBatch, kHeads, kHeadDim, kSeq});
  } else {
    kt = s.two_key_transposes
             ? b.node(OpType::kTranspose, {heads(scale_of(b, x, "wk", -0.7f), {0, 2, 1, 3})},
                      perm({0, 1, 3, 2}))
             : heads(scale_of(b, x, "wk", -0.7f), {0, 2, 3, 1});
  }
  ValueId v = heads(scale_of(b, x, "wv", 1.3f), {0, 2, 1, 3});
  const float sqrt_d = std::sqrt(static_cast<float>(kHeadDim));
  if (s.sdpa_scale) {
    const float root = std::sqrt(1.0f / sqrt_d);
    q = scale_of(b, q, "q_root_scale", root);
    kt = scale_of(b, kt, "k_root_scale", root);
  }
  ValueId scores = b.node(OpType::kMatMul, {q, kt});
  if (s.scale_scores && !s.sdpa_scale)
    scores =
        s.scale_by_mul
            ? scale_of(b, scores, "inv_sqrt_d", 1.0f / sqrt_d)
            : b.node(OpType::kDiv, {scores, b.constant("sqrt_d", TensorData::scalar_f32(sqrt_d))});
  if (s.mask) {
    ValueId m = b.input("m", DType::kF32, {kBatch, 1, 1, s.mask_len});
    ValueId inv = b.node(OpType::kSub, {b.constant("one", TensorData::scalar_f32(1.0f)), m});
    ValueId bias = scale_of(b, inv, "min", -3.4028234663852886e38f);
    scores = b.node(OpType::kAdd, {bias, scores});  // the mask first, as HF adds it
  }
  if (!s.where_mask.empty())
    scores = b.node(OpType::kWhere, {b.constant("causal", where_mask_of(s.where_mask)), scores,
                                     b.constant("fill", TensorData::scalar_f32(s.where_fill))});
  Attributes last;
  last.set("axis", int64_t{-1});
  ValueId probs = b.node(OpType::kSoftmax, {scores}, last);
  ValueId p = probs;
  if (s.nan_guard)
    p = b.node(OpType::kWhere, {b.node(OpType::kIsNaN, {probs}),
                                b.constant("nan_fill", TensorData::scalar_f32(s.nan_fill)), probs});
  ValueId ctx = b.node(OpType::kMatMul, {p, v});
  if (s.same_reshape) ctx = reshape(ctx, "same", {kBatch, kHeads, kSeq, kHeadDim});
  ctx = b.node(OpType::kTranspose, {ctx}, perm({0, 2, 1, 3}));
  ctx = s.merge_2d ? reshape(ctx, "merge", {-1, kHidden}) : reshape(ctx, "merge", {0, 0, kHidden});
  b.output(ctx);
  if (s.probs_is_output) b.output(probs);
  return b.build();
}

std::map<std::string, TensorData> inputs_for(const AttentionSpelling& s) {
  std::map<std::string, TensorData> in = {
      {"x", test::random_f32({kBatch, kSeq, kHidden}, 2.0f, 11)}};
  if (s.mask) {
    // Batch 0 sees every key, batch 1 the first three.
    std::vector<float> m(static_cast<size_t>(kBatch * s.mask_len), 1.0f);
    for (int64_t j = 3; j < s.mask_len; ++j) m[static_cast<size_t>(s.mask_len + j)] = 0.0f;
    in["m"] = TensorData::from_vector<float>(DType::kF32, {kBatch, 1, 1, s.mask_len}, m);
  }
  return in;
}

size_t count(const Graph& g, OpType op) {
  return static_cast<size_t>(
      std::count_if(g.nodes.begin(), g.nodes.end(), [op](const Node& n) { return n.op == op; }));
}

// Fuses `g` (run_runtime_passes) and checks that every output of the fused graph matches the
// unfused graph's on `in`; returns the fused graph.
Graph fuse_keeping_outputs(const Graph& g, const std::map<std::string, TensorData>& in) {
  Graph fused = g;
  const Status st = run_runtime_passes(fused);
  EXPECT_TRUE(st.is_ok()) << st.to_string();
  auto before = test::run_graph(g, in);
  auto after = test::run_graph(fused, in);
  EXPECT_TRUE(before.is_ok()) << before.status().to_string();
  EXPECT_TRUE(after.is_ok()) << after.status().to_string();
  if (!before.is_ok() || !after.is_ok()) return fused;
  EXPECT_EQ(before->size(), after->size());
  for (size_t o = 0; o < before->size() && o < after->size(); ++o) {
    EXPECT_EQ((*before)[o].dims(), (*after)[o].dims());
    const std::vector<double> a = (*before)[o].to_f64_vector(), c = (*after)[o].to_f64_vector();
    for (size_t i = 0; i < a.size() && i < c.size(); ++i)
      EXPECT_NEAR(a[i], c[i], 2e-5 * (1.0 + std::abs(a[i])));
  }
  return fused;
}

// Fuses `s`'s graph and checks the fused graph against the unfused one; returns it.
Graph fuse_and_compare(const AttentionSpelling& s) {
  Graph g = attention_graph(s);
  EXPECT_TRUE(infer_shapes(g).is_ok());
  return fuse_keeping_outputs(g, inputs_for(s));
}

TEST(FuseAttention, BertStyleWithMaskBecomesOneAttentionNode) {
  const Graph g = fuse_and_compare({});
  ASSERT_EQ(count(g, OpType::kAttention), 1u);
  EXPECT_EQ(count(g, OpType::kSoftmax), 0u);
  EXPECT_EQ(count(g, OpType::kTranspose), 0u);
  EXPECT_EQ(count(g, OpType::kMatMul), 0u);
  for (const Node& n : g.nodes) {
    if (n.op != OpType::kAttention) continue;
    EXPECT_EQ(n.inputs.size(), 4u);  // q, k, v, mask
    EXPECT_EQ(*n.attrs.get_int("q_num_heads", 0), kHeads);
    EXPECT_NEAR(*n.attrs.get_float("scale", 0), 0.5f, 1e-7);
  }
}

TEST(FuseAttention, TwoKeyTransposesAndMultipliedScaleWithoutMask) {
  const Graph g =
      fuse_and_compare({.two_key_transposes = true, .scale_by_mul = true, .mask = false});
  ASSERT_EQ(count(g, OpType::kAttention), 1u);
  EXPECT_EQ(count(g, OpType::kTranspose), 0u);
  for (const Node& n : g.nodes) {
    if (n.op == OpType::kAttention) {
      EXPECT_EQ(n.inputs.size(), 3u);
    }
  }
}

TEST(FuseAttention, ProbabilitiesUsedElsewhereStayUnfused) {
  const Graph g = fuse_and_compare({.probs_is_output = true});
  EXPECT_EQ(count(g, OpType::kAttention), 0u);
  EXPECT_EQ(count(g, OpType::kSoftmax), 1u);
}

// GPT-2 as exported: the causal mask as a constant of Where becomes is_causal; another bool
// mask becomes Attention's mask; a mask with a row of no keys (Where gives that row equal
// weights, Attention zeros) or a fill that exp does not take to 0 stays unfused.
TEST(FuseAttention, WhereMaskedScores) {
  auto attention = [](const Graph& g) -> const Node* {
    for (const Node& n : g.nodes)
      if (n.op == OpType::kAttention) return &n;
    return nullptr;
  };
  const Graph causal = fuse_and_compare({.mask = false, .where_mask = "causal"});
  const Node* a = attention(causal);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->inputs.size(), 3u);
  EXPECT_EQ(*a->attrs.get_int("is_causal", 0), 1);
  EXPECT_EQ(count(causal, OpType::kWhere), 0u);
  const Graph band = fuse_and_compare({.mask = false, .where_mask = "band"});
  a = attention(band);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->inputs.size(), 4u);
  EXPECT_EQ(*a->attrs.get_int("is_causal", 0), 0);
  EXPECT_EQ(attention(fuse_and_compare({.mask = false, .where_mask = "empty row"})), nullptr);
  EXPECT_EQ(
      attention(fuse_and_compare({.mask = false, .where_mask = "causal", .where_fill = -1.0f})),
      nullptr);
}

TEST(FuseAttention, BroadcastMaskOfOneKeyStaysUnfused) {
  // Attention would mask every key past a one-key mask; Add broadcasts it instead.
  const Graph g = fuse_and_compare({.mask_len = 1});
  EXPECT_EQ(count(g, OpType::kAttention), 0u);
}

// scaled_dot_product_attention as torch.export writes it (BERT, RoBERTa, BART, T5 from
// Hugging Face through torch.onnx.export(dynamo=True)): one Attention node, its scale the
// product of the two square roots.
TEST(FuseAttention, TorchExportSdpaWithMaskBecomesOneAttentionNode) {
  const Graph g = fuse_and_compare({.sdpa_scale = true, .keys_3d = true, .nan_guard = true});
  ASSERT_EQ(count(g, OpType::kAttention), 1u);
  for (OpType op : {OpType::kSoftmax, OpType::kIsNaN, OpType::kWhere, OpType::kTranspose,
                    OpType::kMatMul, OpType::kReshape})
    EXPECT_EQ(count(g, op), 0u) << op_name(op);
  for (const Node& n : g.nodes) {
    if (n.op == OpType::kAttention) {
      EXPECT_EQ(n.inputs.size(), 4u);
      EXPECT_NEAR(*n.attrs.get_float("scale", 0), 0.5f, 1e-6);
    }
  }
}

// Whisper's encoder (no scale, the heads' output reshaped to its shape) and GPT-2 (the heads
// merged to [B S, H D], a Reshape that stays after the Attention node).
TEST(FuseAttention, WhisperAndGpt2Spellings) {
  const Graph whisper = fuse_and_compare(
      {.mask = false, .scale_scores = false, .keys_3d = true, .same_reshape = true});
  ASSERT_EQ(count(whisper, OpType::kAttention), 1u);
  EXPECT_EQ(count(whisper, OpType::kReshape), 0u);
  for (const Node& n : whisper.nodes)
    if (n.op == OpType::kAttention) {
      EXPECT_EQ(*n.attrs.get_float("scale", 0), 1.0f);
    }
  const Graph gpt2 = fuse_and_compare({.mask = false,
                                       .where_mask = "causal",
                                       .sdpa_scale = true,
                                       .keys_3d = true,
                                       .nan_guard = true,
                                       .merge_2d = true});
  ASSERT_EQ(count(gpt2, OpType::kAttention), 1u);
  ASSERT_EQ(count(gpt2, OpType::kReshape), 1u);
  for (const Node& n : gpt2.nodes) {
    if (n.op == OpType::kReshape) {
      const Value& in = gpt2.value(n.inputs[0]);
      ASSERT_TRUE(in.shape.has_value());
      EXPECT_EQ(in.shape->rank(), 3u);  // Attention's [B, S, H D]
    }
  }
}

// A guard that puts anything but 0 in the NaN rows stays unfused: Attention gives such a
// row zeros.
TEST(FuseAttention, NearMissesOfTorchExportStayUnfused) {
  EXPECT_EQ(count(fuse_and_compare(
                      {.sdpa_scale = true, .keys_3d = true, .nan_guard = true, .nan_fill = 1.0f}),
                  OpType::kAttention),
            0u);
}

// Llama as torch.export writes it: a rotary-style product on the query heads (no head split
// left to see), one kv head repeated for the three query heads (Unsqueeze, Expand; K merged
// from the 5-D repeat, V reshaped from it), a causal float mask. The product becomes
// Attention's 4-D form over the kv head unrepeated (kv heads 1).
Graph llama_style_graph() {
  GraphBuilder b;
  const ValueId x = b.input("x", DType::kF32, {kBatch, kSeq, kHidden});
  const ValueId xkv = b.input("xkv", DType::kF32, {kBatch, kSeq, kHeadDim});
  auto reshape = [&](ValueId v, const std::string& name, std::vector<int64_t> dims) {
    return b.node(OpType::kReshape, {v, b.constant(name, TensorData::vector_i64(std::move(dims)))});
  };
  const ValueId q =
      b.node(OpType::kMul,
             {b.node(OpType::kTranspose, {reshape(x, "qsplit", {kBatch, kSeq, kHeads, kHeadDim})},
                     perm({0, 2, 1, 3})),
              b.constant("rotary", test::random_f32({1, 1, kSeq, kHeadDim}, 1.0f, 21))});
  auto kv_heads = [&](ValueId src, float c, const std::string& name) {
    const ValueId heads =
        b.node(OpType::kTranspose,
               {reshape(scale_of(b, src, name, c), name + "_split", {kBatch, kSeq, 1, kHeadDim})},
               perm({0, 2, 1, 3}));  // [B, 1, S, D]
    const ValueId unsq = b.node(OpType::kUnsqueeze,
                                {heads, b.constant(name + "_axis", TensorData::vector_i64({2}))});
    return b.node(OpType::kExpand,
                  {unsq, b.constant(name + "_rep",
                                    TensorData::vector_i64({kBatch, 1, kHeads, kSeq, kHeadDim}))});
  };
  const ValueId k5 = kv_heads(xkv, -0.7f, "wk"), v5 = kv_heads(xkv, 1.3f, "wv");
  const ValueId kt =
      reshape(b.node(OpType::kTranspose, {reshape(k5, "k3", {kBatch * kHeads, kSeq, kHeadDim})},
                     perm({0, 2, 1})),
              "k4", {kBatch, kHeads, kHeadDim, kSeq});
  const ValueId v = reshape(v5, "v4", {kBatch, kHeads, kSeq, kHeadDim});
  const float root = std::sqrt(1.0f / std::sqrt(static_cast<float>(kHeadDim)));
  ValueId scores =
      b.node(OpType::kMatMul, {scale_of(b, q, "qs", root), scale_of(b, kt, "ks", root)});
  std::vector<float> causal(static_cast<size_t>(kSeq * kSeq));
  for (int64_t i = 0; i < kSeq; ++i)
    for (int64_t j = 0; j < kSeq; ++j)
      causal[static_cast<size_t>(i * kSeq + j)] = j <= i ? 0.0f : -3.4028234663852886e38f;
  scores = b.node(OpType::kAdd,
                  {scores, b.constant("causal", TensorData::from_vector<float>(
                                                    DType::kF32, {1, 1, kSeq, kSeq}, causal))});
  Attributes last;
  last.set("axis", int64_t{-1});
  const ValueId probs = b.node(OpType::kSoftmax, {scores}, last);
  const ValueId p = b.node(
      OpType::kWhere,
      {b.node(OpType::kIsNaN, {probs}), b.constant("zero", TensorData::scalar_f32(0.0f)), probs});
  const ValueId ctx = b.node(OpType::kMatMul, {p, v});
  b.output(
      reshape(b.node(OpType::kTranspose, {ctx}, perm({0, 2, 1, 3})), "merge", {0, 0, kHidden}));
  return b.build();
}

TEST(FuseAttention, LlamaStyleBecomesAttentionOverUnrepeatedKvHeads) {
  Graph g = llama_style_graph();
  ASSERT_TRUE(infer_shapes(g).is_ok());
  const std::map<std::string, TensorData> in = {
      {"x", test::random_f32({kBatch, kSeq, kHidden}, 2.0f, 11)},
      {"xkv", test::random_f32({kBatch, kSeq, kHeadDim}, 2.0f, 12)}};
  const Graph fused = fuse_keeping_outputs(g, in);
  ASSERT_EQ(count(fused, OpType::kAttention), 1u);
  EXPECT_EQ(count(fused, OpType::kExpand), 0u);
  EXPECT_EQ(count(fused, OpType::kSoftmax), 0u);
  for (const Node& n : fused.nodes) {
    if (n.op != OpType::kAttention) continue;
    const Value& k = fused.value(n.inputs[1]);
    ASSERT_TRUE(k.shape.has_value());
    EXPECT_EQ(k.shape->rank(), 4u);
    EXPECT_EQ(k.shape->dims[1], Dim(1));  // the kv head, not its repeats
  }
}

// One decoder step as torch.export writes it with a dynamic cache length: the cache
// Concat along a symbolic axis, repeat_kv's Expand and Reshape and the K^T reshapes all
// sized by Shape slices of run-time tensors (graph/ops/sym_values.h names their dims).
// `torchscript_keys`: K^T as TorchScript writes it (Optimum's exports), one Transpose of the
// repeated heads (perm 0 1 3 2).
Graph decoder_step_graph(bool torchscript_keys = false) {
  constexpr int64_t kKv = 1, kRep = kHeads / kKv;
  GraphBuilder b;
  const ValueId x = b.input("x", DType::kF32, {1, 1, kHidden});
  const Shape cache({Dim(1), Dim(kKv), Dim::symbolic("past"), Dim(kHeadDim)});
  const ValueId past_k = b.input("past_k", DType::kF32, cache);
  const ValueId past_v = b.input("past_v", DType::kF32, cache);
  const ValueId new_k = b.input("new_k", DType::kF32, {1, kKv, 1, kHeadDim});
  const ValueId new_v = b.input("new_v", DType::kF32, {1, kKv, 1, kHeadDim});
  auto ints = [&](const std::string& name, std::vector<int64_t> v) {
    return b.constant(name, TensorData::vector_i64(std::move(v)));
  };
  Attributes axis0, axis2;
  axis0.set("axis", int64_t{0});
  axis2.set("axis", int64_t{2});
  auto shape_slice = [&](ValueId v, int64_t start, int64_t end, const std::string& name) {
    return b.node(OpType::kSlice, {b.node(OpType::kShape, {v}), ints(name + "_s", {start}),
                                   ints(name + "_e", {end})});
  };
  auto repeated = [&](ValueId past, ValueId now, const std::string& name) {
    const ValueId present = b.node(OpType::kConcat, {past, now}, axis2);
    b.output(present);
    const ValueId len = shape_slice(present, 2, 3, name + "_len");
    const ValueId target5 =
        b.node(OpType::kConcat,
               {shape_slice(present, 0, 2, name + "_lead"), ints(name + "_rep", {kRep}),
                shape_slice(present, 2, 4, name + "_tail")},
               axis0);
    const ValueId rep = b.node(
        OpType::kExpand, {b.node(OpType::kUnsqueeze, {present, ints(name + "_ax", {2})}), target5});
    const ValueId target4 = b.node(
        OpType::kConcat,
        {ints(name + "_b", {1}), ints(name + "_h", {kHeads}), len, ints(name + "_d", {kHeadDim})},
        axis0);
    return b.node(OpType::kReshape, {rep, target4});
  };
  const ValueId k4 = repeated(past_k, new_k, "k"), v4 = repeated(past_v, new_v, "v");
  ValueId kt = kNoValue;
  if (torchscript_keys) {
    kt = b.node(OpType::kTranspose, {k4}, perm({0, 1, 3, 2}));
  } else {
    const ValueId klen = shape_slice(k4, 2, 3, "kt_len");
    const ValueId k3 = b.node(
        OpType::kReshape,
        {k4,
         b.node(OpType::kConcat, {ints("kt_m1", {-1}), klen, ints("kt_d", {kHeadDim})}, axis0)});
    kt = b.node(OpType::kReshape,
                {b.node(OpType::kTranspose, {k3}, perm({0, 2, 1})),
                 b.node(OpType::kConcat,
                        {ints("kt_bh", {1, kHeads}), ints("kt_d2", {kHeadDim}), klen}, axis0)});
  }
  const ValueId q = b.node(
      OpType::kTranspose, {b.node(OpType::kReshape, {x, ints("qsplit", {1, 1, kHeads, kHeadDim})})},
      perm({0, 2, 1, 3}));
  const float root = std::sqrt(1.0f / std::sqrt(static_cast<float>(kHeadDim)));
  Attributes last;
  last.set("axis", int64_t{-1});
  const ValueId probs = b.node(
      OpType::kSoftmax,
      {b.node(OpType::kMatMul, {scale_of(b, q, "qs", root), scale_of(b, kt, "ks", root)})}, last);
  const ValueId p = b.node(
      OpType::kWhere,
      {b.node(OpType::kIsNaN, {probs}), b.constant("zero", TensorData::scalar_f32(0.0f)), probs});
  b.output(b.node(OpType::kMatMul, {p, v4}));
  return b.build();
}

TEST(FuseAttention, DecoderStepWithDynamicCacheBecomesAttentionOverTheCache) {
  for (bool torchscript_keys : {false, true}) {
    SCOPED_TRACE(torchscript_keys ? "TorchScript's K^T" : "torch.export's K^T");
    Graph g = decoder_step_graph(torchscript_keys);
    ASSERT_TRUE(infer_shapes(g).is_ok());
    constexpr int64_t kPast = 7;
    const std::map<std::string, TensorData> in = {
        {"x", test::random_f32({1, 1, kHidden}, 2.0f, 31)},
        {"past_k", test::random_f32({1, 1, kPast, kHeadDim}, 2.0f, 32)},
        {"past_v", test::random_f32({1, 1, kPast, kHeadDim}, 2.0f, 33)},
        {"new_k", test::random_f32({1, 1, 1, kHeadDim}, 2.0f, 34)},
        {"new_v", test::random_f32({1, 1, 1, kHeadDim}, 2.0f, 35)}};
    const Graph fused = fuse_keeping_outputs(g, in);
    ASSERT_EQ(count(fused, OpType::kAttention), 1u);
    EXPECT_EQ(count(fused, OpType::kSoftmax), 0u);
    EXPECT_EQ(count(fused, OpType::kExpand), 0u);  // K's and V's repeats are gone
    for (const Node& n : fused.nodes) {
      if (n.op != OpType::kAttention) continue;
      for (int k : {1, 2}) {  // the caches themselves: one kv head of past + 1 keys
        const Value& kv = fused.value(n.inputs[static_cast<size_t>(k)]);
        ASSERT_TRUE(kv.shape.has_value());
        EXPECT_EQ(kv.shape->to_string(), "[1,1,past + 1,4]");
      }
    }
  }
}

TEST(FuseAttention, AnExportedAttentionNodeTakesItsKvHeadsUnrepeated) {
  // torch.onnx at opset 23 writes Attention itself, over repeat_kv's repeated heads.
  constexpr int64_t kKv = 1;
  GraphBuilder b;
  b.set_opset(23);
  const ValueId q = b.input("q", DType::kF32, {1, kHeads, kSeq, kHeadDim});
  const ValueId k = b.input("k", DType::kF32, {1, kKv, kSeq, kHeadDim});
  const ValueId v = b.input("v", DType::kF32, {1, kKv, kSeq, kHeadDim});
  auto repeated = [&](ValueId x, const std::string& name) {
    const ValueId unsq =
        b.node(OpType::kUnsqueeze, {x, b.constant(name + "_ax", TensorData::vector_i64({2}))});
    const ValueId rep = b.node(
        OpType::kExpand,
        {unsq,
         b.constant(name + "_rep", TensorData::vector_i64({1, kKv, kHeads, kSeq, kHeadDim}))});
    return b.node(
        OpType::kReshape,
        {rep, b.constant(name + "_merge", TensorData::vector_i64({1, kHeads, kSeq, kHeadDim}))});
  };
  Attributes causal;
  causal.set("is_causal", int64_t{1});
  const ValueId rk = repeated(k, "k"), rv = repeated(v, "v");
  b.output(b.node(OpType::kAttention, {q, rk, rv}, causal));
  Graph g = b.build();
  ASSERT_TRUE(infer_shapes(g).is_ok());
  const std::map<std::string, TensorData> in = {
      {"q", test::random_f32({1, kHeads, kSeq, kHeadDim}, 2.0f, 41)},
      {"k", test::random_f32({1, kKv, kSeq, kHeadDim}, 2.0f, 42)},
      {"v", test::random_f32({1, kKv, kSeq, kHeadDim}, 2.0f, 43)}};
  const Graph fused = fuse_keeping_outputs(g, in);
  ASSERT_EQ(count(fused, OpType::kAttention), 1u);
  EXPECT_EQ(count(fused, OpType::kExpand), 0u);
  for (const Node& n : fused.nodes)
    if (n.op == OpType::kAttention) {
      EXPECT_EQ(n.inputs[1], k);
      EXPECT_EQ(n.inputs[2], v);
    }
}

// BERT through the TorchScript exporter with dynamic batch and sequence: every Reshape
// target is Concat(Shape(...) slices, constants), Shape reads the query heads and the heads'
// output, and the heads' output is reshaped to its own shape before the merge.
Graph dynamic_encoder_graph() {
  GraphBuilder b;
  const Shape bsh({Dim::symbolic("batch"), Dim::symbolic("seq"), Dim(kHidden)});
  const ValueId xq = b.input("xq", DType::kF32, bsh);
  const ValueId xk = b.input("xk", DType::kF32, bsh);
  const ValueId xv = b.input("xv", DType::kF32, bsh);
  int names = 0;
  auto ints = [&](std::vector<int64_t> v) {
    return b.constant("c" + std::to_string(names++), TensorData::vector_i64(std::move(v)));
  };
  Attributes axis0;
  axis0.set("axis", int64_t{0});
  auto dims_of = [&](ValueId v, int64_t start, int64_t end) {
    return b.node(OpType::kSlice, {b.node(OpType::kShape, {v}), ints({start}), ints({end})});
  };
  auto split = [&](ValueId x) {
    return b.node(
        OpType::kReshape,
        {x, b.node(OpType::kConcat, {dims_of(x, 0, 2), ints({kHeads, kHeadDim})}, axis0)});
  };
  const ValueId q = b.node(OpType::kTranspose, {split(xq)}, perm({0, 2, 1, 3}));
  const ValueId kt = b.node(OpType::kTranspose, {split(xk)}, perm({0, 2, 3, 1}));
  const ValueId v = b.node(OpType::kTranspose, {split(xv)}, perm({0, 2, 1, 3}));
  b.output(b.node(OpType::kCast, {dims_of(q, 0, 1)}, [] {  // the query heads' dims, read
    Attributes a;
    a.set("to", int64_t{1});
    return a;
  }()));
  Attributes last;
  last.set("axis", int64_t{-1});
  const ValueId probs =
      b.node(OpType::kSoftmax,
             {b.node(OpType::kDiv, {b.node(OpType::kMatMul, {q, kt}),
                                    b.constant("sqrt_d", TensorData::scalar_f32(2.0f))})},
             last);
  const ValueId ctx = b.node(OpType::kMatMul, {probs, v});
  const ValueId same = b.node(OpType::kReshape, {ctx, b.node(OpType::kShape, {ctx})});
  const ValueId merged = b.node(OpType::kTranspose, {same}, perm({0, 2, 1, 3}));
  b.output(
      b.node(OpType::kReshape,
             {merged, b.node(OpType::kConcat, {dims_of(merged, 0, 2), ints({kHidden})}, axis0)}));
  return b.build();
}

TEST(FuseAttention, DynamicEncoderWhoseHeadsShapesAreReadStillFuses) {
  Graph g = dynamic_encoder_graph();
  ASSERT_TRUE(infer_shapes(g).is_ok());
  const std::map<std::string, TensorData> in = {
      {"xq", test::random_f32({kBatch, kSeq, kHidden}, 2.0f, 51)},
      {"xk", test::random_f32({kBatch, kSeq, kHidden}, 2.0f, 52)},
      {"xv", test::random_f32({kBatch, kSeq, kHidden}, 2.0f, 53)}};
  const Graph fused = fuse_keeping_outputs(g, in);
  ASSERT_EQ(count(fused, OpType::kAttention), 1u);
  for (const Node& n : fused.nodes)
    if (n.op == OpType::kAttention) {
      EXPECT_EQ(fused.value(n.inputs[0]).name, "xq");  // the 3-D form, over the projections
      EXPECT_EQ(fused.value(n.outputs[0]).shape->to_string(), "[batch,seq,12]");
    }
}

}  // namespace
}  // namespace amp::graph
