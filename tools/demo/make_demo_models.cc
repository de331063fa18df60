// amp-make-demo-models: writes AMPRT's own demo models (no third-party weights in the
// repository), built with the IR builder and saved with the .amp writer:
//
//   demo_resnet.amp       ResNet-style CNN classifier, input "image" [N,3,32,32] -> "logits" [N,10]
//     stem Conv3x3(16)+BN+Relu, two residual blocks (the second downsamples with a strided
//     conv and a 1x1 projection), GlobalAveragePool, Flatten, Gemm.
//   demo_transformer.amp  one-layer transformer encoder classifier, input "tokens" i64
//     [N,16] -> "logits" [N,4]: token + position embeddings, LayerNorm, 4-head
//     self-attention (MatMul, Softmax), residuals, LayerNorm, Gelu MLP, first-token head.
//
// Weights come from a seeded generator: the files are identical on every machine.
// Usage: amp-make-demo-models OUT_DIR
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "graph/ir/graph_builder.h"
#include "graph/ir/verifier.h"
#include "graph/ops/shape_inference.h"
#include "graph/serialize/amp_writer.h"

namespace {

using amp::DType;
using namespace amp::graph;

class Rng {  // splitmix64
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  float uniform(float lo, float hi) {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return lo + (hi - lo) * static_cast<float>(z >> 40) / static_cast<float>(1ull << 24);
  }

 private:
  uint64_t s_;
};

class ModelBuilder {
 public:
  explicit ModelBuilder(uint64_t seed) : rng_(seed) { b_.set_opset(20); }

  ValueId weight(const std::string& name, std::vector<int64_t> dims, float scale,
                 float offset = 0) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    std::vector<float> v(static_cast<size_t>(n));
    for (float& x : v) x = offset + rng_.uniform(-scale, scale);
    return b_.constant(name, TensorData::from_vector(DType::kF32, std::move(dims), v));
  }
  ValueId ints(const std::string& name, const std::vector<int64_t>& v) {
    return b_.constant(name, TensorData::vector_i64(v));
  }
  ValueId scalar(const std::string& name, float v) {
    return b_.constant(name, TensorData::scalar_f32(v));
  }
  GraphBuilder& b() { return b_; }

  // Conv (+ BatchNormalization) (+ Relu)
  ValueId conv_bn(ValueId x, const std::string& name, int64_t cin, int64_t cout, int64_t k,
                  int64_t stride, bool relu) {
    Attributes a;
    const int64_t pad = k / 2;
    a.set("kernel_shape", std::vector<int64_t>{k, k});
    a.set("pads", std::vector<int64_t>{pad, pad, pad, pad});
    a.set("strides", std::vector<int64_t>{stride, stride});
    const float he = std::sqrt(2.0f / static_cast<float>(cin * k * k));
    ValueId y =
        b_.node(OpType::kConv, {x, weight(name + ".weight", {cout, cin, k, k}, he)}, a, name);
    Attributes bn;
    bn.set("epsilon", 1e-5f);
    y = b_.node(
        OpType::kBatchNormalization,
        {y, weight(name + ".bn.gamma", {cout}, 0.1f, 1.0f), weight(name + ".bn.beta", {cout}, 0.1f),
         weight(name + ".bn.mean", {cout}, 0.1f), weight(name + ".bn.var", {cout}, 0.1f, 1.0f)},
        bn, name + ".bn");
    return relu ? b_.node(OpType::kRelu, {y}, {}, name + ".relu") : y;
  }

  ValueId linear(ValueId x, const std::string& name, int64_t in, int64_t out) {
    const float s = 1.0f / std::sqrt(static_cast<float>(in));
    ValueId y = b_.node(OpType::kMatMul, {x, weight(name + ".weight", {in, out}, s)}, {}, name);
    return b_.node(OpType::kAdd, {y, weight(name + ".bias", {out}, 0.02f)}, {}, name + ".add");
  }

  ValueId layer_norm(ValueId x, const std::string& name, int64_t d) {
    Attributes a;
    a.set("axis", int64_t{-1});
    a.set("epsilon", 1e-5f);
    return b_.node(
        OpType::kLayerNormalization,
        {x, weight(name + ".gamma", {d}, 0.05f, 1.0f), weight(name + ".beta", {d}, 0.05f)}, a,
        name);
  }

 private:
  GraphBuilder b_;
  Rng rng_;
};

Graph resnet() {
  ModelBuilder m(20261202);
  GraphBuilder& b = m.b();
  ValueId x = b.input("image", DType::kF32, Shape({Dim::symbolic("N"), Dim(3), Dim(32), Dim(32)}));
  x = m.conv_bn(x, "stem", 3, 16, 3, 1, true);
  // block 1: identity shortcut
  ValueId y = m.conv_bn(x, "block1.conv1", 16, 16, 3, 1, true);
  y = m.conv_bn(y, "block1.conv2", 16, 16, 3, 1, false);
  x = b.node(OpType::kRelu, {b.node(OpType::kAdd, {x, y}, {}, "block1.add")}, {}, "block1.relu");
  // block 2: downsample, 1x1 projection shortcut
  y = m.conv_bn(x, "block2.conv1", 16, 32, 3, 2, true);
  y = m.conv_bn(y, "block2.conv2", 32, 32, 3, 1, false);
  ValueId shortcut = m.conv_bn(x, "block2.proj", 16, 32, 1, 2, false);
  x = b.node(OpType::kRelu, {b.node(OpType::kAdd, {shortcut, y}, {}, "block2.add")}, {},
             "block2.relu");
  x = b.node(OpType::kGlobalAveragePool, {x}, {}, "pool");
  Attributes flat;
  flat.set("axis", int64_t{1});
  x = b.node(OpType::kFlatten, {x}, flat, "flatten");
  Attributes gemm;
  gemm.set("transB", int64_t{1});
  x = b.node(OpType::kGemm,
             {x, m.weight("fc.weight", {10, 32}, 0.2f), m.weight("fc.bias", {10}, 0.05f)}, gemm,
             "fc");
  b.rename(x, "logits");
  b.output(x);
  return b.build();
}

Graph transformer() {
  constexpr int64_t kVocab = 64, kSeq = 16, kDim = 32, kHeads = 4, kHeadDim = kDim / kHeads,
                    kFf = 64, kClasses = 4;
  ModelBuilder m(424242);
  GraphBuilder& b = m.b();
  ValueId tokens = b.input("tokens", DType::kI64, Shape({Dim::symbolic("N"), Dim(kSeq)}));
  Attributes axis0;
  axis0.set("axis", int64_t{0});
  ValueId x = b.node(OpType::kGather, {m.weight("embed.tokens", {kVocab, kDim}, 0.5f), tokens},
                     axis0, "embed");
  x = b.node(OpType::kAdd, {x, m.weight("embed.positions", {kSeq, kDim}, 0.1f)}, {},
             "embed.add_pos");
  x = m.layer_norm(x, "embed.norm", kDim);

  // Self-attention: heads via Reshape [N,S,H,Dh] (0 copies the batch dim) + Transpose.
  Attributes to_heads, to_heads_t, from_heads;
  to_heads.set("perm", std::vector<int64_t>{0, 2, 1, 3});
  to_heads_t.set("perm", std::vector<int64_t>{0, 2, 3, 1});
  ValueId split_shape = m.ints("attn.heads_shape", {0, 0, kHeads, kHeadDim});
  auto heads = [&](ValueId v, const std::string& name, const Attributes& perm) {
    ValueId r = b.node(OpType::kReshape, {v, split_shape}, {}, name + ".reshape");
    return b.node(OpType::kTranspose, {r}, perm, name + ".transpose");
  };
  ValueId q = heads(m.linear(x, "attn.q", kDim, kDim), "attn.q", to_heads);
  ValueId k = heads(m.linear(x, "attn.k", kDim, kDim), "attn.k", to_heads_t);
  ValueId v = heads(m.linear(x, "attn.v", kDim, kDim), "attn.v", to_heads);
  ValueId scores = b.node(OpType::kMatMul, {q, k}, {}, "attn.scores");
  scores = b.node(OpType::kMul, {scores, m.scalar("attn.scale", 1.0f / std::sqrt(float(kHeadDim)))},
                  {}, "attn.scale_mul");
  Attributes last;
  last.set("axis", int64_t{-1});
  ValueId probs = b.node(OpType::kSoftmax, {scores}, last, "attn.softmax");
  ValueId ctx = b.node(OpType::kMatMul, {probs, v}, {}, "attn.context");
  ctx = b.node(OpType::kTranspose, {ctx}, to_heads, "attn.merge.transpose");
  ctx = b.node(OpType::kReshape, {ctx, m.ints("attn.merge_shape", {0, 0, kDim})}, {},
               "attn.merge.reshape");
  ctx = m.linear(ctx, "attn.out", kDim, kDim);
  x = b.node(OpType::kAdd, {x, ctx}, {}, "attn.residual");
  x = m.layer_norm(x, "attn.norm", kDim);

  // MLP with Gelu.
  ValueId h = m.linear(x, "mlp.fc1", kDim, kFf);
  h = b.node(OpType::kGelu, {h}, {}, "mlp.gelu");
  h = m.linear(h, "mlp.fc2", kFf, kDim);
  x = b.node(OpType::kAdd, {x, h}, {}, "mlp.residual");
  x = m.layer_norm(x, "mlp.norm", kDim);

  // Classifier on the first token.
  Attributes axis1;
  axis1.set("axis", int64_t{1});
  ValueId first = b.node(OpType::kGather, {x, b.constant("head.index", TensorData::scalar_i64(0))},
                         axis1, "head.first_token");
  ValueId logits = m.linear(first, "head", kDim, kClasses);
  b.rename(logits, "logits");
  b.output(logits);
  return b.build();
}

int write(Graph g, const std::filesystem::path& path) {
  g.metadata.producer = "amp-make-demo-models 1";
  g.metadata.source_opset = 20;
  g.metadata.source_format = "amprt-builder";
  amp::Status s = infer_shapes(g);
  if (s.is_ok()) s = verify_graph(g);
  if (s.is_ok()) s = write_amp_file(g, path.string());
  if (!s.is_ok()) {
    std::cerr << "amp-make-demo-models: " << path << ": " << s.to_string() << "\n";
    return 1;
  }
  std::cout << "wrote " << path.string() << " (" << g.nodes.size() << " nodes)\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: amp-make-demo-models OUT_DIR\n";
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  return write(resnet(), dir / "demo_resnet.amp") |
         write(transformer(), dir / "demo_transformer.amp");
}
