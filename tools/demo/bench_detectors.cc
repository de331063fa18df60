#include "tools/demo/bench_detectors.h"

#include <string>
#include <vector>

#include "tools/demo/model_builder.h"

namespace amp::demo {
namespace {

using graph::Attributes;
using graph::Dim;
using graph::OpType;
using graph::Shape;
using graph::ValueId;

// --- ShuffleNetV2 / YOLO-FastestV2 ------------------------------------------------------

// torchvision's channel_shuffle(x, 2): view [N, 2, C/2, H, W], transpose(1, 2), view back.
ValueId channel_shuffle(ModelBuilder& m, ValueId x, const std::string& name, int64_t c,
                        int64_t hw) {
  ValueId r = m.reshape(x, name + ".reshape", {1, 2, c / 2, hw, hw});
  r = m.transpose(r, name + ".transpose", {0, 2, 1, 3, 4});
  return m.reshape(r, name + ".merge", {1, c, hw, hw});
}

// The branch of a ShuffleNetV2 unit: 1x1 + BN + Relu, depthwise 3x3 + BN, 1x1 + BN + Relu.
ValueId shuffle_branch(ModelBuilder& m, ValueId x, const std::string& name, int64_t cin,
                       int64_t cout, int64_t stride) {
  ValueId y = m.conv(x, name + ".pw1", cin, cout, 1, 1, Act::kRelu);
  y = m.conv(y, name + ".dw", cout, cout, 3, stride, Act::kNone, true, cout);
  return m.conv(y, name + ".pw2", cout, cout, 1, 1, Act::kRelu);
}

// A stage: one stride-2 unit (both halves see the input), then units that split the
// channels in halves and pass one half through. `hw` is the stage's output size.
ValueId shuffle_stage(ModelBuilder& m, ValueId x, const std::string& name, int64_t cin,
                      int64_t cout, int units, int64_t hw) {
  const int64_t half = cout / 2;
  ValueId proj = m.conv(x, name + ".0.proj.dw", cin, cin, 3, 2, Act::kNone, true, cin);
  proj = m.conv(proj, name + ".0.proj.pw", cin, half, 1, 1, Act::kRelu);
  ValueId main = shuffle_branch(m, x, name + ".0.main", cin, half, 2);
  x = channel_shuffle(m, m.concat({proj, main}, name + ".0.concat"), name + ".0.shuffle", cout, hw);
  for (int u = 1; u < units; ++u) {
    const std::string p = name + "." + std::to_string(u);
    std::vector<ValueId> halves = m.split(x, p + ".split", {half, half});
    ValueId y = shuffle_branch(m, halves[1], p + ".main", half, half, 1);
    x = channel_shuffle(m, m.concat({halves[0], y}, p + ".concat"), p + ".shuffle", cout, hw);
  }
  return x;
}

// Per scale: depthwise 5x5 + BN + Relu, 1x1 + BN + Relu, then box (12), objectness (3) and
// class (80) 1x1 convs, concatenated as YOLO-FastestV2 returns them.
ValueId yolo_head(ModelBuilder& m, ValueId x, const std::string& name, int64_t c) {
  ValueId y = m.conv(x, name + ".dw", c, c, 5, 1, Act::kRelu, true, c);
  y = m.conv(y, name + ".pw", c, c, 1, 1, Act::kRelu);
  ValueId box = m.conv(y, name + ".box", c, 12, 1, 1, Act::kNone, false);
  ValueId obj = m.conv(y, name + ".obj", c, 3, 1, 1, Act::kNone, false);
  ValueId cls = m.conv(y, name + ".cls", c, 80, 1, 1, Act::kNone, false);
  return m.concat({box, obj, cls}, name + ".out");
}

// --- MobileNetV3 / DB ----------------------------------------------------------------------

// Paddle's SE: GlobalAveragePool, 1x1 to c/4 + Relu, 1x1 back, HardSigmoid(0.2, 0.5), Mul.
ValueId squeeze_excite(ModelBuilder& m, ValueId x, const std::string& name, int64_t c) {
  ValueId s = m.b().node(OpType::kGlobalAveragePool, {x}, {}, name + ".pool");
  s = m.conv(s, name + ".fc1", c, c / 4, 1, 1, Act::kRelu, false);
  s = m.conv(s, name + ".fc2", c / 4, c, 1, 1, Act::kNone, false);
  Attributes hs;
  hs.set("alpha", 0.2f);
  hs.set("beta", 0.5f);
  s = m.b().node(OpType::kHardSigmoid, {s}, hs, name + ".gate");
  return m.b().node(OpType::kMul, {x, s}, {}, name + ".scale");
}

struct Bottleneck {
  int64_t k, expand, out;
  bool se;
  Act act;
  int64_t stride;
};

// MobileNetV3-large at scale 0.5, channels rounded to multiples of 8 as Paddle's
// make_divisible rounds them.
constexpr Bottleneck kMobileNetV3Large05[] = {
    {3, 8, 8, false, Act::kRelu, 1},         {3, 32, 16, false, Act::kRelu, 2},
    {3, 40, 16, false, Act::kRelu, 1},       {5, 40, 24, true, Act::kRelu, 2},
    {5, 64, 24, true, Act::kRelu, 1},        {5, 64, 24, true, Act::kRelu, 1},
    {3, 120, 40, false, Act::kHardSwish, 2}, {3, 104, 40, false, Act::kHardSwish, 1},
    {3, 96, 40, false, Act::kHardSwish, 1},  {3, 96, 40, false, Act::kHardSwish, 1},
    {3, 240, 56, true, Act::kHardSwish, 1},  {3, 336, 56, true, Act::kHardSwish, 1},
    {5, 336, 80, true, Act::kHardSwish, 2},  {5, 480, 80, true, Act::kHardSwish, 1},
    {5, 480, 80, true, Act::kHardSwish, 1},
};

ValueId bottleneck(ModelBuilder& m, ValueId x, const std::string& name, int64_t cin,
                   const Bottleneck& l) {
  ValueId y = m.conv(x, name + ".expand", cin, l.expand, 1, 1, l.act);
  y = m.conv(y, name + ".dw", l.expand, l.expand, l.k, l.stride, l.act, true, l.expand);
  if (l.se) y = squeeze_excite(m, y, name + ".se", l.expand);
  y = m.conv(y, name + ".project", l.expand, l.out, 1, 1, Act::kNone);
  if (l.stride == 1 && cin == l.out) y = m.b().node(OpType::kAdd, {x, y}, {}, name + ".residual");
  return y;
}

ValueId conv_transpose_2x2(ModelBuilder& m, ValueId x, const std::string& name, int64_t cin,
                           int64_t cout, bool bn_relu) {
  Attributes a;
  a.set("kernel_shape", std::vector<int64_t>{2, 2});
  a.set("strides", std::vector<int64_t>{2, 2});
  ValueId y = m.b().node(OpType::kConvTranspose,
                         {x, m.weight(name + ".weight", {cin, cout, 2, 2}, 0.5f),
                          m.weight(name + ".bias", {cout}, 0.05f)},
                         a, name);
  if (!bn_relu) return y;
  return m.activation(m.batch_norm(y, name + ".bn", cout), name, Act::kRelu);
}

}  // namespace

graph::Graph shuffle_yolo() {
  ModelBuilder m(3520352);
  graph::GraphBuilder& b = m.b();
  b.set_opset(13);
  ValueId x = b.input("image", DType::kF32, Shape({1, 3, 352, 352}));
  x = m.conv(x, "stem", 3, 24, 3, 2, Act::kRelu);  // 176
  Attributes pool;
  pool.set("kernel_shape", std::vector<int64_t>{3, 3});
  pool.set("strides", std::vector<int64_t>{2, 2});
  pool.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  x = b.node(OpType::kMaxPool, {x}, pool, "stem.pool");  // 88
  x = shuffle_stage(m, x, "stage2", 24, 48, 4, 44);
  ValueId c3 = shuffle_stage(m, x, "stage3", 48, 96, 8, 22);
  ValueId c4 = shuffle_stage(m, c3, "stage4", 96, 192, 4, 11);
  // Light FPN: the coarse scale upsampled and concatenated onto the finer one.
  ValueId p5 = m.conv(c4, "fpn.p5", 192, 72, 1, 1, Act::kRelu);
  ValueId up = m.upsample_nearest(p5, "fpn.up", 2.0f);
  ValueId p4 = m.conv(m.concat({up, c3}, "fpn.concat"), "fpn.p4", 72 + 96, 72, 1, 1, Act::kRelu);
  ValueId out4 = yolo_head(m, p4, "head4", 72);
  ValueId out5 = yolo_head(m, p5, "head5", 72);
  b.rename(out4, "p4");
  b.rename(out5, "p5");
  b.output(out4);
  b.output(out5);
  return b.build();
}

graph::Graph db_text_detector() {
  ModelBuilder m(6400640);
  graph::GraphBuilder& b = m.b();
  b.set_opset(13);
  ValueId x = b.input("image", DType::kF32, Shape({1, 3, 640, 640}));
  x = m.conv(x, "stem", 3, 8, 3, 2, Act::kHardSwish);  // 320
  int64_t c = 8;
  // The features before each later stride-2 unit, and the last: strides 4, 8, 16, 32.
  std::vector<ValueId> features;
  std::vector<int64_t> feature_channels;
  int i = 0;
  for (const Bottleneck& l : kMobileNetV3Large05) {
    if (l.stride == 2 && i > 2) {
      features.push_back(x);
      feature_channels.push_back(c);
    }
    x = bottleneck(m, x, "block" + std::to_string(i++), c, l);
    c = l.out;
  }
  x = m.conv(x, "last", c, 480, 1, 1, Act::kHardSwish);
  features.push_back(x);
  feature_channels.push_back(480);

  // DB-FPN: lateral 1x1 convs to 96 channels, added top-down after 2x upsampling.
  constexpr int64_t kInner = 96, kOut = kInner / 4;
  std::vector<ValueId> lateral;
  for (size_t s = 0; s < features.size(); ++s)
    lateral.push_back(m.conv(features[s], "fpn.in" + std::to_string(s + 2), feature_channels[s],
                             kInner, 1, 1, Act::kNone, false));
  for (size_t s = lateral.size() - 1; s-- > 0;) {
    const std::string n = "fpn.top_down" + std::to_string(s + 2);
    lateral[s] =
        b.node(OpType::kAdd, {lateral[s], m.upsample_nearest(lateral[s + 1], n + ".up", 2)}, {}, n);
  }
  std::vector<ValueId> maps;
  for (size_t s = lateral.size(); s-- > 0;) {
    const std::string n = "fpn.out" + std::to_string(s + 2);
    ValueId p = m.conv(lateral[s], n, kInner, kOut, 3, 1, Act::kNone, false);
    if (s > 0) p = m.upsample_nearest(p, n + ".up", static_cast<float>(1 << s));
    maps.push_back(p);
  }
  x = m.concat(maps, "fpn.fuse");  // [1, 96, 160, 160]

  // DB head (the probability map): 3x3 + BN + Relu, two 2x2 stride-2 ConvTransposes, Sigmoid.
  x = m.conv(x, "head.conv", kInner, kOut, 3, 1, Act::kRelu);
  x = conv_transpose_2x2(m, x, "head.up1", kOut, kOut, true);
  x = conv_transpose_2x2(m, x, "head.up2", kOut, 1, false);
  x = b.node(OpType::kSigmoid, {x}, {}, "head.sigmoid");
  b.rename(x, "maps");
  b.output(x);
  return b.build();
}

}  // namespace amp::demo
