// Activations kept in the convolutions' layout (runtime/layout_plan.h): which values the
// rule picks, and that an engine that keeps them so computes what the plain reference does
// (test::run_graph, which never changes a layout).
#include "runtime/layout_plan.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <random>

#include "amp/engine.h"
#include "graph/ir/graph_builder.h"
#include "graph/ops/shape_inference.h"
#include "graph/serialize/amp_writer.h"
#include "tests/test_util/graph_runner.h"

namespace amp {
namespace {

using graph::Attributes;
using graph::GraphBuilder;
using graph::OpType;
using graph::TensorData;
using graph::ValueId;

TensorData random_tensor(std::vector<int64_t> dims, unsigned seed, float scale) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-scale, scale);
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<float> v(static_cast<size_t>(n));
  for (float& f : v) f = u(rng);
  return TensorData::from_vector<float>(DType::kF32, std::move(dims), v);
}

struct ConvNet {
  graph::Graph g;
  ValueId stem, dw, pw, side;  // the values the rule looks at
};

// x -> stem 3x3 (8) -> depthwise 3x3 stride 2 -> 1x1 (16) -> {3x3 (4) -> y0, Relu -> y1}
//                   \-> 1x1 (16) stride 2, the side branch added to the 1x1's output
ConvNet conv_net() {
  GraphBuilder b;
  unsigned seed = 1;
  auto conv = [&](ValueId x, int64_t c_in, int64_t c_out, int64_t k, int64_t stride,
                  int64_t group) {
    Attributes a;
    a.set("kernel_shape", std::vector<int64_t>{k, k});
    a.set("strides", std::vector<int64_t>{stride, stride});
    a.set("pads", std::vector<int64_t>{k / 2, k / 2, k / 2, k / 2});
    a.set("group", group);
    ValueId w = b.constant("w" + std::to_string(seed),
                           random_tensor({c_out, c_in / group, k, k}, seed, 0.4f));
    ValueId bias = b.constant("b" + std::to_string(seed), random_tensor({c_out}, seed + 100, 0.1f));
    ++seed;
    return b.node(OpType::kConv, {x, w, bias}, a);
  };
  ConvNet net;
  ValueId x = b.input("x", DType::kF32, {1, 3, 20, 20});
  net.stem = conv(x, 3, 8, 3, 1, 1);
  net.dw = conv(net.stem, 8, 8, 3, 2, 8);
  net.side = conv(net.stem, 8, 16, 1, 2, 1);  // the stem feeds two convolutions
  net.pw = conv(net.dw, 8, 16, 1, 1, 1);
  ValueId sum = b.node(OpType::kAdd, {net.pw, net.side});  // pw and side: read by an Add
  b.output(conv(sum, 16, 4, 3, 1, 1));
  b.output(b.node(OpType::kRelu, {sum}));
  net.g = b.build();
  EXPECT_TRUE(graph::infer_shapes(net.g).is_ok());
  return net;
}

TEST(LayoutPlan, ValuesOnlyConvolutionsTouchAreChannelsLast) {
  const ConvNet net = conv_net();
  const std::vector<char> cl = runtime::plan_conv_layouts(net.g);
  EXPECT_TRUE(cl[static_cast<size_t>(net.stem)]);   // read by two convolutions
  EXPECT_TRUE(cl[static_cast<size_t>(net.dw)]);     // read by one
  EXPECT_FALSE(cl[static_cast<size_t>(net.pw)]);    // read by an Add
  EXPECT_FALSE(cl[static_cast<size_t>(net.side)]);  // likewise
  EXPECT_FALSE(cl[static_cast<size_t>(net.g.inputs[0])]);
  for (ValueId out : net.g.outputs) EXPECT_FALSE(cl[static_cast<size_t>(out)]);
}

TEST(LayoutPlan, EngineMatchesThePlainReference) {
  const ConvNet net = conv_net();
  const TensorData x = random_tensor({1, 3, 20, 20}, 99, 1.0f);
  auto expected = test::run_graph(net.g, {{"x", x}});
  ASSERT_TRUE(expected.is_ok()) << expected.status().to_string();

  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("amp_layout_plan_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "convnet.amp").string();
  ASSERT_TRUE(graph::write_amp_file(net.g, path).is_ok());
  for (int threads : {1, 2}) {
    Options o;
    o.backend = BackendKind::kCpu;
    o.threads = threads;
    Engine e = Engine::load(path, o);
    const std::vector<float> xv(x.data<float>(), x.data<float>() + x.numel());
    std::vector<Tensor> out = e.run({{"x", Tensor::from(xv, {1, 3, 20, 20})}});
    ASSERT_EQ(out.size(), expected->size());
    for (size_t k = 0; k < out.size(); ++k) {
      const std::vector<float> got = out[k].to_float_vector();
      const std::vector<double> want = (*expected)[k].to_f64_vector();
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i)
        ASSERT_NEAR(got[i], want[i], 1e-4 * (1 + std::abs(want[i])))
            << "output " << k << " [" << i << "]";
    }
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace amp
