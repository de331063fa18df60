// A naive graph executor for kernel tests: every value gets its own freshly allocated
// buffer (no memory planning, no fusion, no AMP), each node's kernel is looked up in the
// registry, prepared and run once. Output buffers are poisoned with NaN-like bytes (0xFF)
// before running, so a kernel that leaves elements unwritten fails.
//
//   auto outs = test::run_graph(graph, {{"x", x_data}}, kernels::Backend::kCpu);
#pragma once

#include <map>
#include <string>
#include <vector>

#include "graph/ir/graph.h"
#include "kernels/kernel_registry.h"
#include "runtime/common/status.h"
#include "tests/test_util/node_tests.h"

namespace amp::test {

// Binds the inputs' shapes, re-runs shape inference, and executes. Errors name the node.
Result<std::vector<graph::TensorData>> run_graph(
    graph::Graph g, const std::map<std::string, graph::TensorData>& inputs,
    kernels::Backend backend = kernels::Backend::kCpu, int threads = 1);

// The registry with every CPU kernel (built once).
const kernels::KernelRegistry& cpu_registry();

// Imports the case's model, runs it on the CPU through test::run_graph with its inputs,
// and compares with its outputs. Empty string on pass, else the reason.
std::string run_node_test_cpu(const NodeTestCase& c, double rtol = 1e-4, double atol = 1e-5);

}  // namespace amp::test
