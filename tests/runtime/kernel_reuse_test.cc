// Kernel reuse between plans (runtime/kernel_reuse.h): a plan built for new input dims takes
// the kernels of an earlier plan's nodes whose configuration did not change, prepares the
// others, and runs alone once the earlier plan is gone.
#include "runtime/kernel_reuse.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "amp/engine.h"
#include "graph/ir/graph_builder.h"
#include "graph/passes/pipelines.h"
#include "runtime/backend/cpu_backend.h"
#include "runtime/execution_plan.h"
#include "tests/test_util/test_models.h"

namespace amp {
namespace {

using graph::Attributes;
using graph::Dim;
using graph::GraphBuilder;
using graph::OpType;
using graph::ValueId;

constexpr int64_t kWidth = 8;

// One decoder step's shape: a token's projection that is the same at every past length, and
// nodes over the cache that are not.
//   tok [1, 1, 8] --MatMul(W)--> "proj" --Relu--> h (output)
//   Concat(past [1, P, 8], h, axis 1) --> "cat" (output) --ReduceMean(axis 1)--> "mean"
//   "mean" + Cast(Shape(past)[1]) --> "add" (output): the addend folds to a constant per P
graph::Graph decoder_step() {
  GraphBuilder b;
  const ValueId tok = b.input("tok", DType::kF32, graph::Shape({Dim(1), Dim(1), Dim(kWidth)}));
  const ValueId past =
      b.input("past", DType::kF32, graph::Shape({Dim(1), Dim::symbolic("P"), Dim(kWidth)}));
  const ValueId w = b.constant("W", test::random_f32({kWidth, kWidth}, 0.3f, 11));
  const ValueId h =
      b.node(OpType::kRelu, {b.node(OpType::kMatMul, {tok, w}, {}, "proj")}, {}, "act");
  b.rename(h, "h");
  Attributes axis1;
  axis1.set("axis", int64_t{1});
  const ValueId cat = b.node(OpType::kConcat, {past, h}, axis1, "cat");
  b.rename(cat, "cat_out");
  const ValueId mean =
      b.node(OpType::kReduceMean, {cat, b.constant("axes", graph::TensorData::vector_i64({1}))}, {},
             "mean");
  Attributes gather_axis0, to_f32;
  gather_axis0.set("axis", int64_t{0});
  to_f32.set("to", int64_t{1});
  const ValueId length = b.node(
      OpType::kCast,
      {b.node(OpType::kGather,
              {b.node(OpType::kShape, {past}), b.constant("one", graph::TensorData::scalar_i64(1))},
              gather_axis0)},
      to_f32);
  const ValueId sum = b.node(OpType::kAdd, {mean, length}, {}, "add");
  b.rename(sum, "sum");
  b.output(h);
  b.output(cat);
  b.output(sum);
  return b.build();
}

std::vector<float> token() {
  std::vector<float> t(kWidth);
  for (int64_t i = 0; i < kWidth; ++i)
    t[static_cast<size_t>(i)] = 0.25f * static_cast<float>(i) - 0.8f;
  return t;
}

std::vector<float> cache(int64_t length) {
  std::vector<float> c(static_cast<size_t>(length * kWidth));
  for (size_t i = 0; i < c.size(); ++i) c[i] = std::sin(0.37f * static_cast<float>(i));
  return c;
}

// The three outputs for a past of `length`, computed here.
std::vector<std::vector<float>> expected(int64_t length) {
  const graph::TensorData w = test::random_f32({kWidth, kWidth}, 0.3f, 11);
  const float* wp = w.data<float>();
  const std::vector<float> t = token(), past = cache(length);
  std::vector<float> h(kWidth), cat = past, sum(kWidth);
  for (int64_t j = 0; j < kWidth; ++j) {
    double acc = 0;
    for (int64_t k = 0; k < kWidth; ++k) acc += t[k] * wp[k * kWidth + j];
    h[j] = static_cast<float>(std::max(acc, 0.0));
  }
  cat.insert(cat.end(), h.begin(), h.end());
  for (int64_t j = 0; j < kWidth; ++j) {
    double acc = 0;
    for (int64_t r = 0; r <= length; ++r) acc += cat[static_cast<size_t>(r * kWidth + j)];
    sum[j] =
        static_cast<float>(acc / static_cast<double>(length + 1) + static_cast<double>(length));
  }
  return {h, cat, sum};
}

void expect_outputs(const std::vector<Tensor>& got, int64_t length) {
  const std::vector<std::vector<float>> want = expected(length);
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < want.size(); ++k) {
    const std::vector<float> v = got[k].to_vector<float>();
    ASSERT_EQ(v.size(), want[k].size()) << "output " << k;
    for (size_t i = 0; i < v.size(); ++i)
      EXPECT_NEAR(v[i], want[k][i], 1e-5) << "output " << k << " element " << i;
  }
}

const kernels::Kernel* kernel_of(const runtime::ExecutionPlan& plan, const std::string& node) {
  for (size_t i = 0; i < plan.graph.nodes.size(); ++i)
    if (plan.graph.nodes[i].name == node) return plan.steps[i].kernel.get();
  ADD_FAILURE() << "no node '" << node << "' in the plan";
  return nullptr;
}

// The plan of `g` (inputs tok [1, 1, 8] and past [1, length, 8]) built after `earlier`.
std::shared_ptr<const runtime::ExecutionPlan> plan_at(const graph::Graph& g,
                                                      const runtime::Backend& cpu, int64_t length,
                                                      const runtime::ExecutionPlan* earlier) {
  runtime::PlanBuildOptions opt;
  opt.backend = &cpu;
  runtime::PlanKey key;
  key.dims = {{1, 1, kWidth}, {1, length, kWidth}};
  auto plan = runtime::build_execution_plan(g, key, {}, opt, earlier);
  EXPECT_TRUE(plan.is_ok()) << plan.status().to_string();
  return plan.is_ok() ? *plan : nullptr;
}

TEST(KernelReuse, ANewPastLengthTakesTheUnchangedNodesKernelsAndRunsAlone) {
  graph::Graph g = decoder_step();
  ASSERT_TRUE(graph::run_conversion_passes(g).is_ok());
  ASSERT_TRUE(graph::run_runtime_passes(g).is_ok());
  const std::unique_ptr<runtime::Backend> cpu = runtime::create_cpu_backend();
  auto plan_for = [&](int64_t length, const runtime::ExecutionPlan* earlier) {
    return plan_at(g, *cpu, length, earlier);
  };
  std::shared_ptr<const runtime::ExecutionPlan> first = plan_for(3, nullptr);
  std::shared_ptr<const runtime::ExecutionPlan> second = plan_for(5, first.get());
  ASSERT_TRUE(first && second);

  // The projection sees [1, 1, 8] and the same weights at both lengths; the Concat and the
  // mean see the cache's length, and the Add a constant folded for each length.
  EXPECT_EQ(kernel_of(*second, "proj"), kernel_of(*first, "proj"));
  for (const char* changed : {"cat", "mean", "add"})
    EXPECT_NE(kernel_of(*second, changed), kernel_of(*first, changed)) << changed;
  // Without an earlier plan nothing is shared.
  std::shared_ptr<const runtime::ExecutionPlan> alone = plan_for(3, nullptr);
  EXPECT_NE(kernel_of(*alone, "proj"), kernel_of(*first, "proj"));

  // The shared kernel outlives the plan that prepared it.
  first.reset();
  auto executor = cpu->create_executor();
  ASSERT_TRUE(executor.is_ok());
  const Tensor tok = Tensor::from(token(), {1, 1, kWidth});
  const Tensor past = Tensor::from(cache(5), {1, 5, kWidth});
  auto outs = (*executor)->run(second, {&tok, &past}, runtime::RunConfig{});
  ASSERT_TRUE(outs.is_ok()) << outs.status().to_string();
  expect_outputs(*outs, 5);
}

// Dims read through Shape fold to constants, a new buffer in every plan; one that is equal
// at both lengths is shared (KernelReuse::share_equal_constants), and so is the kernel that
// reads it, while one that differs is not.
//   tok [1, T, 8] * Cast(Shape(tok)[1])  --> "scaled"  (T = 1 at both lengths)
//   past [1, P, 8] + Cast(Shape(past)[1]) --> "shifted" (P)
TEST(KernelReuse, AFoldedConstantEqualAtBothLengthsIsSharedWithItsKernel) {
  GraphBuilder b;
  const ValueId tok =
      b.input("tok", DType::kF32, graph::Shape({Dim(1), Dim::symbolic("T"), Dim(kWidth)}));
  const ValueId past =
      b.input("past", DType::kF32, graph::Shape({Dim(1), Dim::symbolic("P"), Dim(kWidth)}));
  Attributes gather_axis0, to_f32;
  gather_axis0.set("axis", int64_t{0});
  to_f32.set("to", int64_t{1});
  auto dim_of = [&](ValueId x, int64_t axis) {
    return b.node(OpType::kCast,
                  {b.node(OpType::kGather,
                          {b.node(OpType::kShape, {x}),
                           b.constant("axis" + std::to_string(axis) + "_of_" + std::to_string(x),
                                      graph::TensorData::scalar_i64(axis))},
                          gather_axis0)},
                  to_f32);
  };
  b.output(b.node(OpType::kMul, {tok, dim_of(tok, 1)}, {}, "scaled"));
  b.output(b.node(OpType::kAdd, {past, dim_of(past, 1)}, {}, "shifted"));
  graph::Graph g = b.build();
  ASSERT_TRUE(graph::run_conversion_passes(g).is_ok());
  const std::unique_ptr<runtime::Backend> cpu = runtime::create_cpu_backend();
  auto plan_for = [&](int64_t length, const runtime::ExecutionPlan* earlier) {
    return plan_at(g, *cpu, length, earlier);
  };
  auto operand_bytes = [](const runtime::ExecutionPlan& plan, const std::string& node) {
    for (const graph::Node& n : plan.graph.nodes)
      if (n.name == node) return plan.graph.value(n.inputs[1]).constant->bytes();
    ADD_FAILURE() << "no node '" << node << "' in the plan";
    return static_cast<const uint8_t*>(nullptr);
  };
  std::shared_ptr<const runtime::ExecutionPlan> first = plan_for(3, nullptr);
  std::shared_ptr<const runtime::ExecutionPlan> second = plan_for(5, first.get());
  ASSERT_TRUE(first && second);
  EXPECT_EQ(operand_bytes(*second, "scaled"), operand_bytes(*first, "scaled"));
  EXPECT_EQ(kernel_of(*second, "scaled"), kernel_of(*first, "scaled"));
  EXPECT_NE(operand_bytes(*second, "shifted"), operand_bytes(*first, "shifted"));

  // The shared constant lives on with the plan that took it.
  first.reset();
  auto executor = cpu->create_executor();
  ASSERT_TRUE(executor.is_ok());
  const std::vector<float> t = token(), p = cache(5);
  const Tensor tok_in = Tensor::from(t, {1, 1, kWidth});
  const Tensor past_in = Tensor::from(p, {1, 5, kWidth});
  auto outs = (*executor)->run(second, {&tok_in, &past_in}, runtime::RunConfig{});
  ASSERT_TRUE(outs.is_ok()) << outs.status().to_string();
  ASSERT_EQ(outs->size(), 2u);
  const std::vector<float> scaled = (*outs)[0].to_vector<float>();
  const std::vector<float> shifted = (*outs)[1].to_vector<float>();
  ASSERT_EQ(scaled.size(), t.size());
  ASSERT_EQ(shifted.size(), p.size());
  for (size_t i = 0; i < t.size(); ++i) EXPECT_FLOAT_EQ(scaled[i], t[i]);
  for (size_t i = 0; i < p.size(); ++i) EXPECT_FLOAT_EQ(shifted[i], p[i] + 5.0f);
}

// Through the engine, whose next plan takes the kernels of the plan it used last: a cache
// that grows, a length seen before (its cached plan), then new lengths after it, shorter and
// longer; every output right each time.
TEST(KernelReuse, AnEngineDecodingStepByStepGivesEachLengthsOutputs) {
  Engine engine = test::load_on_cpu(decoder_step(), Options{});
  for (int64_t length : {3, 4, 5, 6, 4, 9, 2}) {
    SCOPED_TRACE("past length " + std::to_string(length));
    expect_outputs(engine.run({{"tok", Tensor::from(token(), {1, 1, kWidth})},
                               {"past", Tensor::from(cache(length), {1, length, kWidth})}}),
                   length);
  }
}

}  // namespace
}  // namespace amp
