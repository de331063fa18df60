// A process-wide pool of CUDA streams with their cuDNN/cuBLASLt handles.
//
// cudnnCreate and cublasLtCreate cost milliseconds each; a server that creates a context
// per request, or a test that loads a thousand engines, would spend its time there. An
// executor takes a slot when it is created and gives it back when destroyed (after
// synchronizing its stream), so handles are made once per concurrently live context.
// The pool is never destroyed: tearing down cuDNN from a static destructor can run after
// the CUDA runtime itself has shut down.
#pragma once

#include <cuda_runtime.h>

#include "kernels/cuda/cuda_context.h"
#include "runtime/common/status.h"

namespace amp::runtime::cuda {

struct StreamSlot {
  int device = 0;
  cudaStream_t stream = nullptr;
  amp::kernels::cuda::ContextHandles* handles = nullptr;
};

// A pooled slot for `device`, or a new one (non-blocking stream, handles bound to it).
Result<StreamSlot> acquire_stream(int device);
// The stream must be idle. Slots beyond the pool's cap are destroyed.
void release_stream(StreamSlot slot);

}  // namespace amp::runtime::cuda
