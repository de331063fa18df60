// The one runner of ONNX's backend node tests (../shared/onnx-node-tests) through the
// runtime, judged against the one list of cases allowed to fail
// (tests/data/node_tests_expected_failures.txt, read by node_tests.h).
//
// A mode is a way of running a case: through the public Engine on a backend at a precision
// (AMP modes run only cases whose inputs and outputs are all float, against the fp32
// expected outputs), or with every input turned into a constant (so kernels take their
// prepare()-time path for shape-like inputs). For a mode, every selected case must pass
// unless the expected-failure list names it (case + modes + reason); a listed case that
// passes, and a listed case that is not selected at all, fail too, so the list can only
// shrink knowingly. There are no percentage floors.
//
//   auto expected = test::load_expected_failures();
//   test::ConformanceReport r = test::run_node_conformance(test::NodeTestMode::kCpuFp16,
//   *expected); EXPECT_TRUE(r.problems.empty()) << r.summary();
#pragma once

#include <string>
#include <vector>

#include "runtime/common/status.h"
#include "tests/test_util/node_tests.h"

namespace amp::test {

enum class NodeTestMode {
  kCpuFp32,
  kCpuFp32ConstantInputs,
  kCpuFp16,
  kCpuBf16,
  kCudaFp32,
  kCudaFp16,
  kCudaBf16,
};

// "cpu-fp32", "cpu-fp32-constant-inputs", "cpu-fp16", ... (the names the list uses).
const char* mode_name(NodeTestMode mode);

// Runs every selected case of `mode` (all ops AMPRT knows; AMP modes float-io cases only)
// and checks the outcome against `expected`. Tolerances: fp32 rtol 1e-4 / atol 1e-5 (a few
// cases looser, listed with their reason in node_conformance.cc); fp16 rtol 1e-2 / atol
// 2e-3; bf16 rtol 5e-2 / atol 2e-2.
ConformanceReport run_node_conformance(NodeTestMode mode,
                                       const std::vector<ExpectedFailure>& expected);

}  // namespace amp::test
