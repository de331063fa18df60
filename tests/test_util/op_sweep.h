// The registry-driven op tester: every dtype a backend registers for an op runs on the op's
// ONNX node tests with fp32 data converted to that dtype, against the CPU fp32 kernels.
//
// For a case and a dtype D: every FLOAT graph input and constant that the op does not keep
// in its own dtype (graph::keeps_own_dtype: Resize's roi and scales) is converted to D (a
// float rounded; an integer scaled by 4, truncated and wrapped; bool as != 0); the backend
// runs the case in D; the reference is the CPU running the original fp32 graph on the same
// converted values widened back to fp32, its outputs converted to D where the case's are
// integers (truncated and wrapped, as the integer kernels' arithmetic wraps). So a failure is
// the kernel's arithmetic in D (one rounding on store for f16/bf16, f64 throughout, exact
// integers), never the inputs' conversion, and a dtype the registry declares but no kernel
// serves fails at once.
//
// Outcomes are judged like the node tests: a failing (case, mode) must be on
// tests/data/node_tests_expected_failures.txt with its reason, modes "sweep-<backend>-<dtype>"
// ("sweep-cpu-f16", "sweep-cuda-i32", ...). The (op, dtype) pairs the registry declares but
// no fp32 node test reaches are listed in the report (ops whose node tests are all integer
// or bool, such as the bitwise and logical ops, are checked by the node-test modes instead).
//
//   const SweepReport r = sweep_registry(test::cpu_registry(), Backend::kCpu, test::run_graph);
//   EXPECT_TRUE(r.problems.empty()) << r.summary();
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "graph/ir/graph.h"
#include "kernels/kernel_registry.h"
#include "runtime/common/status.h"
#include "tests/test_util/node_tests.h"

namespace amp::test {

using GraphRunner = std::function<Result<std::vector<graph::TensorData>>(
    graph::Graph, const std::map<std::string, graph::TensorData>&)>;

struct SweepReport {
  std::vector<std::string> mode_names;   // sweep_mode_name of each entry of `modes`
  std::vector<ConformanceReport> modes;  // one per swept dtype
  std::vector<std::string> problems;     // every mode's problems, prefixed with the mode
  std::vector<std::string> not_swept;    // "Op:dtype" pairs no case reaches
  std::string summary() const;
};

// The mode name the expected-failure list uses for `backend` and `dtype`.
std::string sweep_mode_name(kernels::Backend backend, DType dtype);

// Sweeps every (op, dtype) of `registry` on `backend`, running cases with `run` and
// the fp32 reference with test::run_graph on the CPU.
SweepReport sweep_registry(const kernels::KernelRegistry& registry, kernels::Backend backend,
                           const GraphRunner& run);

}  // namespace amp::test
