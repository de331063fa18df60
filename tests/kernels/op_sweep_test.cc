// The registry sweep on the CPU (tests/test_util/op_sweep.h): every dtype the CPU registers
// for an op, on the op's node tests converted to it, against the fp32 (fp64 for integers) kernels.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <string>

#include "tests/test_util/graph_runner.h"
#include "tests/test_util/op_sweep.h"
#include "tests/test_util/shared_data.h"

namespace amp {
namespace {

TEST(OpSweep, EveryCpuDtypeMatchesTheFp32Kernels) {
  AMP_REQUIRE_SHARED();
  const test::SweepReport r =
      test::sweep_registry(test::cpu_registry(), kernels::Backend::kCpu,
                           [](graph::Graph g, const std::map<std::string, graph::TensorData>& in) {
                             return test::run_graph(std::move(g), in, kernels::Backend::kCpu, 1);
                           });
  EXPECT_TRUE(r.problems.empty()) << r.summary();
  size_t ran = 0;
  for (const test::ConformanceReport& m : r.modes) ran += m.selected;
  EXPECT_GT(ran, 0u) << r.summary();
  std::cout << r.summary() << "\n";
}

}  // namespace
}  // namespace amp
