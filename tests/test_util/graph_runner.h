// A naive graph executor for kernel tests: every value gets its own freshly allocated
// buffer (no memory planning, no fusion, no AMP), each node's kernel is looked up in the
// registry, prepared and run once. Output buffers are poisoned with NaN-like bytes (0xFF)
// before running, so a kernel that leaves elements unwritten fails.
//
//   auto outs = test::run_graph(graph, {{"x", x_data}}, kernels::Backend::kCpu);
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "graph/ir/graph.h"
#include "graph/ops/data_dependent.h"
#include "kernels/kernel_registry.h"
#include "runtime/common/status.h"
#include "tests/test_util/node_tests.h"

namespace amp::test {

// Binds the inputs' shapes, re-runs shape inference, and executes. Errors name the node.
Result<std::vector<graph::TensorData>> run_graph(
    graph::Graph g, const std::map<std::string, graph::TensorData>& inputs,
    kernels::Backend backend = kernels::Backend::kCpu, int threads = 1);

// The steps before a naive run, shared by the CPU and CUDA runners: binds the inputs' shapes
// (and the values of inputs that decide shapes, such as Reshape's shape fed at run time),
// infers shapes, folds constants on the CPU and drops dead nodes (values are renumbered).
Status bind_inputs_and_fold(graph::Graph& g,
                            const std::map<std::string, graph::TensorData>& inputs);

// Re-infers node `i`'s outputs (an earlier data-dependent node may have sized its inputs);
// a data-dependent output (graph/ops/data_dependent.h) is set to its bound, to be trimmed
// by trim_data_dependent_output() to the size the kernel reports. An error when an output
// still has no static shape.
Result<std::optional<graph::DataDependentDim>> size_data_dependent_output(graph::Graph& g,
                                                                          graph::NodeId i);
Status trim_data_dependent_output(graph::Graph& g, const graph::Node& n,
                                  const graph::DataDependentDim& dynamic, int64_t size);

// The registry with every CPU kernel (built once).
const kernels::KernelRegistry& cpu_registry();

// Imports the case's model, runs it on the CPU through test::run_graph with its inputs,
// and compares with its outputs. Empty string on pass, else the reason.
std::string run_node_test_cpu(const NodeTestCase& c, double rtol = 1e-4, double atol = 1e-5);

}  // namespace amp::test
