// The memory planner on the real models: the arena stays within 1.05x of the lower bound
// (max live bytes), and the kernels, simulated on tags, read every value intact
// (check_memory_plan).
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>

#include "graph/onnx/onnx_importer.h"
#include "graph/passes/pipelines.h"
#include "graph/planning/memory_plan_check.h"
#include "runtime/backend/cpu_backend.h"
#include "runtime/execution_plan.h"
#include "tests/test_util/node_tests.h"
#include "tests/test_util/shared_data.h"

namespace amp {
namespace {

namespace fs = std::filesystem;

TEST(MemoryPlanModels, ArenaNearLowerBoundAndNoLiveOverlap) {
  AMP_REQUIRE_SHARED();
  for (const auto& entry : fs::directory_iterator(test::shared_dir() / "models")) {
    const fs::path dir = entry.path();
    if (!fs::exists(dir / "model.onnx")) continue;
    auto g = graph::import_onnx_file((dir / "model.onnx").string());
    ASSERT_TRUE(g.is_ok()) << g.status().to_string();
    ASSERT_TRUE(graph::run_conversion_passes(*g).is_ok());
    ASSERT_TRUE(graph::run_runtime_passes(*g).is_ok());
    auto inputs = test::load_case_tensors(dir, "input");
    ASSERT_TRUE(inputs.is_ok());
    runtime::PlanKey key;
    for (size_t i = 0; i < g->inputs.size(); ++i) key.dims.push_back((*inputs)[i].dims());

    const std::unique_ptr<runtime::Backend> cpu = runtime::create_cpu_backend();
    runtime::PlanBuildOptions opt;
    opt.backend = cpu.get();
    auto plan = runtime::build_execution_plan(*g, key, {}, opt);
    ASSERT_TRUE(plan.is_ok()) << dir.filename() << ": " << plan.status().to_string();
    const graph::MemoryPlan& m = (*plan)->memory;
    Result<bool> check = graph::check_memory_plan(
        (*plan)->graph, m, runtime::kernel_memory_options(**plan, cpu->alignment()));
    ASSERT_TRUE(check.is_ok()) << dir.filename() << ": " << check.status().to_string();
    EXPECT_TRUE(*check) << dir.filename() << ": not checked, over its budget";
    const double ratio = m.lower_bound_bytes ? double(m.arena_bytes) / m.lower_bound_bytes : 1.0;
    std::cout << "[memory] " << dir.filename().string() << ": arena " << m.arena_bytes
              << " B, lower bound " << m.lower_bound_bytes << " B, ratio " << ratio
              << ", no-sharing total " << m.activation_bytes << " B, weights " << m.weights_bytes
              << " B\n";
    EXPECT_LE(ratio, 1.05) << dir.filename();
  }
}

}  // namespace
}  // namespace amp
