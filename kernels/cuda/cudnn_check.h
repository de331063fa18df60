// Turning cuDNN and cuBLAS(Lt) return codes into amp::Status, the twins of cuda_check.h.
//
// Every cuDNN / cuBLASLt call of the library kernels (cudnn_*.cc, cublaslt_*.cc) goes
// through one of these macros, so a failure becomes a Status naming the call and the
// library's own description of the code, never an abort:
//   AMP_CUDNN_RETURN_IF_ERROR(cudnnSetTensorNdDescriptor(...));
//   AMP_CUBLAS_RETURN_IF_ERROR(cublasLtMatmul(...));
#pragma once

#include <cublasLt.h>
#include <cudnn.h>

#include "runtime/common/status.h"

namespace amp::kernels::cuda {

// kOutOfMemory for CUDNN_STATUS_ALLOC_FAILED, kUnsupported for CUDNN_STATUS_NOT_SUPPORTED*
// (the configuration is valid ONNX that cuDNN has no kernel for), kBackendFailure else.
Status cudnn_status(cudnnStatus_t st, const char* call, const char* file, int line);
// kOutOfMemory for CUBLAS_STATUS_ALLOC_FAILED, kUnsupported for CUBLAS_STATUS_NOT_SUPPORTED,
// kBackendFailure otherwise.
Status cublas_status(cublasStatus_t st, const char* call, const char* file, int line);

}  // namespace amp::kernels::cuda

#define AMP_CUDNN_RETURN_IF_ERROR(call)                                                    \
  do {                                                                                     \
    cudnnStatus_t _amp_cudnn_st = (call);                                                  \
    if (_amp_cudnn_st != CUDNN_STATUS_SUCCESS)                                             \
      return ::amp::kernels::cuda::cudnn_status(_amp_cudnn_st, #call, __FILE__, __LINE__); \
  } while (0)

#define AMP_CUBLAS_RETURN_IF_ERROR(call)                                                     \
  do {                                                                                       \
    cublasStatus_t _amp_cublas_st = (call);                                                  \
    if (_amp_cublas_st != CUBLAS_STATUS_SUCCESS)                                             \
      return ::amp::kernels::cuda::cublas_status(_amp_cublas_st, #call, __FILE__, __LINE__); \
  } while (0)
