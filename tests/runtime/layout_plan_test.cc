// Activations kept in the convolutions' layout (runtime/layout_plan.h): which values the
// rule picks, and that an engine that keeps them so computes what the plain reference does
// (test::run_graph, which never changes a layout).
#include "runtime/layout_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "amp/engine.h"
#include "graph/ir/graph_builder.h"
#include "graph/ops/shape_inference.h"
#include "graph/passes/pipelines.h"
#include "graph/serialize/amp_writer.h"
#include "kernels/cpu/gemm_strip_avx2.h"
#include "tests/test_util/graph_runner.h"
#include "tests/test_util/scratch_dir.h"
#include "tests/test_util/test_models.h"

namespace amp {
namespace {

using graph::Attributes;
using graph::GraphBuilder;
using graph::OpType;
using graph::TensorData;
using graph::ValueId;

// How the tests' convolutions are drawn: window, padding (ONNX order; empty: none), strides
// (empty: 1), group, the weights' scale, and whether a bias is added.
struct ConvSpec {
  std::vector<int64_t> kernel;
  std::vector<int64_t> pads;
  std::vector<int64_t> strides = {};
  int64_t group = 1;
  float w_scale = 0.4f;
  bool bias = true;
};

// Conv(x) with random weights "w<seed>" [c_out, c_in / group, kernel...] and, with
// spec.bias, a random bias "b<seed>" [c_out] (scale 0.1, seed + 100).
ValueId add_conv(GraphBuilder& b, ValueId x, int64_t c_in, int64_t c_out, const ConvSpec& spec,
                 unsigned seed) {
  Attributes a;
  a.set("kernel_shape", spec.kernel);
  if (!spec.strides.empty()) a.set("strides", spec.strides);
  if (!spec.pads.empty()) a.set("pads", spec.pads);
  if (spec.group != 1) a.set("group", spec.group);
  std::vector<int64_t> w_dims = {c_out, c_in / spec.group};
  w_dims.insert(w_dims.end(), spec.kernel.begin(), spec.kernel.end());
  // Names appended rather than "w" + to_string(seed): GCC 12 warns (-Wrestrict) on that.
  std::string w_name = "w", b_name = "b";
  w_name += std::to_string(seed);
  b_name += std::to_string(seed);
  std::vector<ValueId> ins = {x, b.constant(w_name, test::random_f32(w_dims, spec.w_scale, seed))};
  if (spec.bias) ins.push_back(b.constant(b_name, test::random_f32({c_out}, 0.1f, seed + 100)));
  return b.node(OpType::kConv, ins, a);
}

struct ConvNet {
  graph::Graph g;
  ValueId stem, dw, scaled, pw, side, sum, act, head;  // the values the rule looks at
};

// The scale the depthwise output is multiplied by.
enum class Scale {
  kPerChannel,     // a constant [1, 8, 1, 1]
  kSqueezeExcite,  // Sigmoid(1x1 conv(GlobalAveragePool(dw))), [1, 8, 1, 1] at run time
  kSpatial,        // a constant [1, 1, 10, 10]: not per channel
};

// x -> stem 3x3 (8) -> depthwise 3x3 stride 2 = dw -> * scale = scaled -> 1x1 (16) = pw
//                   \-> 1x1 (16) stride 2 = side
// sum = pw + side; act = Relu(sum) -> 3x3 (4) = head (output); with `side_output` also
// Relu(side) as an output.
ConvNet conv_net(bool side_output = false, Scale scale = Scale::kPerChannel) {
  GraphBuilder b;
  unsigned seed = 1;
  auto conv = [&](ValueId x, int64_t c_in, int64_t c_out, int64_t k, int64_t stride,
                  int64_t group) {
    return add_conv(b, x, c_in, c_out,
                    {.kernel = {k, k},
                     .pads = std::vector<int64_t>(4, k / 2),
                     .strides = {stride, stride},
                     .group = group},
                    seed++);
  };
  ConvNet net;
  ValueId x = b.input("x", DType::kF32, {1, 3, 20, 20});
  net.stem = conv(x, 3, 8, 3, 1, 1);
  net.dw = conv(net.stem, 8, 8, 3, 2, 8);
  ValueId factor = graph::kNoValue;
  switch (scale) {
    case Scale::kPerChannel:
      factor = b.constant("scale", test::random_f32({1, 8, 1, 1}, 1.0f, 7));
      break;
    case Scale::kSqueezeExcite:
      factor = b.node(OpType::kSigmoid,
                      {conv(b.node(OpType::kGlobalAveragePool, {net.dw}), 8, 8, 1, 1, 1)});
      break;
    case Scale::kSpatial:
      factor = b.constant("scale", test::random_f32({1, 1, 10, 10}, 1.0f, 7));
      break;
  }
  net.scaled = b.node(OpType::kMul, {net.dw, factor});
  net.side = conv(net.stem, 8, 16, 1, 2, 1);  // the stem feeds two convolutions
  net.pw = conv(net.scaled, 8, 16, 1, 1, 1);
  net.sum = b.node(OpType::kAdd, {net.pw, net.side});
  net.act = b.node(OpType::kRelu, {net.sum});
  net.head = conv(net.act, 16, 4, 3, 1, 1);
  b.output(net.head);
  if (side_output) b.output(b.node(OpType::kRelu, {net.side}));
  net.g = b.build();
  EXPECT_TRUE(graph::infer_shapes(net.g).is_ok());
  return net;
}

bool f32_only(DType t) {
  return t == DType::kF32;
}
bool f32_and_bf16(DType t) {
  return t == DType::kF32 || t == DType::kBF16;
}

TEST(LayoutPlan, ValuesOnlyConvolutionsAndSameShapeElementwiseTouchKeepTheConvLayout) {
  const ConvNet net = conv_net();
  const std::vector<char> in = runtime::plan_conv_layouts(net.g, f32_only);
  auto kept = [&](ValueId v) { return in[static_cast<size_t>(v)] != 0; };
  EXPECT_TRUE(kept(net.stem));    // read by two convolutions
  EXPECT_TRUE(kept(net.dw));      // read by a per-channel Mul: computed on physical dims
  EXPECT_TRUE(kept(net.scaled));  // made by it
  EXPECT_TRUE(kept(net.pw));      // the residual block: Conv, Conv -> Add -> Relu -> Conv
  EXPECT_TRUE(kept(net.side));
  EXPECT_TRUE(kept(net.sum));
  EXPECT_TRUE(kept(net.act));
  EXPECT_FALSE(kept(net.head));  // a graph output
  EXPECT_FALSE(kept(net.g.inputs[0]));
}

// A squeeze-and-excitation block keeps it too: its GlobalAveragePool reads the conv layout,
// and the scale it leads to ([1, 8, 1, 1], the same bytes in any layout) stays plain. A
// spatial broadcast needs the plain layout.
TEST(LayoutPlan, SqueezeExcitationKeepsTheConvLayoutASpatialBroadcastDoesNot) {
  const ConvNet se = conv_net(false, Scale::kSqueezeExcite);
  const std::vector<char> in = runtime::plan_conv_layouts(se.g, f32_only);
  EXPECT_TRUE(in[static_cast<size_t>(se.dw)]);
  EXPECT_TRUE(in[static_cast<size_t>(se.scaled)]);
  const graph::Node& mul = se.g.nodes[static_cast<size_t>(
      graph::compute_producers(se.g)[static_cast<size_t>(se.scaled)])];
  EXPECT_FALSE(in[static_cast<size_t>(mul.inputs[1])]);  // the scale
  EXPECT_EQ(runtime::channel_operand(se.g, mul, f32_only), 1);

  const ConvNet spatial = conv_net(false, Scale::kSpatial);
  const std::vector<char> plain = runtime::plan_conv_layouts(spatial.g, f32_only);
  EXPECT_FALSE(plain[static_cast<size_t>(spatial.dw)]);
  EXPECT_FALSE(plain[static_cast<size_t>(spatial.scaled)]);
  EXPECT_TRUE(plain[static_cast<size_t>(spatial.stem)]);
}

TEST(LayoutPlan, PhysicalDimsOfAChannelScale) {
  // channels-last: [N, C, H, W] -> [N, H, W, C]; the scale [C, 1, 1] -> [1, 1, 1, C]
  EXPECT_EQ(runtime::physical_conv_dims({2, 16, 5, 7}, 4, false),
            (std::vector<int64_t>{2, 5, 7, 16}));
  EXPECT_EQ(runtime::physical_conv_dims({16, 1, 1}, 4, false), (std::vector<int64_t>{1, 1, 1, 16}));
  // 8-channel blocks: [N, C/8, H, W, 8]; the scale [N, C, 1, 1] -> [N, C/8, 1, 1, 8]
  EXPECT_EQ(runtime::physical_conv_dims({2, 16, 5, 7}, 4, true),
            (std::vector<int64_t>{2, 2, 5, 7, 8}));
  EXPECT_EQ(runtime::physical_conv_dims({2, 16, 1, 1}, 4, true),
            (std::vector<int64_t>{2, 2, 1, 1, 8}));
}

TEST(LayoutPlan, AnElementwiseReaderWithAPlainOutputKeepsItsInputsPlain) {
  const ConvNet net = conv_net(/*side_output=*/true);
  const std::vector<char> in = runtime::plan_conv_layouts(net.g, f32_only);
  auto kept = [&](ValueId v) { return in[static_cast<size_t>(v)] != 0; };
  EXPECT_TRUE(kept(net.stem));
  // Relu(side) is an output, so side is plain; the Add then reads a plain input, so sum and
  // pw are plain too, and act, made from plain sum, as well.
  EXPECT_FALSE(kept(net.side));
  EXPECT_FALSE(kept(net.sum));
  EXPECT_FALSE(kept(net.pw));
  EXPECT_FALSE(kept(net.act));
}

// bf16 activations keep the layout only where the convolutions compute bf16 natively (a
// CPU with AVX512-BF16 or AMX); staged through f32 they are read and written plain.
TEST(LayoutPlan, Bf16ActivationsKeepTheConvLayoutOnlyWhereComputedNatively) {
  ConvNet net = conv_net();
  const std::vector<char> f32_plan = runtime::plan_conv_layouts(net.g, f32_only);
  for (graph::Value& v : net.g.values)
    if (!v.is_constant() && v.dtype == DType::kF32) v.dtype = DType::kBF16;
  EXPECT_EQ(runtime::plan_conv_layouts(net.g, f32_and_bf16), f32_plan);
  const std::vector<char> staged = runtime::plan_conv_layouts(net.g, f32_only);
  EXPECT_EQ(std::count(staged.begin(), staged.end(), 1), 0);
}

// Runs `net` through an Engine on the CPU (at 1 and 2 threads) and through the plain
// reference, and compares every output. With `precision` bf16 the AMP plan runs as planned
// (emulate_low_precision), with bf16 activations between the convolutions.
void check_engine_against_reference(const ConvNet& net, Precision precision = Precision::kFp32,
                                    const std::vector<int64_t>& x_dims = {1, 3, 20, 20}) {
  const TensorData x = test::random_f32(x_dims, 1.0f, 99);
  auto expected = test::run_graph(net.g, {{"x", x}});
  ASSERT_TRUE(expected.is_ok()) << expected.status().to_string();

  const test::ScratchDir dir("amp_layout_plan");
  const std::string path = dir.file("convnet.amp");
  ASSERT_TRUE(graph::write_amp_file(net.g, path).is_ok());
  // bf16 keeps 8 bits of mantissa: ~4e-3 per rounding, a few roundings deep.
  const double tolerance = precision == Precision::kFp32 ? 1e-4 : 5e-2;
  for (int threads : {1, 2}) {
    Options o;
    o.backend = BackendKind::kCpu;
    o.threads = threads;
    o.precision = precision;
    o.emulate_low_precision = true;
    Engine e = Engine::load(path, o);
    const std::vector<float> xv(x.data<float>(), x.data<float>() + x.numel());
    std::vector<Tensor> out = e.run({{"x", Tensor::from(xv, x_dims)}});
    ASSERT_EQ(out.size(), expected->size());
    for (size_t k = 0; k < out.size(); ++k) {
      const std::vector<float> got = out[k].to_float_vector();
      const std::vector<double> want = (*expected)[k].to_f64_vector();
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i)
        if (std::isinf(want[i]))  // a pooling window wholly in the padding
          ASSERT_EQ(got[i], want[i]) << "output " << k << " [" << i << "]";
        else
          ASSERT_NEAR(got[i], want[i], tolerance * (1 + std::abs(want[i])))
              << "output " << k << " [" << i << "]";
    }
  }
}

// x -> 3x3 conv (8) = stem -> MaxPool(`pool`) = pooled -> 3x3 conv (4) (output); with
// `indices` also the pool's Indices as an output.
struct PooledNet {
  ConvNet net;
  ValueId stem, pooled;
};
// `positive_w2`: the second convolution's weights all positive (see the wide-pads test).
PooledNet pooled_net(const Attributes& pool, bool indices = false, bool positive_w2 = false) {
  GraphBuilder b;
  Attributes c;
  c.set("kernel_shape", std::vector<int64_t>{3, 3});
  c.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  const ValueId x = b.input("x", DType::kF32, {1, 3, 20, 20});
  PooledNet p;
  p.stem = b.node(OpType::kConv, {x, b.constant("w1", test::random_f32({8, 3, 3, 3}, 0.4f, 1))}, c);
  const std::vector<ValueId> pooled =
      b.node_multi(OpType::kMaxPool, {p.stem}, indices ? 2 : 1, pool);
  p.pooled = pooled[0];
  graph::TensorData w2 = test::random_f32({4, 8, 3, 3}, 0.4f, 2);
  if (positive_w2) {
    std::vector<float> v(w2.data<float>(), w2.data<float>() + w2.numel());
    for (float& e : v) e = std::abs(e) + 0.01f;
    w2 = graph::TensorData::from_vector(DType::kF32, {4, 8, 3, 3}, v);
  }
  b.output(b.node(OpType::kConv, {p.pooled, b.constant("w2", w2)}, c));
  if (indices) b.output(pooled[1]);
  p.net.g = b.build();
  EXPECT_TRUE(graph::infer_shapes(p.net.g).is_ok());
  return p;
}

// A MaxPool oneDNN runs sits between convolutions like one (ResNet's stem); with the
// Indices output it runs the loop, which needs the plain layout.
TEST(LayoutPlan, MaxPoolBetweenConvolutionsKeepsTheConvLayout) {
  Attributes pool;
  pool.set("kernel_shape", std::vector<int64_t>{2, 2});
  pool.set("strides", std::vector<int64_t>{2, 2});
  for (bool indices : {false, true}) {
    SCOPED_TRACE(indices ? "with Indices" : "without Indices");
    const PooledNet p = pooled_net(pool, indices);
    const std::vector<char> in = runtime::plan_conv_layouts(p.net.g, f32_only);
    EXPECT_EQ(in[static_cast<size_t>(p.stem)] != 0, !indices);
    EXPECT_EQ(in[static_cast<size_t>(p.pooled)] != 0, !indices);
    if (!indices) check_engine_against_reference(p.net);
  }
}

// Pads as wide as the window: the windows wholly in the padding give the lowest float
// (ONNX ignores padding; oneDNN and ONNX Runtime start from the lowest float), in the conv
// layout as in the plain reference. The convolution after it then overflows: its weights
// are positive so that every summation order (oneDNN's, the reference's, a Winograd tile
// recomputed directly) ends at -Inf.
TEST(LayoutPlan, MaxPoolWithPadsAsWideAsItsWindowMatchesTheReference) {
  Attributes pool;
  pool.set("kernel_shape", std::vector<int64_t>{2, 2});
  pool.set("pads", std::vector<int64_t>{2, 2, 2, 2});
  const PooledNet p = pooled_net(pool, false, true);
  EXPECT_TRUE(runtime::plan_conv_layouts(p.net.g, f32_only)[static_cast<size_t>(p.stem)]);
  check_engine_against_reference(p.net);
}

// MaxPool geometries in the conv layout against the plain reference: on AVX2 (8-channel
// blocks; ctest LayoutPlan.AsOnAnAvx2Cpu) they run kernels/cpu/max_pool_blocked8.h, on
// AVX-512 oneDNN. Strides with padding (a ResNet stem), ceil_mode, dilations, uneven pads,
// and the pool's output as a graph output (read from blocks, written plain).
TEST(LayoutPlan, MaxPoolGeometriesInTheConvLayoutMatchTheReference) {
  struct Geometry {
    const char* what;
    std::vector<int64_t> kernel, strides, pads, dilations;
    int64_t ceil_mode;
  };
  const std::vector<Geometry> cases = {
      {"3x3 stride 2 pad 1", {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, 0},
      {"3x3 stride 2 ceil_mode", {3, 3}, {2, 2}, {0, 0, 0, 0}, {1, 1}, 1},
      {"2x2 dilations 2", {2, 2}, {1, 1}, {0, 0, 0, 0}, {2, 2}, 0},
      {"3x2 uneven pads", {3, 2}, {1, 2}, {0, 1, 2, 0}, {1, 1}, 0},
  };
  for (const Geometry& c : cases)
    for (bool pooled_is_output : {false, true}) {
      SCOPED_TRACE(c.what);
      SCOPED_TRACE(pooled_is_output ? "pooled output" : "pooled into a conv");
      Attributes pool;
      pool.set("kernel_shape", c.kernel);
      pool.set("strides", c.strides);
      pool.set("pads", c.pads);
      pool.set("dilations", c.dilations);
      pool.set("ceil_mode", c.ceil_mode);
      PooledNet p = pooled_net(pool);
      if (pooled_is_output) p.net.g.outputs.push_back(p.pooled);
      EXPECT_TRUE(runtime::plan_conv_layouts(p.net.g, f32_only)[static_cast<size_t>(p.stem)]);
      check_engine_against_reference(p.net);
    }
}

// The same in 1-D and 3-D (nCw8c / nCdhw8c on AVX2): conv -> MaxPool -> conv.
TEST(LayoutPlan, MaxPoolIn1dAnd3dInTheConvLayoutMatchesTheReference) {
  for (size_t spatial : {1u, 3u}) {
    SCOPED_TRACE(std::to_string(spatial) + "-D");
    std::vector<int64_t> x_dims = {1, 3};
    x_dims.resize(2 + spatial, spatial == 1 ? 30 : 9);
    auto per_axis = [&](int64_t v) { return std::vector<int64_t>(spatial, v); };
    Attributes c;
    c.set("kernel_shape", per_axis(3));
    c.set("pads", std::vector<int64_t>(2 * spatial, 1));
    Attributes pool;
    pool.set("kernel_shape", per_axis(3));
    pool.set("strides", per_axis(2));
    pool.set("pads", std::vector<int64_t>(2 * spatial, 1));
    GraphBuilder b;
    const ValueId x = b.input("x", DType::kF32, graph::Shape::from_static(x_dims));
    std::vector<int64_t> w1 = {8, 3}, w2 = {4, 8};
    w1.resize(2 + spatial, 3);
    w2.resize(2 + spatial, 3);
    const ValueId stem =
        b.node(OpType::kConv, {x, b.constant("w1", test::random_f32(w1, 0.4f, 1))}, c);
    const ValueId pooled = b.node(OpType::kMaxPool, {stem}, pool);
    b.output(b.node(OpType::kConv, {pooled, b.constant("w2", test::random_f32(w2, 0.4f, 2))}, c));
    ConvNet net;
    net.g = b.build();
    ASSERT_TRUE(graph::infer_shapes(net.g).is_ok());
    EXPECT_TRUE(runtime::plan_conv_layouts(net.g, f32_only)[static_cast<size_t>(stem)]);
    check_engine_against_reference(net, Precision::kFp32, x_dims);
  }
}

// A DB text detector's head: 3x3 conv -> ConvTranspose 2x2 stride 2 -> Relu -> ConvTranspose
// 2x2 stride 2 -> Sigmoid. The tiled ConvTransposes run as 1x1 convs and copies
// (kernels/cpu/conv_transpose_tiled.h) and read and write the conv layout like a Conv; an
// overlapping one (3x3 stride 2) stays a plain oneDNN deconvolution. Mid channels 16 (8-channel
// blocks on AVX2) and 12 (channels-last there), output channels 1 and 3.
TEST(LayoutPlan, TiledConvTransposeChainKeepsTheConvLayout) {
  for (int64_t mid : {16, 12})
    for (int64_t last : {1, 3})
      for (bool overlapping : {false, true})
        for (OpType between : {OpType::kRelu, OpType::kSigmoid}) {
          SCOPED_TRACE("mid " + std::to_string(mid) + ", last " + std::to_string(last) +
                       (overlapping ? ", 3x3 stride 2 first" : "") +
                       (between == OpType::kSigmoid ? ", Sigmoid between" : ""));
          GraphBuilder b;
          Attributes c, up, up3;
          c.set("kernel_shape", std::vector<int64_t>{3, 3});
          c.set("pads", std::vector<int64_t>{1, 1, 1, 1});
          up.set("strides", std::vector<int64_t>{2, 2});
          up3.set("strides", std::vector<int64_t>{2, 2});
          up3.set("pads", std::vector<int64_t>{1, 1, 0, 0});
          const ValueId x = b.input("x", DType::kF32, {1, 3, 20, 20});
          const ValueId stem =
              b.node(OpType::kConv,
                     {x, b.constant("w1", test::random_f32({mid, 3, 3, 3}, 0.4f, 1)),
                      b.constant("b1", test::random_f32({mid}, 0.1f, 2))},
                     c);
          const int64_t k = overlapping ? 3 : 2;
          const ValueId up1 =
              b.node(OpType::kConvTranspose,
                     {stem, b.constant("w2", test::random_f32({mid, mid, k, k}, 0.3f, 3)),
                      b.constant("b2", test::random_f32({mid}, 0.1f, 4))},
                     overlapping ? up3 : up);
          const ValueId act = b.node(between, {up1});
          const ValueId up2 =
              b.node(OpType::kConvTranspose,
                     {act, b.constant("w3", test::random_f32({mid, last, 2, 2}, 0.3f, 5))}, up);
          b.output(b.node(OpType::kSigmoid, {up2}));
          ConvNet net;
          net.g = b.build();
          ASSERT_TRUE(graph::infer_shapes(net.g).is_ok());
          const std::vector<char> in = runtime::plan_conv_layouts(net.g, f32_only);
          EXPECT_EQ(in[static_cast<size_t>(stem)] != 0, !overlapping);
          EXPECT_EQ(in[static_cast<size_t>(up1)] != 0, !overlapping);
          EXPECT_EQ(in[static_cast<size_t>(act)] != 0, !overlapping);
          EXPECT_EQ(in[static_cast<size_t>(up2)], 0);  // read by the Sigmoid, an output
          check_engine_against_reference(net);
        }
}

// An FPN (DB text detectors, YOLO necks): the coarse map upsampled (Resize) and added to the
// finer one, then the maps concatenated along the channels. The Resize and the Concat keep
// the conv layout; a Concat along another axis, or with a part of 12 channels among 8-channel
// blocks (channels-last next to blocks, on AVX2), stays plain, and so does a Resize that
// changes C or crops. Each variant runs through the engine against the plain reference.
TEST(LayoutPlan, FpnResizeAndChannelConcatKeepTheConvLayout) {
  enum class Variant { kNearest, kLinear, kCropAndResize, kScaledChannels, kOddPart, kAxis2 };
  auto blocks = [](const std::vector<int64_t>& d) { return d.size() >= 3 && d[1] % 8 == 0; };
  for (Variant v : {Variant::kNearest, Variant::kLinear, Variant::kCropAndResize,
                    Variant::kScaledChannels, Variant::kOddPart, Variant::kAxis2}) {
    SCOPED_TRACE("variant " + std::to_string(static_cast<int>(v)));
    GraphBuilder b;
    unsigned seed = 1;
    auto conv = [&](ValueId x, int64_t c_in, int64_t c_out, int64_t stride) {
      return add_conv(
          b, x, c_in, c_out,
          {.kernel = {3, 3}, .pads = {1, 1, 1, 1}, .strides = {stride, stride}, .bias = false},
          ++seed);
    };
    const ValueId x = b.input("x", DType::kF32, {1, 3, 20, 20});
    const ValueId fine = conv(x, 3, 16, 1);
    const ValueId coarse = conv(fine, 16, 16, 2);
    Attributes r;
    r.set("mode", std::string(v == Variant::kLinear ? "linear" : "nearest"));
    if (v == Variant::kCropAndResize) {
      r.set("coordinate_transformation_mode", std::string("tf_crop_and_resize"));
      r.set("extrapolation_value", 0.5f);
    }
    const std::vector<float> scales = v == Variant::kScaledChannels
                                          ? std::vector<float>{1, 2, 2, 2}
                                          : std::vector<float>{1, 1, 2, 2};
    const ValueId roi =
        v == Variant::kCropAndResize
            ? b.constant("roi", TensorData::from_vector<float>(DType::kF32, {8},
                                                               {0, 0, 0.1f, 0, 1, 1, 0.9f, 1}))
            : graph::kNoValue;
    const ValueId up =
        b.node(OpType::kResize,
               {coarse, roi,
                b.constant("scales", TensorData::from_vector<float>(DType::kF32, {4}, scales))},
               r);
    // The Resize that doubles C is added to a 32-channel map instead.
    const ValueId lateral = v == Variant::kScaledChannels ? conv(x, 3, 32, 1) : fine;
    const ValueId sum = b.node(OpType::kAdd, {lateral, up});
    const int64_t c_sum = v == Variant::kScaledChannels ? 32 : 16;
    const ValueId side = conv(sum, c_sum, v == Variant::kOddPart ? 12 : 8, 1);
    Attributes cat;
    cat.set("axis", int64_t{v == Variant::kAxis2 ? 2 : 1});
    const ValueId other = v == Variant::kAxis2 ? conv(sum, c_sum, 8, 1) : sum;
    const ValueId fused = b.node(OpType::kConcat, {other, side}, cat);
    const int64_t c_fused = v == Variant::kAxis2 ? 8 : c_sum + (v == Variant::kOddPart ? 12 : 8);
    b.output(conv(fused, c_fused, 4, 1));
    ConvNet net;
    net.g = b.build();
    ASSERT_TRUE(graph::infer_shapes(net.g).is_ok());
    const std::vector<char> in = runtime::plan_conv_layouts(net.g, f32_only, blocks);
    // A plain Resize makes the Add and so the Concat plain too; a plain Concat makes the Add
    // (its reader) and so the Resize plain, unless convolutions alone read the Add (kAxis2).
    const bool resize_kept =
        v == Variant::kNearest || v == Variant::kLinear || v == Variant::kAxis2;
    EXPECT_EQ(in[static_cast<size_t>(up)] != 0, resize_kept);
    EXPECT_EQ(in[static_cast<size_t>(coarse)] != 0, resize_kept);
    const bool concat_kept = v == Variant::kNearest || v == Variant::kLinear;
    EXPECT_EQ(in[static_cast<size_t>(fused)] != 0, concat_kept);
    EXPECT_EQ(in[static_cast<size_t>(side)] != 0, concat_kept);
    // Channels-last everywhere (AVX-512): a 12-channel part is no different.
    EXPECT_EQ(runtime::plan_conv_layouts(net.g, f32_only)[static_cast<size_t>(fused)] != 0,
              concat_kept || v == Variant::kOddPart);
    check_engine_against_reference(net);
  }
}

// A ShuffleNetV2 unit as torchvision exports it: Concat, channel shuffle (Reshape, Transpose,
// Reshape), Split into halves, one half through 1x1 / depthwise / 1x1 convolutions, Concat
// again, shuffle. After FuseChannelShuffle the shuffles and the Split are Gathers of the
// channels, which keep the conv layout wherever the Concats do (8-channel blocks: AVX2).
TEST(LayoutPlan, ShuffleUnitKeepsTheConvLayout) {
  GraphBuilder b;
  unsigned seed = 1;
  auto conv = [&](ValueId x, int64_t c_in, int64_t c_out, int64_t group) {
    const int64_t k = group > 1 ? 3 : 1;
    return add_conv(b, x, c_in, c_out,
                    {.kernel = {k, k},
                     .pads = std::vector<int64_t>(4, k / 2),
                     .group = group,
                     .w_scale = 0.5f,
                     .bias = false},
                    ++seed);
  };
  Attributes cat, perm;
  cat.set("axis", int64_t{1});
  perm.set("perm", std::vector<int64_t>{0, 2, 1, 3, 4});
  auto shuffled = [&](ValueId x, int64_t c) {
    ValueId y =
        b.node(OpType::kReshape, {x, b.constant("to" + std::to_string(++seed),
                                                TensorData::vector_i64({1, 2, c / 2, 10, 10}))});
    y = b.node(OpType::kTranspose, {y}, perm);
    return b.node(OpType::kReshape, {y, b.constant("back" + std::to_string(++seed),
                                                   TensorData::vector_i64({1, c, 10, 10}))});
  };
  const ValueId x = b.input("x", DType::kF32, {1, 3, 10, 10});
  ValueId y = b.node(OpType::kConcat, {conv(x, 3, 16, 1), conv(x, 3, 16, 1)}, cat);
  y = shuffled(y, 32);
  std::vector<ValueId> halves = b.node_multi(
      OpType::kSplit, {y, b.constant("halves", TensorData::vector_i64({16, 16}))}, 2, cat);
  ValueId branch = conv(conv(conv(halves[1], 16, 16, 1), 16, 16, 16), 16, 16, 1);
  y = shuffled(b.node(OpType::kConcat, {halves[0], branch}, cat), 32);
  b.output(conv(y, 32, 8, 1));
  ConvNet net;
  net.g = b.build();
  ASSERT_TRUE(graph::infer_shapes(net.g).is_ok());
  graph::Graph fused = net.g;
  ASSERT_TRUE(graph::run_runtime_passes(fused).is_ok());
  auto blocks = [](const std::vector<int64_t>& d) { return d.size() >= 3 && d[1] % 8 == 0; };
  const std::vector<char> in = runtime::plan_conv_layouts(fused, f32_only, blocks);
  int gathers = 0;
  for (const graph::Node& n : fused.nodes) {
    if (n.op != OpType::kGather) continue;
    ++gathers;
    EXPECT_TRUE(in[static_cast<size_t>(n.outputs[0])]) << n.name;
    EXPECT_TRUE(in[static_cast<size_t>(n.inputs[0])]) << n.name;
  }
  EXPECT_EQ(gathers, 3);  // the first shuffle's two halves, the second shuffle
  check_engine_against_reference(net, Precision::kFp32, {1, 3, 10, 10});
}

// YOLOv8's C2f block: a 1x1 conv, Split into halves along the channels, a bottleneck on the
// second half, Concat of both halves and the bottleneck's output, a 1x1 conv. The Split keeps
// the conv layout with its data input and all its outputs (8-channel blocks or channels-last);
// with an output read by a non-conv (a graph output) it stays plain, and so does its input.
TEST(LayoutPlan, ChannelSplitKeepsTheConvLayout) {
  for (int64_t half : {8, 12})
    for (bool half_is_output : {false, true}) {
      SCOPED_TRACE("halves of " + std::to_string(half) + (half_is_output ? ", one an output" : ""));
      GraphBuilder b;
      unsigned seed = 1;
      auto conv = [&](ValueId x, int64_t c_in, int64_t c_out, int64_t k) {
        return add_conv(b, x, c_in, c_out,
                        {.kernel = {k, k}, .pads = std::vector<int64_t>(4, k / 2), .bias = false},
                        ++seed);
      };
      Attributes axis;
      axis.set("axis", int64_t{1});
      const ValueId x = b.input("x", DType::kF32, {1, 3, 12, 12});
      const ValueId stem = conv(x, 3, 2 * half, 1);
      const std::vector<ValueId> halves =
          b.node_multi(OpType::kSplit,
                       {stem, b.constant("sizes", TensorData::vector_i64({half, half}))}, 2, axis);
      const ValueId neck = conv(conv(halves[1], half, half, 3), half, half, 3);
      const ValueId cat = b.node(OpType::kConcat, {halves[0], halves[1], neck}, axis);
      b.output(conv(cat, 3 * half, 4, 1));
      if (half_is_output) b.output(halves[0]);
      ConvNet net;
      net.g = b.build();
      ASSERT_TRUE(graph::infer_shapes(net.g).is_ok());
      auto blocks = [](const std::vector<int64_t>& d) { return d.size() >= 3 && d[1] % 8 == 0; };
      for (bool avx2 : {true, false}) {
        const std::vector<char> in = avx2 ? runtime::plan_conv_layouts(net.g, f32_only, blocks)
                                          : runtime::plan_conv_layouts(net.g, f32_only);
        // On AVX2, 12-channel halves are channels-last beside a 24-channel block input.
        const bool kept = !half_is_output && !(avx2 && half == 12);
        EXPECT_EQ(in[static_cast<size_t>(stem)] != 0, kept) << (avx2 ? "blocks" : "nhwc");
        EXPECT_EQ(in[static_cast<size_t>(halves[1])] != 0, kept) << (avx2 ? "blocks" : "nhwc");
      }
      check_engine_against_reference(net, Precision::kFp32, {1, 3, 12, 12});
    }
}

// A channel Gather between convolutions (the conv layout's copy reads its constant indices
// at load, unchecked per run): an index out of range in the file is a load error naming it.
// Shape inference rejects it first; the kernel's own check is the backstop.
TEST(LayoutPlan, ChannelGatherWithAnIndexOutOfRangeFailsAtLoad) {
  GraphBuilder b;
  Attributes c, axis;
  c.set("kernel_shape", std::vector<int64_t>{1, 1});
  axis.set("axis", int64_t{1});
  const ValueId x = b.input("x", DType::kF32, {1, 3, 6, 6});
  const ValueId y =
      b.node(OpType::kConv, {x, b.constant("w1", test::random_f32({16, 3, 1, 1}, 0.4f, 1))}, c);
  std::vector<int64_t> idx(16);
  for (int64_t i = 0; i < 16; ++i) idx[static_cast<size_t>(i)] = 15 - i;
  idx[5] = 40;
  const ValueId g =
      b.node(OpType::kGather, {y, b.constant("idx", TensorData::vector_i64(idx))}, axis);
  b.output(
      b.node(OpType::kConv, {g, b.constant("w2", test::random_f32({4, 16, 1, 1}, 0.4f, 2))}, c));
  graph::Graph model = b.build();
  const Status inferred = graph::infer_shapes(model);
  EXPECT_FALSE(inferred.is_ok());
  EXPECT_NE(inferred.to_string().find("40"), std::string::npos) << inferred.to_string();
  try {
    Engine e = test::load_on_cpu(model, Options{});
    const std::vector<float> xv(3 * 6 * 6, 0.5f);
    e.run({{"x", Tensor::from(xv, {1, 3, 6, 6})}});
    ADD_FAILURE() << "an index of 40 for 16 channels was accepted";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("index 40 is out of range for axis 1 of size 16"),
              std::string::npos)
        << err.what();
  }
}

// How many nodes of one profiled CPU run of `g` on a random "x" of `dims` name `what` in
// their implementation.
int nodes_implemented_as(const graph::Graph& g, const std::vector<int64_t>& dims,
                         const std::string& what) {
  const Engine e = test::load_on_cpu(g, Options{});
  ExecutionContext ctx = e.create_context();
  ctx.set_profiling(true);
  const TensorData xd = test::random_f32(dims, 1.0f, 5);
  ctx.run({{"x", Tensor::from(std::vector<float>(xd.data<float>(), xd.data<float>() + xd.numel()),
                              dims)}});
  int count = 0;
  for (const NodeProfile& n : ctx.last_run_profile().nodes)
    count += n.implementation.find(what) != std::string::npos;
  return count;
}

// 3x3 stride-1 convolutions between convolutions: on a CPU with AVX2 and FMA Winograd's
// F(4x4, 3x3) runs them (kernels/cpu/winograd_conv.h), from the conv layout (8-channel
// blocks on AVX2, as ctest amp_runtime_tests.AsOnAnAvx2Cpu runs it; channels-last on
// AVX-512) to that layout (mid) or to the plain output (head: 20 channels, uneven pads);
// elsewhere oneDNN. Both must match the plain reference, at a batch of 2 and spatial sizes
// that leave partial 4x4 tiles.
TEST(LayoutPlan, ThreeByThreeChainMatchesTheReference) {
  GraphBuilder b;
  auto conv = [&](ValueId x, int64_t c_in, int64_t c_out, std::vector<int64_t> pads,
                  unsigned seed) {
    return add_conv(b, x, c_in, c_out, {.kernel = {3, 3}, .pads = pads, .w_scale = 0.3f}, seed);
  };
  const std::vector<int64_t> dims = {2, 3, 11, 13};
  ConvNet net;
  const ValueId x = b.input("x", DType::kF32, graph::Shape::from_static(dims));
  net.stem = conv(x, 3, 32, {1, 1, 1, 1}, 1);
  const ValueId mid = b.node(OpType::kRelu, {conv(net.stem, 32, 32, {1, 1, 1, 1}, 2)});
  net.head = conv(mid, 32, 20, {0, 1, 2, 0}, 3);
  b.output(net.head);
  net.g = b.build();
  ASSERT_TRUE(graph::infer_shapes(net.g).is_ok());
  check_engine_against_reference(net, Precision::kFp32, dims);

  // The stem reads the plain input: oneDNN. The other two read the conv layout.
  EXPECT_EQ(nodes_implemented_as(net.g, dims, "Winograd"),
            kernels::cpu::cpu_has_avx2_fma() ? 2 : 0);
}

// A Conv1d an exporter wrote as 2-D (jax2tf's in Magika): k x 1 windows over a width of 1
// run as 1 x k (kernels/cpu/dnnl_conv.cc), which reads the same bytes in every layout. A
// dense 5 x 1, a depthwise 7 x 1 and a 3 x 1 in a chain, kept in the conv layout between
// them, match the plain reference at a batch of 2.
TEST(LayoutPlan, TallColumnConvolutionsRunWideAndMatchTheReference) {
  GraphBuilder b;
  auto conv = [&](ValueId x, int64_t c_in, int64_t c_out, int64_t k, int64_t group, unsigned seed) {
    return add_conv(
        b, x, c_in, c_out,
        {.kernel = {k, 1}, .pads = {k / 2, 0, k / 2, 0}, .group = group, .w_scale = 0.3f}, seed);
  };
  const std::vector<int64_t> dims = {2, 16, 40, 1};
  ConvNet net;
  const ValueId x = b.input("x", DType::kF32, graph::Shape::from_static(dims));
  net.stem = b.node(OpType::kRelu, {conv(x, 16, 32, 5, 1, 1)});
  net.dw = b.node(OpType::kRelu, {conv(net.stem, 32, 32, 7, 32, 2)});
  net.head = conv(net.dw, 32, 8, 3, 1, 3);
  b.output(net.head);
  net.g = b.build();
  ASSERT_TRUE(graph::infer_shapes(net.g).is_ok());
  check_engine_against_reference(net, Precision::kFp32, dims);

  EXPECT_EQ(nodes_implemented_as(net.g, dims, "run as 1 x k"), 3);
}

TEST(LayoutPlan, EngineMatchesThePlainReference) {
  for (Scale scale : {Scale::kPerChannel, Scale::kSqueezeExcite, Scale::kSpatial})
    for (bool side_output : {false, true}) {
      SCOPED_TRACE(side_output ? "with Relu(side) as an output" : "residual block kept");
      SCOPED_TRACE("scale " + std::to_string(static_cast<int>(scale)));
      check_engine_against_reference(conv_net(side_output, scale));
    }
}

TEST(LayoutPlan, Bf16EngineMatchesThePlainReference) {
  for (Scale scale : {Scale::kPerChannel, Scale::kSqueezeExcite, Scale::kSpatial})
    for (bool side_output : {false, true}) {
      SCOPED_TRACE(side_output ? "with Relu(side) as an output" : "residual block kept");
      SCOPED_TRACE("scale " + std::to_string(static_cast<int>(scale)));
      check_engine_against_reference(conv_net(side_output, scale), Precision::kBf16);
    }
}

}  // namespace
}  // namespace amp
