// The CPU executor's direct inputs and outputs (ExecutionPlan::input_direct /
// output_direct): steps read an aligned input where the caller keeps it and write a graph
// output into the tensor the run returns; neither takes arena space. Checked on a graph with
// every case that must stay a copy: an output a Split cuts up in place, one listed twice, a
// graph input passed through, an input a view shares, and inputs whose memory is not aligned.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "graph/ir/graph_builder.h"
#include "graph/passes/pipelines.h"
#include "runtime/backend/cpu_backend.h"
#include "runtime/execution_plan.h"
#include "tests/test_util/test_models.h"

namespace amp {
namespace {

using graph::OpType;

// x [4, 8] -> a = x + 1 (output), Split(a, axis 0) -> p0, p1 (not outputs), q = p0 * p1;
// r = Relu(x) listed twice; x passed through; t = Reshape(Sigmoid(x), [8, 4]); y [4, 8] ->
// u = Neg(Reshape(y, [32])), the Reshape a view in y's buffer.
// Outputs, in order: a, q, r, r, x, t, u.
graph::Graph direct_io_graph() {
  graph::GraphBuilder gb;
  auto x = gb.input("x", DType::kF32, graph::Shape({graph::Dim(4), graph::Dim(8)}));
  auto y = gb.input("y", DType::kF32, graph::Shape({graph::Dim(4), graph::Dim(8)}));
  auto one = gb.constant("one", graph::TensorData::from_vector<float>(DType::kF32, {1}, {1.0f}));
  auto a = gb.node(OpType::kAdd, {x, one});
  gb.rename(a, "a");
  graph::Attributes axis0;
  axis0.set("axis", int64_t{0});
  auto split = gb.constant("split", graph::TensorData::vector_i64({2, 2}));
  auto parts = gb.node_multi(OpType::kSplit, {a, split}, 2, axis0);
  auto q = gb.node(OpType::kMul, {parts[0], parts[1]});
  gb.rename(q, "q");
  auto r = gb.node(OpType::kRelu, {x});
  gb.rename(r, "r");
  auto shape = gb.constant("shape", graph::TensorData::vector_i64({8, 4}));
  auto t = gb.node(OpType::kReshape, {gb.node(OpType::kSigmoid, {x}), shape});
  gb.rename(t, "t");
  auto flat = gb.constant("flat", graph::TensorData::vector_i64({32}));
  auto u = gb.node(OpType::kNeg, {gb.node(OpType::kReshape, {y, flat})});
  gb.rename(u, "u");
  for (auto v : {a, q, r, r, x, t, u}) gb.output(v);
  return gb.build();
}

std::vector<float> input_values() {
  std::vector<float> x(32);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7) - 3.0f + 0.25f * i;
  return x;
}

// The outputs of direct_io_graph() for `x` and y = the reverse of x, computed here.
std::vector<std::vector<float>> expected_outputs(const std::vector<float>& x) {
  std::vector<float> a(32), q(16), r(32), t(32), u(32);
  for (size_t i = 0; i < 32; ++i) {
    a[i] = x[i] + 1.0f;
    r[i] = std::max(x[i], 0.0f);
    t[i] = 1.0f / (1.0f + std::exp(-x[i]));
    u[i] = -x[31 - i];
  }
  for (size_t i = 0; i < 16; ++i) q[i] = a[i] * a[i + 16];
  return {a, q, r, r, x, t, u};
}

std::vector<float> reversed(std::vector<float> v) {
  std::reverse(v.begin(), v.end());
  return v;
}

void expect_outputs(const std::vector<Tensor>& got, const std::vector<float>& x) {
  const std::vector<std::vector<float>> want = expected_outputs(x);
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < want.size(); ++k) {
    const std::vector<float> v = got[k].to_vector<float>();
    ASSERT_EQ(v.size(), want[k].size()) << "output " << k;
    for (size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(v[i], want[k][i], 1e-6) << k << "," << i;
  }
}

TEST(DirectIo, PlanWritesOnlyUnsharedOutputsAndReadsUnsharedInputsInPlace) {
  graph::Graph g = direct_io_graph();
  ASSERT_TRUE(graph::run_conversion_passes(g).is_ok());
  ASSERT_TRUE(graph::run_runtime_passes(g).is_ok());
  const std::unique_ptr<runtime::Backend> cpu = runtime::create_cpu_backend();
  runtime::PlanBuildOptions opt;
  opt.backend = cpu.get();
  runtime::PlanKey key;
  key.dims = {{4, 8}, {4, 8}};
  auto plan = runtime::build_execution_plan(g, key, {}, opt);
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  // a: the Split's parts lie in its buffer; the second r: listed before; x: a graph input;
  // y: its Reshape lies in its buffer.
  EXPECT_EQ((*plan)->output_direct, (std::vector<char>{0, 1, 1, 0, 0, 1, 1}));
  EXPECT_EQ((*plan)->input_direct, (std::vector<char>{1, 0}));
  // x and the outputs written in place take no arena space: q (16 floats), r, t, u and x
  // (32 each).
  const graph::MemoryPlan& memory = (*plan)->memory;
  EXPECT_EQ(memory.outside_bytes, (16u + 4 * 32u) * sizeof(float));
  EXPECT_GE(memory.value_offset[static_cast<size_t>((*plan)->graph.inputs[1])], 0);
  for (size_t k : {1, 2, 4, 5, 6})
    EXPECT_EQ(memory.value_offset[static_cast<size_t>((*plan)->graph.outputs[k])],
              graph::kOutsideArena)
        << "output " << k;
}

TEST(DirectIo, OutputsAreTheCallersAndInputsAreOnlyRead) {
  Engine engine = test::load_on_cpu(direct_io_graph(), {});
  ExecutionContext ctx = engine.create_context();
  const std::vector<float> x1 = input_values();
  std::vector<float> x2 = x1;
  for (float& v : x2) v = -0.5f * v;

  // Aligned (read in place): the caller's values survive, and outputs of one run are not
  // the next run's memory.
  const Tensor in1 = Tensor::from(x1, {4, 8});
  const std::vector<Tensor> first =
      ctx.run({{"x", in1}, {"y", Tensor::from(reversed(x1), {4, 8})}});
  SCOPED_TRACE("first run");
  expect_outputs(first, x1);
  EXPECT_EQ(in1.to_vector<float>(), x1);
  const std::vector<Tensor> second =
      ctx.run({{"x", Tensor::from(x2, {4, 8})}, {"y", Tensor::from(reversed(x2), {4, 8})}});
  {
    SCOPED_TRACE("second run");
    expect_outputs(second, x2);
  }
  SCOPED_TRACE("first run, after the second");
  expect_outputs(first, x1);

  // Not aligned (copied in: x to a staging copy outside the arena, y into the arena): 4
  // bytes into an aligned buffer; then aligned again.
  std::vector<float> storage(2 * 64 + 33), y2 = reversed(x2);
  float* base = storage.data();
  while (reinterpret_cast<uintptr_t>(base) % 64 != 0) ++base;
  float* y_base = base + 64;
  std::memcpy(base + 1, x2.data(), x2.size() * sizeof(float));
  std::memcpy(y_base + 1, y2.data(), y2.size() * sizeof(float));
  expect_outputs(
      ctx.run({{"x", Tensor::wrap(base + 1, {4, 8})}, {"y", Tensor::wrap(y_base + 1, {4, 8})}}),
      x2);
  const std::vector<float> shifted(base, base + 32);
  std::memcpy(y_base, reversed(shifted).data(), 32 * sizeof(float));
  expect_outputs(ctx.run({{"x", Tensor::wrap(base, {4, 8})}, {"y", Tensor::wrap(y_base, {4, 8})}}),
                 shifted);
  EXPECT_EQ(std::vector<float>(base + 1, base + 33), x2);
}

}  // namespace
}  // namespace amp
