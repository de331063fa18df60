// ONNX backend node tests (../shared/onnx-node-tests): selecting cases from the index,
// loading their .pb tensors, and comparing outputs with a tolerance.
//
//   for (const auto& c : test::select_node_tests({"Relu", "Add"})) {
//     auto inputs = test::load_case_tensors(c.dir, "input");
//     ...
//   }
#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/status.h"
#include "ir/graph.h"

namespace amp::test {

struct NodeTestCase {
  std::string name;           // "test_relu"
  std::filesystem::path dir;  // .../onnx-node-tests/test_relu
  std::string primary_op;
  bool float_io = false;  // every input and output is FLOAT (AMP runs these)
};

// Cases whose primary op is in `primary_ops` (all tier-1 ops when empty), whose ops are
// all known to AMPRT and whose io dtypes AMPRT supports. Empty without ../shared.
std::vector<NodeTestCase> select_node_tests(const std::set<std::string>& primary_ops = {});

// Reads <dir>/test_data_set_0/<prefix>_N.pb for N = 0, 1, ... in order.
Result<std::vector<graph::TensorData>> load_case_tensors(const std::filesystem::path& case_dir,
                                                         const std::string& prefix);
// Reads one TensorProto .pb file.
Result<graph::TensorData> load_tensor_pb(const std::filesystem::path& path);

// Compares element-wise: |a - e| <= atol + rtol * |e|; NaN matches only NaN; integer and
// bool tensors must match exactly. Empty string on success, else the first mismatch.
std::string compare_tensors(const graph::TensorData& expected, const graph::TensorData& actual,
                            double rtol, double atol);

// Imports the case's model, runs it on the CPU through test::run_graph with its inputs,
// and compares with its outputs. Empty string on pass, else the reason.
std::string run_node_test_cpu(const NodeTestCase& c, double rtol = 1e-4, double atol = 1e-5);

}  // namespace amp::test
