// CudaExecutor: the per-ExecutionContext state of the CUDA backend.
//
// Owns a non-blocking stream, cuDNN/cuBLASLt handles bound to it (ContextHandles), the
// activation arena (one cudaMalloc laid out by the memory planner, 256-byte aligned; kernel
// workspaces are values inside it), and one pinned host buffer staging inputs and outputs.
//
// A run: host inputs -> pinned staging (memcpy) -> arena (cudaMemcpyAsync) -> every step
// on the stream -> outputs to staging -> stream sync -> output Tensors. Events around the
// three phases give RunTimings.
//
// CUDA graphs (Options::cuda_graphs, on by default): the first run of a plan is eager
// (kernels load lazily, libraries warm up); the second captures the whole sequence --
// copies, kernels, timing events -- with cudaStreamCaptureModeThreadLocal (other threads'
// allocations stay legal) and every later run replays it with one cudaGraphLaunch. Arena
// and staging addresses are fixed while a plan is bound, which is what makes replay valid;
// binding another plan (new input shapes) drops the graph and captures again. A capture
// that fails (a kernel doing something uncapturable) falls back to eager runs for that
// plan; correctness never depends on the graph.
//
// check_numerics forces eager runs and synchronizes after each low-precision step to copy
// its tensors back and check them (numerics_check.h).
#pragma once

#include <memory>

#include "kernels/cuda/cuda_context.h"
#include "runtime/backend/backend.h"

namespace amp::runtime {

struct CudaExecutorOptions {
  int device = 0;
  bool cuda_graphs = true;
};

Result<std::unique_ptr<Executor>> create_cuda_executor(const CudaExecutorOptions& options);

}  // namespace amp::runtime
