// Weights the CPU kernels keep repacked (oneDNN layouts, packed GEMM panels, Winograd filter
// transforms; kernels/cpu/shared_constants.h): one copy however many input shapes an engine
// plans for, counted in MemoryReport::packed_weights_bytes and by Options::memory_limit_bytes.
// Runs on whichever kernels this CPU gets; ctest's amp_runtime_tests.AsOnAnAvx2Cpu runs it
// again as on an AVX2-only CPU (packed GEMM, Winograd).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "amp/engine.h"
#include "graph/ir/graph_builder.h"
#include "tests/test_util/test_models.h"

namespace amp {
namespace {

using graph::Attributes;
using graph::Dim;
using graph::GraphBuilder;
using graph::OpType;
using graph::ValueId;

// x [N, 16, 12, 12] -> three 3x3 convolutions (the last two between convolutions: Winograd
// on an AVX2 CPU) -> y. `weight_bytes` receives the convolutions' weight bytes.
graph::Graph conv_chain(size_t& weight_bytes) {
  GraphBuilder b;
  weight_bytes = 0;
  auto conv = [&](ValueId x, int64_t c_in, int64_t c_out, unsigned seed) {
    Attributes a;
    a.set("kernel_shape", std::vector<int64_t>{3, 3});
    a.set("pads", std::vector<int64_t>{1, 1, 1, 1});
    weight_bytes += static_cast<size_t>(c_out * c_in * 9) * sizeof(float);
    const ValueId w =
        b.constant("w" + std::to_string(seed), test::random_f32({c_out, c_in, 3, 3}, 0.2f, seed));
    return b.node(OpType::kConv, {x, w}, a);
  };
  const ValueId x =
      b.input("x", DType::kF32, graph::Shape({Dim::symbolic("N"), Dim(16), Dim(12), Dim(12)}));
  ValueId h = b.node(OpType::kRelu, {conv(x, 16, 32, 1)});
  h = b.node(OpType::kRelu, {conv(h, 32, 32, 2)});
  h = conv(h, 32, 16, 3);
  b.rename(h, "y");
  b.output(h);
  return b.build();
}

// x [N, 128] @ W [128, 96] -> Relu -> y.
graph::Graph dense(size_t& weight_bytes) {
  GraphBuilder b;
  const ValueId x = b.input("x", DType::kF32, graph::Shape({Dim::symbolic("N"), Dim(128)}));
  const ValueId w = b.constant("W", test::random_f32({128, 96}, 0.1f, 7));
  weight_bytes = 128 * 96 * sizeof(float);
  const ValueId y = b.node(OpType::kRelu, {b.node(OpType::kMatMul, {x, w})});
  b.rename(y, "y");
  b.output(y);
  return b.build();
}

Tensor ones(std::vector<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return Tensor::from(std::vector<float>(static_cast<size_t>(n), 0.5f), dims);
}

// A plan per input shape, one packed copy of the weights for all of them: the report is the
// same after the second shape's plan, and at least the weights (every kernel here packs
// its constant once, in oneDNN's layout, as panels or as a 4x larger Winograd transform).
TEST(PackedWeights, OneCopyForThePlansOfEveryInputShape) {
  struct Model {
    const char* name;
    graph::Graph g;
    size_t weight_bytes = 0;
    std::vector<std::vector<int64_t>> shapes;
  };
  size_t conv_bytes = 0, dense_bytes = 0;
  std::vector<Model> models;
  models.push_back({"convs", conv_chain(conv_bytes), 0, {{1, 16, 12, 12}, {3, 16, 12, 12}}});
  models.back().weight_bytes = conv_bytes;
  // 16 rows and more: past SmallGemm, the same kernel for each shape.
  models.push_back({"dense", dense(dense_bytes), 0, {{16, 128}, {40, 128}, {16, 128}}});
  models.back().weight_bytes = dense_bytes;
  for (Model& m : models) {
    SCOPED_TRACE(m.name);
    Engine e = test::load_on_cpu(m.g, Options{});
    e.run({{"x", ones(m.shapes[0])}});
    const size_t first = e.memory().packed_weights_bytes;
    EXPECT_GE(first, m.weight_bytes);
    for (size_t i = 1; i < m.shapes.size(); ++i) {
      e.run({{"x", ones(m.shapes[i])}});
      EXPECT_EQ(e.memory().packed_weights_bytes, first) << "after shape " << i;
    }
  }
}

// Options::memory_limit_bytes counts the packed copies: a limit that holds the weights and
// the arena but not the packed weights is an out-of-memory error that says so.
TEST(PackedWeights, MemoryLimitCountsThem) {
  size_t weight_bytes = 0;
  const graph::Graph g = conv_chain(weight_bytes);
  const std::vector<int64_t> dims = {2, 16, 12, 12};
  Options o;
  MemoryReport need;
  {
    Engine e = test::load_on_cpu(g, o);
    e.run({{"x", ones(dims)}});
    need = e.memory();
  }
  ASSERT_GT(need.packed_weights_bytes, 0u);
  ASSERT_GT(need.io_outside_arena_bytes, 0u);  // the chain's input and output
  const size_t activations = need.arena_bytes + need.io_outside_arena_bytes;
  o.memory_limit_bytes = activations + need.weights_bytes + need.packed_weights_bytes;
  EXPECT_NO_THROW(test::load_on_cpu(g, o).run({{"x", ones(dims)}}));
  o.memory_limit_bytes = activations + need.weights_bytes + need.packed_weights_bytes - 1;
  EXPECT_THROW(test::load_on_cpu(g, o).run({{"x", ones(dims)}}), Error);
  o.memory_limit_bytes = activations + need.weights_bytes + need.packed_weights_bytes / 2;
  try {
    test::load_on_cpu(g, o).run({{"x", ones(dims)}});
    ADD_FAILURE() << "a limit below the packed weights was accepted";
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), ErrorCode::kOutOfMemory);
    EXPECT_NE(std::string(err.what()).find("packed copies"), std::string::npos) << err.what();
  }
}

}  // namespace
}  // namespace amp
