// A naive graph executor on the GPU for CUDA kernel tests, the twin of graph_runner.h:
// every value gets its own cudaMalloc'd buffer (outputs poisoned with 0xFF bytes), constants
// and inputs are uploaded, each node's CUDA kernel is prepared and run on one stream, and
// outputs are copied back. run_kernel_cuda is the twin of kernel_harness.h's run_kernel:
// one kernel with exact descriptions, outputs poisoned with a guard after each. Both need a
// visible GPU (callers skip otherwise).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "graph/ir/graph.h"
#include "kernels/kernel_registry.h"
#include "runtime/common/status.h"
#include "tests/test_util/kernel_harness.h"

namespace amp::test {

Result<std::vector<graph::TensorData>> run_graph_cuda(
    graph::Graph g, const std::map<std::string, graph::TensorData>& inputs);

// Prepares `call` on the CUDA registry and runs it once on a fresh stream. The call's
// scribble_constants and threads do not apply; in_place shares output 0 with input 0.
KernelRun run_kernel_cuda(const KernelCall& call, const std::vector<HostTensor>& inputs,
                          const std::vector<HostTensor>& outputs);

// The registry with every CUDA kernel (built once).
const kernels::KernelRegistry& cuda_registry();

}  // namespace amp::test
