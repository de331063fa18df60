#include "kernels/cuda/cuda_check.h"

namespace amp::kernels::cuda {

Status cuda_status(cudaError_t err, const char* call, const char* file, int line) {
  std::string msg = std::string(call) + " failed: " + cudaGetErrorName(err) + " (" +
                    cudaGetErrorString(err) + ") at " + file + ":" + std::to_string(line);
  if (err == cudaErrorMemoryAllocation) return out_of_memory(msg);
  return backend_failure(msg);
}

}  // namespace amp::kernels::cuda
