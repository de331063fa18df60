// ONNX backend node tests (../shared/onnx-node-tests): selecting cases from the index,
// loading their .pb tensors, and comparing outputs with a tolerance.
//
//   for (const auto& c : test::select_node_tests({"Relu", "Add"})) {
//     auto inputs = test::load_case_tensors(c.dir, "input");
//     ...
//   }
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "graph/ir/graph.h"
#include "runtime/common/status.h"

namespace amp::test {

struct NodeTestCase {
  std::string name;           // "test_relu"
  std::filesystem::path dir;  // .../onnx-node-tests/test_relu
  std::string primary_op;
  // Every output is FLOAT and every float input is FLOAT (integer and bool inputs, such as
  // axes, indices or conditions, may be there too): the AMP modes run these.
  bool float_io = false;
};

// Cases whose primary op is in `primary_ops` (all tier-1 ops when empty), whose ops are
// all known to AMPRT and whose io dtypes AMPRT supports. Empty without ../shared.
std::vector<NodeTestCase> select_node_tests(const std::set<std::string>& primary_ops = {});

// Reads <dir>/test_data_set_0/<prefix>_N.pb for N = 0, 1, ... in order.
Result<std::vector<graph::TensorData>> load_case_tensors(const std::filesystem::path& case_dir,
                                                         const std::string& prefix);
// Reads one TensorProto .pb file.
Result<graph::TensorData> load_tensor_pb(const std::filesystem::path& path);

// A case's model imported, with its inputs and expected outputs (inputs match the graph
// inputs in order: the node-test convention). An error when a file is missing or there are
// fewer input files than graph inputs.
struct LoadedCase {
  graph::Graph graph;
  std::vector<graph::TensorData> inputs;
  std::vector<graph::TensorData> expected;
};
Result<LoadedCase> load_case(const NodeTestCase& c);

// Compares every output with compare_tensors: "" when all match, else "output i: why".
std::string compare_outputs(const std::vector<graph::TensorData>& expected,
                            const std::vector<graph::TensorData>& actual, double rtol, double atol);

// A run in f32 against the same run in f64 (the reference), output by output, the reference
// rounded to f32 first: "" when all match within rtol / atol, else "output i: why".
std::string compare_f32_with_f64(const std::vector<graph::TensorData>& f64,
                                 const std::vector<graph::TensorData>& f32, double rtol,
                                 double atol);

// Compares element-wise: |a - e| <= atol + rtol * |e|; NaN matches only NaN; integer and
// bool tensors must match exactly; fp16 / bf16 tensors with rtol at least two units in their
// last place. Empty string on success, else the first mismatch.
std::string compare_tensors(const graph::TensorData& expected, const graph::TensorData& actual,
                            double rtol, double atol);

// ---- The expected-failure list (tests/data/node_tests_expected_failures.txt) ----------------
// The one tolerance node tests have: a case may fail in a mode only when the list names it
// (case | modes | reason). check_cases() fails a listed case that passes and a listed case
// that is not selected, so the list can only shrink knowingly. No percentage floors.

struct ExpectedFailure {
  std::string case_name;
  std::vector<std::string> modes;  // mode names; {"*"} for every mode
  std::string reason;
};

// The mode names the list may use ("convert", "cpu-fp32", "cpu-fp16", "cuda-bf16", ...).
const std::vector<std::string>& known_mode_names();

// Reads the list (default: $AMP_TEST_DATA_DIR or the source tree's tests/data). Every
// entry needs a case, known mode names and a reason.
Result<std::vector<ExpectedFailure>> load_expected_failures(const std::string& path = "");

// Whether entry `f` covers `mode` (listed by name or with "*").
bool listed_for(const ExpectedFailure& f, const std::string& mode);

struct ConformanceReport {
  size_t selected = 0;
  size_t passed = 0;
  size_t expected_failures = 0;
  std::vector<std::string> problems;  // unexpected failures, unexpected passes, stale entries
  std::string summary() const;
};

// Runs `run` ("" on pass, else why) on every case and judges the outcomes in `mode` against
// the list.
ConformanceReport check_cases(const std::string& mode, const std::vector<NodeTestCase>& cases,
                              const std::vector<ExpectedFailure>& expected,
                              const std::function<std::string(const NodeTestCase&)>& run);

}  // namespace amp::test
