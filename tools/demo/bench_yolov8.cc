// demo_yolov8n.onnx: YOLOv8n as Ultralytics' `export(format="onnx")` writes it (BatchNorm
// fused into the convs, SiLU as Sigmoid and Mul, C2f's chunk as Split, the decoded head
// inside the graph). Layer sizes from ultralytics/cfg/models/v8/yolov8.yaml at scale n
// (depth 0.33, width 0.25).
#include <algorithm>
#include <string>
#include <vector>

#include "tools/demo/bench_detectors.h"
#include "tools/demo/model_builder.h"

namespace amp::demo {
namespace {

using graph::Attributes;
using graph::OpType;
using graph::Shape;
using graph::ValueId;

// Ultralytics' Conv after fuse(): Conv with bias, then SiLU.
ValueId conv_silu(ModelBuilder& m, ValueId x, const std::string& name, int64_t cin, int64_t cout,
                  int64_t k, int64_t stride = 1) {
  return m.conv(x, name, cin, cout, k, stride, Act::kSiLU, /*bn=*/false);
}

// C2f: a 1x1 conv to 2c channels split in halves, n bottlenecks (two 3x3 convs, a residual
// with `shortcut`) each on the previous one's output, all parts concatenated, a 1x1 conv.
ValueId c2f(ModelBuilder& m, ValueId x, const std::string& name, int64_t cin, int64_t cout, int n,
            bool shortcut) {
  const int64_t c = cout / 2;
  std::vector<ValueId> parts =
      m.split(conv_silu(m, x, name + ".cv1", cin, 2 * c, 1), name + ".chunk", {c, c});
  for (int i = 0; i < n; ++i) {
    const std::string p = name + ".m." + std::to_string(i);
    ValueId y = conv_silu(m, parts.back(), p + ".cv1", c, c, 3);
    y = conv_silu(m, y, p + ".cv2", c, c, 3);
    if (shortcut) y = m.b().node(OpType::kAdd, {parts.back(), y}, {}, p + ".add");
    parts.push_back(y);
  }
  const int64_t parts_channels = static_cast<int64_t>(parts.size()) * c;
  return conv_silu(m, m.concat(parts, name + ".cat"), name + ".cv2", parts_channels, cout, 1);
}

// SPPF: a 1x1 conv to half the channels, three 5x5 stride-1 MaxPools in a row, the four
// concatenated, a 1x1 conv.
ValueId sppf(ModelBuilder& m, ValueId x, const std::string& name, int64_t cin, int64_t cout) {
  Attributes pool;
  pool.set("kernel_shape", std::vector<int64_t>{5, 5});
  pool.set("strides", std::vector<int64_t>{1, 1});
  pool.set("pads", std::vector<int64_t>{2, 2, 2, 2});
  std::vector<ValueId> parts{conv_silu(m, x, name + ".cv1", cin, cin / 2, 1)};
  for (int i = 0; i < 3; ++i)
    parts.push_back(
        m.b().node(OpType::kMaxPool, {parts.back()}, pool, name + ".m" + std::to_string(i)));
  return conv_silu(m, m.concat(parts, name + ".cat"), name + ".cv2", 2 * cin, cout, 1);
}

constexpr int64_t kClasses = 80, kRegMax = 16;

// Detect: per scale a box branch (two 3x3 convs, a 1x1 to 4 x 16 distance bins) and a class
// branch (two 3x3 convs, a 1x1 to 80), concatenated to [1, 144, h*w] and over the scales.
// Then DFL (a softmax over each side's 16 bins, their expectation as a fixed 1x1 conv),
// the distances decoded around the anchor points, scaled by the strides, and the class
// sigmoid: [1, 84, anchors].
ValueId detect(ModelBuilder& m, const std::vector<ValueId>& features,
               const std::vector<int64_t>& channels, const std::vector<int64_t>& sizes,
               int64_t image) {
  const int64_t c2 = std::max<int64_t>({16, channels[0] / 4, 4 * kRegMax});
  const int64_t c3 = std::max<int64_t>(channels[0], std::min<int64_t>(kClasses, 100));
  std::vector<ValueId> flat;
  std::vector<float> anchor_x, anchor_y, strides;
  for (size_t s = 0; s < features.size(); ++s) {
    const std::string n = "detect." + std::to_string(s);
    ValueId box = conv_silu(m, features[s], n + ".cv2.0", channels[s], c2, 3);
    box = conv_silu(m, box, n + ".cv2.1", c2, c2, 3);
    box = m.conv(box, n + ".cv2.2", c2, 4 * kRegMax, 1, 1, Act::kNone, false);
    ValueId cls = conv_silu(m, features[s], n + ".cv3.0", channels[s], c3, 3);
    cls = conv_silu(m, cls, n + ".cv3.1", c3, c3, 3);
    cls = m.conv(cls, n + ".cv3.2", c3, kClasses, 1, 1, Act::kNone, false);
    const int64_t hw = sizes[s] * sizes[s];
    flat.push_back(
        m.reshape(m.concat({box, cls}, n + ".cat"), n + ".view", {1, 4 * kRegMax + kClasses, hw}));
    const float stride = static_cast<float>(image / sizes[s]);
    for (int64_t y = 0; y < sizes[s]; ++y)
      for (int64_t x = 0; x < sizes[s]; ++x) {
        anchor_x.push_back(static_cast<float>(x) + 0.5f);
        anchor_y.push_back(static_cast<float>(y) + 0.5f);
        strides.push_back(stride);
      }
  }
  const auto anchors = static_cast<int64_t>(strides.size());
  std::vector<ValueId> box_cls =
      m.split(m.concat(flat, "detect.cat", 2), "detect.split", {4 * kRegMax, kClasses});

  // DFL: view [1, 4, 16, A], transpose to [1, 16, 4, A], softmax over the bins, 1x1 conv
  // with weights 0..15.
  Attributes softmax;
  softmax.set("axis", int64_t{1});
  ValueId d = m.reshape(box_cls[0], "dfl.view", {1, 4, kRegMax, anchors});
  d = m.transpose(d, "dfl.transpose", {0, 2, 1, 3});
  d = m.b().node(OpType::kSoftmax, {d}, softmax, "dfl.softmax");
  std::vector<float> bins(kRegMax);
  for (int64_t i = 0; i < kRegMax; ++i) bins[static_cast<size_t>(i)] = static_cast<float>(i);
  ValueId bin_weight = m.b().constant(
      "dfl.conv.weight", graph::TensorData::from_vector(DType::kF32, {1, kRegMax, 1, 1}, bins));
  d = m.b().node(OpType::kConv, {d, bin_weight}, {}, "dfl.conv");
  d = m.reshape(d, "dfl.out", {1, 4, anchors});

  // dist2bbox(xywh): lt, rb = chunk(2); x1y1 = anchor - lt; x2y2 = anchor + rb;
  // cat((x1y1 + x2y2) / 2, x2y2 - x1y1) * strides.
  std::vector<float> anchor_points = anchor_x;
  anchor_points.insert(anchor_points.end(), anchor_y.begin(), anchor_y.end());
  ValueId anchor =
      m.b().constant("detect.anchors",
                     graph::TensorData::from_vector(DType::kF32, {1, 2, anchors}, anchor_points));
  std::vector<ValueId> lt_rb = m.split(d, "dist2bbox.chunk", {2, 2});
  ValueId x1y1 = m.b().node(OpType::kSub, {anchor, lt_rb[0]}, {}, "dist2bbox.x1y1");
  ValueId x2y2 = m.b().node(OpType::kAdd, {anchor, lt_rb[1]}, {}, "dist2bbox.x2y2");
  ValueId sum = m.b().node(OpType::kAdd, {x1y1, x2y2}, {}, "dist2bbox.sum");
  ValueId center =
      m.b().node(OpType::kDiv, {sum, m.scalar("dist2bbox.two", 2.0f)}, {}, "dist2bbox.center");
  ValueId wh = m.b().node(OpType::kSub, {x2y2, x1y1}, {}, "dist2bbox.wh");
  ValueId dbox = m.b().node(
      OpType::kMul,
      {m.concat({center, wh}, "dist2bbox.cat"),
       m.b().constant("detect.strides",
                      graph::TensorData::from_vector(DType::kF32, {1, anchors}, strides))},
      {}, "detect.scale");
  ValueId cls = m.b().node(OpType::kSigmoid, {box_cls[1]}, {}, "detect.cls_sigmoid");
  return m.concat({dbox, cls}, "detect.out");
}

}  // namespace

graph::Graph yolov8n(int64_t image) {
  ModelBuilder m(8008320);
  graph::GraphBuilder& b = m.b();
  b.set_opset(17);
  ValueId x = b.input("images", DType::kF32, Shape({1, 3, image, image}));
  x = conv_silu(m, x, "model.0", 3, 16, 3, 2);   // /2
  x = conv_silu(m, x, "model.1", 16, 32, 3, 2);  // /4
  x = c2f(m, x, "model.2", 32, 32, 1, true);
  x = conv_silu(m, x, "model.3", 32, 64, 3, 2);  // /8
  ValueId p3 = c2f(m, x, "model.4", 64, 64, 2, true);
  x = conv_silu(m, p3, "model.5", 64, 128, 3, 2);  // /16
  ValueId p4 = c2f(m, x, "model.6", 128, 128, 2, true);
  x = conv_silu(m, p4, "model.7", 128, 256, 3, 2);  // /32
  x = c2f(m, x, "model.8", 256, 256, 1, true);
  ValueId p5 = sppf(m, x, "model.9", 256, 256);

  // PAN: top-down with nearest upsampling, then bottom-up with stride-2 convs.
  x = m.concat({m.upsample_nearest(p5, "model.10", 2), p4}, "model.11");
  ValueId h12 = c2f(m, x, "model.12", 384, 128, 1, false);
  x = m.concat({m.upsample_nearest(h12, "model.13", 2), p3}, "model.14");
  ValueId out3 = c2f(m, x, "model.15", 192, 64, 1, false);
  x = m.concat({conv_silu(m, out3, "model.16", 64, 64, 3, 2), h12}, "model.17");
  ValueId out4 = c2f(m, x, "model.18", 192, 128, 1, false);
  x = m.concat({conv_silu(m, out4, "model.19", 128, 128, 3, 2), p5}, "model.20");
  ValueId out5 = c2f(m, x, "model.21", 384, 256, 1, false);

  ValueId y =
      detect(m, {out3, out4, out5}, {64, 128, 256}, {image / 8, image / 16, image / 32}, image);
  b.rename(y, "output0");
  b.output(y);
  return b.build();
}

}  // namespace amp::demo
