// A DeepLabV3-style atrous convolution inside a model: the Conv kernel takes TapSumConv
// (kernels/cpu/tap_sum_conv.h) where oneDNN would run its im2col GEMM, reading and writing
// the layout the runtime keeps between convolutions (runtime/layout_plan.h) through
// channels-last copies; the model's output is checked against the same model run with
// AMP_CPU_TAP_SUM=0 (oneDNN's convolution), at 1 and 2 threads.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "amp/engine.h"
#include "graph/ir/graph_builder.h"
#include "graph/ops/shape_inference.h"
#include "kernels/cpu/gemm_strip_avx2.h"
#include "tests/test_util/test_models.h"

namespace amp {
namespace {

// x [1, 16, 16, 16] -> 1x1 conv -> 3x3 conv at dilation 12, pads 12, fused Relu -> 1x1 conv:
// the middle convolution reads and writes the layout the runtime keeps between convolutions.
graph::Graph atrous_chain() {
  graph::GraphBuilder b;
  const graph::ValueId x = b.input("x", DType::kF32, {1, 16, 16, 16});
  graph::Attributes dilated;
  dilated.set("dilations", std::vector<int64_t>{12, 12});
  dilated.set("pads", std::vector<int64_t>{12, 12, 12, 12});
  const graph::ValueId a = b.node(graph::OpType::kConv,
                                  {x, b.constant("w0", test::random_f32({16, 16, 1, 1}, 0.3f, 1))});
  const graph::ValueId d = b.node(graph::OpType::kConv,
                                  {a, b.constant("w1", test::random_f32({24, 16, 3, 3}, 0.2f, 2)),
                                   b.constant("b1", test::random_f32({24}, 0.2f, 3))},
                                  dilated);
  const graph::ValueId r = b.node(graph::OpType::kRelu, {d});
  b.output(b.node(graph::OpType::kConv,
                  {r, b.constant("w2", test::random_f32({8, 24, 1, 1}, 0.3f, 4))}));
  return b.build();
}

TEST(AtrousConv, TapSumRunsBetweenConvolutionsLikeOneDnn) {
  if (!kernels::cpu::cpu_has_avx2_fma()) GTEST_SKIP() << "this CPU has no AVX2 + FMA";
  graph::Graph g = atrous_chain();
  ASSERT_TRUE(graph::infer_shapes(g).is_ok());
  const graph::TensorData xd = test::random_f32({1, 16, 16, 16}, 1.0f, 5);
  const std::vector<float> xv(xd.data<float>(), xd.data<float>() + xd.numel());
  auto run = [&](int threads, std::string* implementation) {
    Options o;
    o.threads = threads;
    const Engine e = test::load_on_cpu(g, o);
    ExecutionContext ctx = e.create_context();
    ctx.set_profiling(true);
    std::vector<Tensor> out = ctx.run({{"x", Tensor::from(xv, {1, 16, 16, 16})}});
    for (const NodeProfile& n : ctx.last_run_profile().nodes)
      if (n.op == "Conv" && n.implementation.find("1x1") == std::string::npos)
        *implementation = n.implementation;
    return out[0].to_float_vector();
  };
  ASSERT_EQ(setenv("AMP_CPU_TAP_SUM", "0", 1), 0);
  std::string onednn_impl;
  const std::vector<float> want = run(1, &onednn_impl);
  ASSERT_EQ(unsetenv("AMP_CPU_TAP_SUM"), 0);
  if (onednn_impl.find("gemm") == std::string::npos)
    GTEST_SKIP() << "oneDNN runs this convolution as " << onednn_impl << ", not its GEMM";
  for (int threads : {1, 2}) {
    std::string impl;
    const std::vector<float> got = run(threads, &impl);
    EXPECT_NE(impl.find("tap sum"), std::string::npos) << impl;
    // On AVX2 the runtime keeps x and y in 8-channel blocks: both are copied (on AVX-512 they
    // are channels-last already).
    if (!__builtin_cpu_supports("avx512f")) {
      EXPECT_NE(impl.find("copy of x and y"), std::string::npos) << impl;
    }
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_NEAR(got[i], want[i], 1e-4 * (1 + std::abs(want[i]))) << "[" << i << "]";
  }
}

}  // namespace
}  // namespace amp
