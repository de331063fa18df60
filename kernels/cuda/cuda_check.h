// Turning CUDA runtime / cuBLAS / cuDNN return codes into amp::Status.
//
// Every call into a CUDA library goes through one of these macros, so a failure becomes
// a Status naming the call (and, via with_context at the caller, the node), never an
// abort. Usage inside a function returning Status:
//   AMP_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(...));
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "runtime/common/status.h"

namespace amp::kernels::cuda {

// kOutOfMemory for cudaErrorMemoryAllocation, kBackendFailure otherwise.
Status cuda_status(cudaError_t err, const char* call, const char* file, int line);

}  // namespace amp::kernels::cuda

#define AMP_CUDA_RETURN_IF_ERROR(call)                                               \
  do {                                                                               \
    cudaError_t _amp_err = (call);                                                   \
    if (_amp_err != cudaSuccess)                                                     \
      return ::amp::kernels::cuda::cuda_status(_amp_err, #call, __FILE__, __LINE__); \
  } while (0)
