#include "tools/demo/bench_exports.h"

#include <cmath>
#include <string>
#include <vector>

#include "tools/demo/model_builder.h"

namespace amp::demo {
namespace {

using graph::Attributes;
using graph::OpType;
using graph::Shape;
using graph::TensorData;
using graph::ValueId;

ValueId node(ModelBuilder& m, OpType op, std::vector<ValueId> in, const std::string& name,
             const Attributes& a = {}) {
  return m.b().node(op, std::move(in), a, name);
}

// x * 0.5 * (1 + Erf(x / sqrt 2)), as torch.nn.GELU() exports.
ValueId gelu_erf(ModelBuilder& m, ValueId x, const std::string& name) {
  ValueId e =
      node(m, OpType::kErf,
           {node(m, OpType::kDiv, {x, m.scalar(name + ".sqrt2", std::sqrt(2.0f))}, name + ".div")},
           name + ".erf");
  ValueId y = node(m, OpType::kMul,
                   {x, node(m, OpType::kAdd, {e, m.scalar(name + ".one", 1.0f)}, name + ".add")},
                   name + ".mul");
  return node(m, OpType::kMul, {y, m.scalar(name + ".half", 0.5f)}, name);
}

// 0.5 x (1 + Tanh(sqrt(2/pi) (x + 0.044715 Pow(x, 3)))), GPT-2's gelu_new.
ValueId gelu_tanh(ModelBuilder& m, ValueId x, const std::string& name) {
  ValueId cube = node(m, OpType::kPow, {x, m.scalar(name + ".three", 3.0f)}, name + ".pow");
  ValueId inner =
      node(m, OpType::kAdd,
           {x, node(m, OpType::kMul, {cube, m.scalar(name + ".c", 0.044715f)}, name + ".mul_c")},
           name + ".inner");
  ValueId t =
      node(m, OpType::kTanh,
           {node(m, OpType::kMul, {inner, m.scalar(name + ".k", std::sqrt(2.0f / 3.14159265f))},
                 name + ".mul_k")},
           name + ".tanh");
  ValueId half = node(m, OpType::kMul, {x, m.scalar(name + ".half", 0.5f)}, name + ".half_x");
  return node(m, OpType::kMul,
              {half, node(m, OpType::kAdd, {t, m.scalar(name + ".one", 1.0f)}, name + ".add")},
              name);
}

// [1, S, H * D] -> heads [1, H, S, D].
ValueId heads(ModelBuilder& m, ValueId t, const std::string& name, int64_t seq, int64_t h,
              int64_t d) {
  return m.transpose(m.reshape(t, name + ".split", {1, seq, h, d}), name, {0, 2, 1, 3});
}

// Multi-head self-attention over x [1, S, d] as PyTorch modules export it: q, k, v (from
// one c_attn product split in three when `c_attn`), scores Q K^T / sqrt(D), masked by
// Where(causal, scores, lowest) when `causal` is set, Softmax, P V, heads merged, the output
// projection.
ValueId self_attention(ModelBuilder& m, ValueId x, const std::string& name, int64_t seq, int64_t d,
                       int64_t h, bool c_attn, ValueId causal = graph::kNoValue) {
  const int64_t hd = d / h;
  ValueId q, k, v;
  if (c_attn) {
    const std::vector<ValueId> qkv =
        m.split(m.linear(x, name + ".c_attn", d, 3 * d), name + ".qkv", {d, d, d}, 2);
    q = qkv[0], k = qkv[1], v = qkv[2];
  } else {
    q = m.linear(x, name + ".q", d, d);
    k = m.linear(x, name + ".k", d, d);
    v = m.linear(x, name + ".v", d, d);
  }
  q = heads(m, q, name + ".q_heads", seq, h, hd);
  ValueId kt = m.transpose(heads(m, k, name + ".k_heads", seq, h, hd), name + ".kt", {0, 1, 3, 2});
  v = heads(m, v, name + ".v_heads", seq, h, hd);
  ValueId s = node(m, OpType::kDiv,
                   {node(m, OpType::kMatMul, {q, kt}, name + ".qk"),
                    m.scalar(name + ".sqrt_d", std::sqrt(static_cast<float>(hd)))},
                   name + ".scaled");
  if (causal != graph::kNoValue)
    s = node(m, OpType::kWhere, {causal, s, m.scalar(name + ".lowest", -3.4028234663852886e38f)},
             name + ".masked");
  Attributes last;
  last.set("axis", int64_t{-1});
  ValueId p = node(m, OpType::kSoftmax, {s}, name + ".softmax", last);
  ValueId o =
      m.transpose(node(m, OpType::kMatMul, {p, v}, name + ".pv"), name + ".merge", {0, 2, 1, 3});
  return m.linear(m.reshape(o, name + ".merged", {1, seq, d}), name + ".proj", d, d);
}

ValueId add(ModelBuilder& m, ValueId a, ValueId b, const std::string& name) {
  return node(m, OpType::kAdd, {a, b}, name);
}

// A pre-LayerNorm transformer layer over x [1, S, d] (GPT-2, ViT): x + attention(LN(x)),
// then x + fc2(GELU(fc1(LN(x)))), GELU in its tanh form (GPT-2) or erf form (ViT).
ValueId pre_ln_layer(ModelBuilder& m, ValueId x, const std::string& p, int64_t seq, int64_t d,
                     int64_t heads, bool c_attn, ValueId causal, bool tanh_gelu) {
  x = add(m, x,
          self_attention(m, m.layer_norm(x, p + ".ln_1", d), p + ".attn", seq, d, heads, c_attn,
                         causal),
          p + ".attn_residual");
  ValueId h = m.linear(m.layer_norm(x, p + ".ln_2", d), p + ".fc1", d, 4 * d);
  h = tanh_gelu ? gelu_tanh(m, h, p + ".gelu") : gelu_erf(m, h, p + ".gelu");
  return add(m, x, m.linear(h, p + ".fc2", 4 * d, d), p + ".mlp_residual");
}

// Conv1d over [1, C, T] (pad k / 2), with bias.
ValueId conv1d(ModelBuilder& m, ValueId x, const std::string& name, int64_t cin, int64_t cout,
               int64_t k, int64_t groups = 1) {
  Attributes a;
  a.set("kernel_shape", std::vector<int64_t>{k});
  a.set("pads", std::vector<int64_t>{k / 2, k / 2});
  if (groups != 1) a.set("group", groups);
  const float s = 1.0f / std::sqrt(static_cast<float>(cin / groups * k));
  return node(m, OpType::kConv,
              {x, m.weight(name + ".weight", {cout, cin / groups, k}, s),
               m.weight(name + ".bias", {cout}, 0.02f)},
              name, a);
}

// The half-step SiLU feed-forward of a Conformer block: x + 0.5 FF(LN(x)).
ValueId half_step_ffn(ModelBuilder& m, ValueId x, const std::string& name, int64_t d) {
  ValueId h = m.activation(m.linear(m.layer_norm(x, name + ".ln", d), name + ".w1", d, 4 * d),
                           name + ".w1", Act::kSiLU);
  h = m.linear(h, name + ".w2", 4 * d, d);
  return add(m, x, node(m, OpType::kMul, {h, m.scalar(name + ".half", 0.5f)}, name + ".scale"),
             name + ".residual");
}

// One MBConv block of EfficientNet over x [1, cin, H, W].
ValueId mbconv(ModelBuilder& m, ValueId x, const std::string& name, int64_t cin, int64_t cout,
               int64_t expand, int64_t k, int64_t stride) {
  const int64_t mid = cin * expand;
  ValueId y = expand == 1 ? x : m.conv(x, name + ".expand", cin, mid, 1, 1, Act::kSiLU);
  y = m.conv(y, name + ".dw", mid, mid, k, stride, Act::kSiLU, true, mid);
  // Squeeze-and-excitation: GlobalAveragePool, 1x1 conv, SiLU, 1x1 conv, Sigmoid, scale.
  const int64_t squeezed = std::max<int64_t>(1, cin / 4);
  ValueId z = node(m, OpType::kGlobalAveragePool, {y}, name + ".se.pool");
  z = m.conv(z, name + ".se.reduce", mid, squeezed, 1, 1, Act::kSiLU, false);
  z = node(m, OpType::kSigmoid,
           {m.conv(z, name + ".se.expand", squeezed, mid, 1, 1, Act::kNone, false)},
           name + ".se.gate");
  y = node(m, OpType::kMul, {y, z}, name + ".se.scale");
  y = m.conv(y, name + ".project", mid, cout, 1, 1, Act::kNone);
  return stride == 1 && cin == cout ? add(m, x, y, name + ".residual") : y;
}

}  // namespace

graph::Graph gpt2_decoder() {
  constexpr int64_t kSeq = 128, kWidth = 512, kHeads = 8, kLayers = 4, kVocab = 8000;
  ModelBuilder m(101);
  graph::GraphBuilder& b = m.b();
  ValueId ids = b.input("input_ids", DType::kI64, Shape({1, kSeq}));
  ValueId emb = m.weight("wte", {kVocab, kWidth}, 0.02f);
  ValueId x = node(m, OpType::kGather, {emb, ids}, "wte.gather");
  x = add(m, x, m.weight("wpe", {1, kSeq, kWidth}, 0.02f), "embed");
  std::vector<uint8_t> tri(static_cast<size_t>(kSeq * kSeq));
  for (int64_t i = 0; i < kSeq; ++i)
    for (int64_t j = 0; j <= i; ++j) tri[static_cast<size_t>(i * kSeq + j)] = 1;
  ValueId causal = b.constant(
      "causal_mask", TensorData::from_vector<uint8_t>(DType::kBool, {1, 1, kSeq, kSeq}, tri));
  for (int64_t l = 0; l < kLayers; ++l)
    x = pre_ln_layer(m, x, "h" + std::to_string(l), kSeq, kWidth, kHeads, /*c_attn=*/true, causal,
                     /*tanh_gelu=*/true);
  x = m.layer_norm(x, "ln_f", kWidth);
  ValueId logits = node(m, OpType::kMatMul, {x, m.transpose(emb, "wte.t", {1, 0})}, "lm_head");
  b.rename(logits, "logits");
  b.output(logits);
  return b.build();
}

graph::Graph conformer() {
  constexpr int64_t kFrames = 250, kWidth = 256, kHeads = 4, kBlocks = 4, kTaps = 31;
  ModelBuilder m(102);
  graph::GraphBuilder& b = m.b();
  ValueId x = b.input("features", DType::kF32, Shape({1, kFrames, kWidth}));
  for (int64_t l = 0; l < kBlocks; ++l) {
    const std::string p = "block" + std::to_string(l);
    x = half_step_ffn(m, x, p + ".ffn1", kWidth);
    x = add(m, x,
            self_attention(m, m.layer_norm(x, p + ".ln_att", kWidth), p + ".att", kFrames, kWidth,
                           kHeads, /*c_attn=*/false),
            p + ".att_residual");
    // Convolution module, channels first: pointwise to 2d, GLU, depthwise, BN, SiLU, pointwise.
    ValueId c = m.transpose(m.layer_norm(x, p + ".ln_conv", kWidth), p + ".to_channels", {0, 2, 1});
    c = conv1d(m, c, p + ".pw1", kWidth, 2 * kWidth, 1);
    const std::vector<ValueId> glu = m.split(c, p + ".glu", {kWidth, kWidth}, 1);
    c = node(m, OpType::kMul, {glu[0], node(m, OpType::kSigmoid, {glu[1]}, p + ".glu.gate")},
             p + ".glu.mul");
    c = conv1d(m, c, p + ".dw", kWidth, kWidth, kTaps, kWidth);
    c = m.activation(m.batch_norm(c, p + ".bn", kWidth), p + ".conv_act", Act::kSiLU);
    c = conv1d(m, c, p + ".pw2", kWidth, kWidth, 1);
    x = add(m, x, m.transpose(c, p + ".to_time", {0, 2, 1}), p + ".conv_residual");
    x = m.layer_norm(half_step_ffn(m, x, p + ".ffn2", kWidth), p + ".ln_out", kWidth);
  }
  b.rename(x, "encoded");
  b.output(x);
  return b.build();
}

graph::Graph vit_tiny() {
  constexpr int64_t kWidth = 192, kHeads = 3, kLayers = 12, kPatch = 16, kTokens = 197;
  ModelBuilder m(103);
  graph::GraphBuilder& b = m.b();
  ValueId image = b.input("image", DType::kF32, Shape({1, 3, 224, 224}));
  Attributes patch;
  patch.set("kernel_shape", std::vector<int64_t>{kPatch, kPatch});
  patch.set("strides", std::vector<int64_t>{kPatch, kPatch});
  ValueId x = node(m, OpType::kConv,
                   {image, m.weight("patch.weight", {kWidth, 3, kPatch, kPatch}, 0.036f),
                    m.weight("patch.bias", {kWidth}, 0.02f)},
                   "patch", patch);
  x = m.transpose(m.reshape(x, "patch.flatten", {1, kWidth, kTokens - 1}), "patch.tokens",
                  {0, 2, 1});
  x = m.concat({m.weight("cls_token", {1, 1, kWidth}, 0.02f), x}, "with_cls", 1);
  x = add(m, x, m.weight("pos_embed", {1, kTokens, kWidth}, 0.02f), "embed");
  for (int64_t l = 0; l < kLayers; ++l)
    x = pre_ln_layer(m, x, "blocks" + std::to_string(l), kTokens, kWidth, kHeads,
                     /*c_attn=*/false, graph::kNoValue, /*tanh_gelu=*/false);
  x = m.layer_norm(x, "norm", kWidth);
  Attributes axis1;
  axis1.set("axis", int64_t{1});
  x = node(m, OpType::kGather, {x, b.constant("cls_index", TensorData::scalar_i64(0))}, "cls",
           axis1);
  ValueId logits = m.linear(x, "head", kWidth, 1000);
  b.rename(logits, "logits");
  b.output(logits);
  return b.build();
}

graph::Graph efficientnet_b0() {
  ModelBuilder m(104);
  graph::GraphBuilder& b = m.b();
  ValueId x = b.input("image", DType::kF32, Shape({1, 3, 224, 224}));
  x = m.conv(x, "stem", 3, 32, 3, 2, Act::kSiLU);
  struct Stage {
    int64_t expand, k, cout, repeats, stride;
  };
  const Stage stages[] = {{1, 3, 16, 1, 1},  {6, 3, 24, 2, 2},  {6, 5, 40, 2, 2}, {6, 3, 80, 3, 2},
                          {6, 5, 112, 3, 1}, {6, 5, 192, 4, 2}, {6, 3, 320, 1, 1}};
  int64_t cin = 32, block = 0;
  for (const Stage& s : stages)
    for (int64_t r = 0; r < s.repeats; ++r, ++block) {
      x = mbconv(m, x, "blocks" + std::to_string(block), cin, s.cout, s.expand, s.k,
                 r == 0 ? s.stride : 1);
      cin = s.cout;
    }
  x = m.conv(x, "head", cin, 1280, 1, 1, Act::kSiLU);
  x = node(m, OpType::kFlatten, {node(m, OpType::kGlobalAveragePool, {x}, "pool")}, "flatten");
  ValueId logits = m.linear(x, "classifier", 1280, 1000);
  b.rename(logits, "logits");
  b.output(logits);
  return b.build();
}

}  // namespace amp::demo
