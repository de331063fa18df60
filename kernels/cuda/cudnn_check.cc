// cuDNN / cuBLAS return codes -> Status (cudnn_check.h).
#include "kernels/cuda/cudnn_check.h"

#include <string>

namespace amp::kernels::cuda {

Status cudnn_status(cudnnStatus_t st, const char* call, const char* file, int line) {
  std::string msg = std::string(call) + " failed: " + cudnnGetErrorString(st) + " (cudnnStatus " +
                    std::to_string(static_cast<int>(st)) + ") at " + file + ":" +
                    std::to_string(line);
  if (st == CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED ||
      st == CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED)
    return out_of_memory(msg);
  if (CUDNN_STATUS_CATEGORY(st) == CUDNN_STATUS_NOT_SUPPORTED) return unsupported(msg);
  return backend_failure(msg);
}

Status cublas_status(cublasStatus_t st, const char* call, const char* file, int line) {
  std::string msg = std::string(call) + " failed: " + cublasLtGetStatusString(st) +
                    " (cublasStatus " + std::to_string(static_cast<int>(st)) + ") at " + file +
                    ":" + std::to_string(line);
  if (st == CUBLAS_STATUS_ALLOC_FAILED) return out_of_memory(msg);
  if (st == CUBLAS_STATUS_NOT_SUPPORTED) return unsupported(msg);
  return backend_failure(msg);
}

}  // namespace amp::kernels::cuda
