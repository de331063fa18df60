// amp-make-demo-models: writes AMPRT's own demo models (no third-party weights in the
// repository), built with the IR builder and saved with the .amp writer:
//
//   demo_resnet.amp       ResNet-style CNN classifier, input "image" [N,3,32,32] -> "logits" [N,10]
//     stem Conv3x3(16)+BN+Relu, two residual blocks (the second downsamples with a strided
//     conv and a 1x1 projection), GlobalAveragePool, Flatten, Gemm.
//   demo_transformer.amp  one-layer transformer encoder classifier, input "tokens" i64
//     [N,16] -> "logits" [N,4]: token + position embeddings, LayerNorm, 4-head
//     self-attention (MatMul, Softmax), residuals, LayerNorm, Gelu MLP, first-token head.
//   demo_bert_pytorch.amp  a 2-layer BERT-style sentence encoder written the way PyTorch's
//     exporter writes one: inputs "input_ids", "attention_mask" i64 [N,16] -> "embedding"
//     [N,32]; LayerNorm decomposed (ReduceMean, Sub, Pow, Sqrt, Div), erf GELU, the attention
//     mask as (1 - mask) * -3.4028e38 added to the scores, mean pooling over the mask and an
//     F.normalize head (ReduceL2, Clip, Expand, Div).
//   demo_bert_fused.amp  the same encoder with opset-17 LayerNormalization and opset-20 Gelu.
//   demo_bert_{pytorch,fused}.onnx  the same two as ONNX (graph/onnx/onnx_exporter.h).
//   With --bench-models, only demo_bert6_{pytorch,fused}.onnx: the same encoder at a
//     MiniLM-L6 size (6 layers, width 384, 12 heads, 1536 hidden, a 1000-token vocabulary),
//     the transformer rows of tools/bench/bench_vs_ort.py, run by ONNX Runtime and amprun;
//     demo_bert6_fused_128.onnx, the fused form at 128 tokens (BERT's usual length, where
//     attention is a fifth of the products, not a fiftieth); and that script's detectors,
//     demo_shuffle_yolo.onnx, demo_db_text_det.onnx and demo_yolov8n.onnx (bench_detectors.h);
//     its recurrent models, demo_speech_{lstm,gru,bilstm,bilstm512}.onnx (bench_speech.h);
//     and demo_{gpt2,conformer,vit,efficientnet}.onnx (bench_exports.h).
//   With --search-model, only demo_bert14_pytorch.onnx: the PyTorch form at 14 layers of
//     that width (728 nodes), the size the accuracy search's "700-node transformer in under
//     10 seconds" goal is measured on (runtime/accuracy_search.h).
//   With --attention-model, only demo_attention.amp: one causal self-attention op (opset 23
//     Attention, 8 heads of 64) on "x" [1,S,512] with the sequence length S symbolic, so
//     amprun --shape x=1x4096x512 times attention alone at any length (tools/gpu/check.sh
//     compares the CUDA attention paths with it).
//   demo_voice_lstm.amp  a streaming voice-activity model: "features" [1,T,40], LSTM state
//     "h_in"/"c_in" [1,1,64] -> "speech_prob" [1,1], "h_out", "c_out"; an If on T: chunks
//     under 4 frames report silence and pass the state through, the others run the LSTM.
//
// Weights come from a seeded generator: the files are identical on every machine.
// Usage: amp-make-demo-models OUT_DIR [--bench-models | --search-model | --attention-model]
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "graph/ir/graph_builder.h"
#include "graph/ir/verifier.h"
#include "graph/onnx/onnx_exporter.h"
#include "graph/ops/shape_inference.h"
#include "graph/serialize/amp_writer.h"
#include "tools/demo/bench_detectors.h"
#include "tools/demo/bench_exports.h"
#include "tools/demo/bench_speech.h"
#include "tools/demo/model_builder.h"

namespace {

using amp::DType;
using amp::demo::ModelBuilder;
using namespace amp::graph;

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

struct BertSize {
  int64_t vocab, dim, heads, ff, layers, seq = 16;
};
constexpr BertSize kDemoBert{64, 32, 4, 64, 2};
constexpr BertSize kBenchBert{1000, 384, 12, 1536, 6};
constexpr BertSize kBenchBert128{1000, 384, 12, 1536, 6, 128};
constexpr BertSize kSearchBert{1000, 384, 12, 1536, 14};

// A BERT-style encoder (see the header): `fused` picks LayerNormalization/Gelu over the
// decomposed forms PyTorch's exporter writes for older opsets.
Graph bert(bool fused, const BertSize& size = kDemoBert) {
  const int64_t kSeq = size.seq, kVocab = size.vocab, kDim = size.dim, kHeads = size.heads,
                kHeadDim = kDim / kHeads, kFf = size.ff, kLayers = size.layers;
  ModelBuilder m(5150);  // the same weights in both forms
  GraphBuilder& b = m.b();
  b.set_opset(fused ? 20 : 13);
  const Shape io({Dim::symbolic("N"), Dim(kSeq)});
  ValueId ids = b.input("input_ids", DType::kI64, io);
  ValueId mask = b.input("attention_mask", DType::kI64, io);
  Attributes axis0, last, keep, drop, to_float;
  axis0.set("axis", int64_t{0});
  last.set("axis", int64_t{-1});
  keep.set("keepdims", int64_t{1});
  drop.set("keepdims", int64_t{0});
  to_float.set("to", int64_t{1});
  auto layer_norm = [&](ValueId x, const std::string& name) {
    if (fused) return m.layer_norm(x, name, kDim);
    // PyTorch < opset 17: u = mean(x); s = mean((x - u)^2); (x - u) / sqrt(s + eps) * g + b
    ValueId axes = m.ints(name + ".axes", {-1});
    ValueId mean = b.node(OpType::kReduceMean, {x, axes}, keep, name + ".mean");
    ValueId centered = b.node(OpType::kSub, {x, mean}, {}, name + ".sub");
    ValueId sq = b.node(OpType::kPow, {centered, m.scalar(name + ".two", 2.0f)}, {}, name + ".pow");
    ValueId var = b.node(OpType::kReduceMean, {sq, axes}, keep, name + ".var");
    ValueId std = b.node(
        OpType::kSqrt,
        {b.node(OpType::kAdd, {var, m.scalar(name + ".eps", 1e-12f)}, {}, name + ".add_eps")}, {},
        name + ".sqrt");
    ValueId y = b.node(OpType::kDiv, {centered, std}, {}, name + ".div");
    y = b.node(OpType::kMul, {y, m.weight(name + ".gamma", {kDim}, 0.05f, 1.0f)}, {},
               name + ".mul");
    return b.node(OpType::kAdd, {y, m.weight(name + ".beta", {kDim}, 0.05f)}, {}, name + ".add");
  };
  auto gelu = [&](ValueId x, const std::string& name) {
    if (fused) return b.node(OpType::kGelu, {x}, {}, name);
    // x * 0.5 * (1 + erf(x / sqrt(2)))
    ValueId e = b.node(
        OpType::kErf,
        {b.node(OpType::kDiv, {x, m.scalar(name + ".sqrt2", 1.4142135f)}, {}, name + ".div")}, {},
        name + ".erf");
    ValueId one_plus = b.node(OpType::kAdd, {e, m.scalar(name + ".one", 1.0f)}, {}, name + ".add");
    ValueId half = b.node(OpType::kMul, {x, m.scalar(name + ".half", 0.5f)}, {}, name + ".mul");
    return b.node(OpType::kMul, {half, one_plus}, {}, name + ".mul2");
  };

  ValueId x = b.node(OpType::kGather, {m.weight("embed.tokens", {kVocab, kDim}, 0.5f), ids}, axis0,
                     "embed");
  x = b.node(OpType::kAdd, {x, m.weight("embed.positions", {kSeq, kDim}, 0.1f)}, {}, "embed.pos");
  x = layer_norm(x, "embed.norm");
  // HF's extended mask: (1 - mask[:, None, None, :]) * finfo(float32).min.
  ValueId fmask = b.node(OpType::kCast, {mask}, to_float, "mask.cast");
  ValueId m4 =
      b.node(OpType::kUnsqueeze, {fmask, m.ints("mask.axes", {1, 2})}, {}, "mask.unsqueeze");
  ValueId inv = b.node(OpType::kSub, {m.scalar("mask.one", 1.0f), m4}, {}, "mask.invert");
  ValueId bias =
      b.node(OpType::kMul, {inv, m.scalar("mask.min", -3.4028234663852886e38f)}, {}, "mask.bias");

  Attributes to_heads, to_heads_t;
  to_heads.set("perm", std::vector<int64_t>{0, 2, 1, 3});
  to_heads_t.set("perm", std::vector<int64_t>{0, 2, 3, 1});
  for (int64_t l = 0; l < kLayers; ++l) {
    const std::string p = "layer" + std::to_string(l);
    ValueId split = m.ints(p + ".heads_shape", {0, 0, kHeads, kHeadDim});
    auto heads = [&](ValueId v, const std::string& name, const Attributes& perm) {
      ValueId r = b.node(OpType::kReshape, {v, split}, {}, name + ".reshape");
      return b.node(OpType::kTranspose, {r}, perm, name + ".transpose");
    };
    ValueId q = heads(m.linear(x, p + ".q", kDim, kDim), p + ".q", to_heads);
    ValueId k = heads(m.linear(x, p + ".k", kDim, kDim), p + ".k", to_heads_t);
    ValueId v = heads(m.linear(x, p + ".v", kDim, kDim), p + ".v", to_heads);
    ValueId scores = b.node(OpType::kMatMul, {q, k}, {}, p + ".scores");
    scores = b.node(OpType::kDiv, {scores, m.scalar(p + ".sqrt_d", std::sqrt(float(kHeadDim)))}, {},
                    p + ".scale");
    scores = b.node(OpType::kAdd, {scores, bias}, {}, p + ".mask");
    ValueId probs = b.node(OpType::kSoftmax, {scores}, last, p + ".softmax");
    ValueId ctx = b.node(OpType::kMatMul, {probs, v}, {}, p + ".context");
    ctx = b.node(OpType::kTranspose, {ctx}, to_heads, p + ".merge.transpose");
    ctx = b.node(OpType::kReshape, {ctx, m.ints(p + ".merge_shape", {0, 0, kDim})}, {},
                 p + ".merge.reshape");
    ctx = m.linear(ctx, p + ".out", kDim, kDim);
    x = layer_norm(b.node(OpType::kAdd, {x, ctx}, {}, p + ".residual1"), p + ".norm1");
    ValueId h = gelu(m.linear(x, p + ".fc1", kDim, kFf), p + ".gelu");
    h = m.linear(h, p + ".fc2", kFf, kDim);
    x = layer_norm(b.node(OpType::kAdd, {x, h}, {}, p + ".residual2"), p + ".norm2");
  }
  // Mean pooling: sum(x * mask) / clamp(sum(mask), 1e-9), the mask expanded to x's shape.
  ValueId me = b.node(OpType::kUnsqueeze, {fmask, m.ints("pool.axes", {-1})}, {}, "pool.unsqueeze");
  ValueId x_shape = b.node(OpType::kShape, {x}, {}, "pool.shape");
  me = b.node(OpType::kExpand, {me, x_shape}, {}, "pool.expand");
  ValueId seq_axis = m.ints("pool.seq_axis", {1});
  ValueId summed =
      b.node(OpType::kReduceSum, {b.node(OpType::kMul, {x, me}, {}, "pool.mul"), seq_axis}, drop,
             "pool.sum");
  ValueId count = b.node(OpType::kReduceSum, {me, seq_axis}, drop, "pool.count");
  count = b.node(OpType::kClip, {count, m.scalar("pool.min", 1e-9f)}, {}, "pool.clamp");
  ValueId pooled = b.node(OpType::kDiv, {summed, count}, {}, "pool.mean");
  // F.normalize(p=2, dim=1): x / max(||x||, 1e-12).
  ValueId norm = b.node(OpType::kReduceL2, {pooled, seq_axis}, keep, "normalize.l2");
  norm = b.node(OpType::kClip, {norm, m.scalar("normalize.eps", 1e-12f)}, {}, "normalize.clamp");
  norm = b.node(OpType::kExpand, {norm, b.node(OpType::kShape, {pooled}, {}, "normalize.shape")},
                {}, "normalize.expand");
  ValueId emb = b.node(OpType::kDiv, {pooled, norm}, {}, "normalize.div");
  b.rename(emb, "embedding");
  b.output(emb);
  return b.build();
}

// The streaming voice-activity model (below) is an If on the chunk's length, as exported
// VAD models gate their network on their inputs: chunks too short to judge take the
// "short" branch, which reports silence and hands the state back unchanged; the others
// take the LSTM branch. Both branches read the outer "features", "h_in" and "c_in" as
// captured inputs (graph/ops/control_flow.h) and produce [speech_prob, h_out, c_out].
constexpr int64_t kVoiceFeatures = 40, kVoiceHidden = 64, kVoiceMinFrames = 4;

ValueId voice_branch_inputs(GraphBuilder& b, std::vector<ValueId>* state) {
  ValueId feats =
      b.input("features", DType::kF32, Shape({Dim(1), Dim::symbolic("T"), Dim(kVoiceFeatures)}));
  const Shape shape({1, 1, kVoiceHidden});
  state->push_back(b.input("h_in", DType::kF32, shape));
  state->push_back(b.input("c_in", DType::kF32, shape));
  return feats;
}

// One LSTM over the chunk's frames, its state carried in and out by the caller, a sigmoid
// head on the last hidden state. The weights are the branch's own constants.
std::shared_ptr<const Graph> voice_lstm_branch() {
  ModelBuilder m(8086);
  GraphBuilder& b = m.b();
  b.set_opset(14);
  std::vector<ValueId> state;
  ValueId feats = voice_branch_inputs(b, &state);
  Attributes seq_first;
  seq_first.set("perm", std::vector<int64_t>{1, 0, 2});
  ValueId x = b.node(OpType::kTranspose, {feats}, seq_first, "frames");
  const float s = 1.0f / std::sqrt(static_cast<float>(kVoiceHidden));
  Attributes lstm;
  lstm.set("hidden_size", kVoiceHidden);
  std::vector<ValueId> outs =
      b.node_multi(OpType::kLSTM,
                   {x, m.weight("lstm.W", {1, 4 * kVoiceHidden, kVoiceFeatures}, s),
                    m.weight("lstm.R", {1, 4 * kVoiceHidden, kVoiceHidden}, s),
                    m.weight("lstm.B", {1, 8 * kVoiceHidden}, s), kNoValue, state[0], state[1]},
                   3, lstm);
  ValueId last = b.node(OpType::kReshape, {outs[1], m.ints("head.shape", {1, kVoiceHidden})}, {},
                        "head.flatten");
  ValueId logit = m.linear(last, "head", kVoiceHidden, 1);
  b.output(b.node(OpType::kSigmoid, {logit}, {}, "head.sigmoid"));
  b.output(outs[1]);
  b.output(outs[2]);
  return std::make_shared<const Graph>(b.build());
}

std::shared_ptr<const Graph> voice_short_branch() {
  GraphBuilder b;
  b.set_opset(14);
  std::vector<ValueId> state;
  voice_branch_inputs(b, &state);
  ValueId silence =
      b.constant("silence", TensorData::from_vector(DType::kF32, {1, 1}, std::vector<float>{0}));
  b.output(b.node(OpType::kIdentity, {silence}, {}, "short.prob"));
  b.output(b.node(OpType::kIdentity, {state[0]}, {}, "short.h"));
  b.output(b.node(OpType::kIdentity, {state[1]}, {}, "short.c"));
  return std::make_shared<const Graph>(b.build());
}

Graph voice_lstm() {
  ModelBuilder m(8086);
  GraphBuilder& b = m.b();
  b.set_opset(15);  // Shape with start/end
  std::vector<ValueId> state;
  ValueId feats = voice_branch_inputs(b, &state);
  Attributes frames_axis;
  frames_axis.set("start", int64_t{1});
  frames_axis.set("end", int64_t{2});
  ValueId frames = b.node(OpType::kShape, {feats}, frames_axis, "chunk.frames");
  ValueId is_short = b.node(OpType::kLess, {frames, m.ints("chunk.min_frames", {kVoiceMinFrames})},
                            {}, "chunk.is_short");
  Attributes branches;
  branches.set("then_branch", SubgraphAttr{voice_short_branch()});
  branches.set("else_branch", SubgraphAttr{voice_lstm_branch()});
  branches.set("captured_inputs", int64_t{3});
  std::vector<ValueId> outs =
      b.node_multi(OpType::kIf, {is_short, feats, state[0], state[1]}, 3, branches, "chunk.gate");
  b.rename(outs[0], "speech_prob");
  b.rename(outs[1], "h_out");
  b.rename(outs[2], "c_out");
  for (ValueId v : outs) b.output(v);
  return b.build();
}

// Writes `g` as .amp, or as ONNX when the path ends in .onnx.
Graph attention_only() {
  GraphBuilder b;
  const ValueId x = b.input("x", DType::kF32, Shape({Dim(1), Dim::symbolic("S"), Dim(8 * 64)}));
  Attributes a;
  a.set("q_num_heads", int64_t{8});
  a.set("kv_num_heads", int64_t{8});
  a.set("is_causal", int64_t{1});
  ValueId y = b.node(OpType::kAttention, {x, x, x}, a, "attention");
  b.rename(y, "y");
  b.output(y);
  Graph g = b.build();
  return g;
}

int write(Graph g, const std::filesystem::path& path) {
  g.metadata.producer = "amp-make-demo-models 1";
  g.metadata.source_opset = 20;
  g.metadata.source_format = "amprt-builder";
  amp::Status s = infer_shapes(g);
  if (s.is_ok()) s = verify_graph(g);
  if (s.is_ok())
    s = path.extension() == ".onnx" ? write_onnx_file(g, path.string())
                                    : write_amp_file(g, path.string());
  if (!s.is_ok()) {
    std::cerr << "amp-make-demo-models: " << path << ": " << s.to_string() << "\n";
    return 1;
  }
  std::cout << "wrote " << path.string() << " (" << g.nodes.size() << " nodes)\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const char* usage =
      "usage: amp-make-demo-models OUT_DIR [--bench-models | --search-model | --attention-model]\n";
  if (argc >= 2 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
    std::cout << usage;
    return 0;
  }
  const bool bench = argc == 3 && std::string(argv[2]) == "--bench-models";
  const bool search = argc == 3 && std::string(argv[2]) == "--search-model";
  const bool attention = argc == 3 && std::string(argv[2]) == "--attention-model";
  // An option where the folder belongs would otherwise become a folder named like it.
  if ((argc != 2 && !bench && !search && !attention) || argv[1][0] == '-') {
    std::cerr << usage;
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (attention) return write(attention_only(), dir / "demo_attention.amp");
  if (search)  // 98 MB: written only when asked for
    return write(bert(/*fused=*/false, kSearchBert), dir / "demo_bert14_pytorch.onnx");
  if (bench)  // 3 x 44 MB, 35 MB, 6 x 1-13 MB and 4 x 8-67 MB: written only when asked for
    return write(bert(/*fused=*/false, kBenchBert), dir / "demo_bert6_pytorch.onnx") |
           write(bert(/*fused=*/true, kBenchBert), dir / "demo_bert6_fused.onnx") |
           write(bert(/*fused=*/true, kBenchBert128), dir / "demo_bert6_fused_128.onnx") |
           write(amp::demo::shuffle_yolo(), dir / "demo_shuffle_yolo.onnx") |
           write(amp::demo::db_text_detector(), dir / "demo_db_text_det.onnx") |
           write(amp::demo::yolov8n(320), dir / "demo_yolov8n.onnx") |
           write(amp::demo::speech_lstm(), dir / "demo_speech_lstm.onnx") |
           write(amp::demo::speech_gru(), dir / "demo_speech_gru.onnx") |
           write(amp::demo::speech_bilstm(), dir / "demo_speech_bilstm.onnx") |
           write(amp::demo::speech_bilstm512(), dir / "demo_speech_bilstm512.onnx") |
           write(amp::demo::gpt2_decoder(), dir / "demo_gpt2.onnx") |
           write(amp::demo::conformer(), dir / "demo_conformer.onnx") |
           write(amp::demo::vit_tiny(), dir / "demo_vit.onnx") |
           write(amp::demo::efficientnet_b0(), dir / "demo_efficientnet.onnx");
  return write(resnet(), dir / "demo_resnet.amp") |
         write(transformer(), dir / "demo_transformer.amp") |
         write(bert(/*fused=*/false), dir / "demo_bert_pytorch.amp") |
         write(bert(/*fused=*/true), dir / "demo_bert_fused.amp") |
         write(bert(/*fused=*/false), dir / "demo_bert_pytorch.onnx") |
         write(bert(/*fused=*/true), dir / "demo_bert_fused.onnx") |
         write(voice_lstm(), dir / "demo_voice_lstm.amp");
}
