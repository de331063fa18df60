// A naive graph executor on the GPU for CUDA kernel tests, the twin of graph_runner.h:
// every value gets its own cudaMalloc'd buffer (outputs poisoned with 0xFF bytes), constants
// and inputs are uploaded, each node's CUDA kernel is prepared and run on one stream, and
// outputs are copied back. Needs a visible GPU (callers skip otherwise).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "graph/ir/graph.h"
#include "kernels/kernel_registry.h"
#include "runtime/common/status.h"

namespace amp::test {

Result<std::vector<graph::TensorData>> run_graph_cuda(
    graph::Graph g, const std::map<std::string, graph::TensorData>& inputs);

// The registry with every CUDA kernel (built once).
const kernels::KernelRegistry& cuda_registry();

}  // namespace amp::test
