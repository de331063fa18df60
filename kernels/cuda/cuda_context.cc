#include "cuda/cuda_context.h"

#include <string>

#include <memory>

#include "cuda/cuda_check.h"

namespace amp::cuda {

Result<DeviceHandles*> create_device_handles(int device, bool allow_tf32) {
  auto h = std::make_unique<DeviceHandles>();
  h->device = device;
  h->allow_tf32 = allow_tf32;
  AMP_CUDA_RETURN_IF_ERROR(cudaSetDevice(device));
  AMP_CUDA_RETURN_IF_ERROR(cudaGetDeviceProperties(&h->props, device));
  cublasStatus_t st = cublasLtCreate(&h->cublaslt);
  if (st != CUBLAS_STATUS_SUCCESS)
    return backend_failure("cublasLtCreate failed: status " + std::to_string(static_cast<int>(st)));
  return h.release();
}

void destroy_device_handles(DeviceHandles* h) {
  if (!h) return;
  if (h->cublaslt) cublasLtDestroy(h->cublaslt);
  delete h;
}

Result<ContextHandles*> create_context_handles(cudaStream_t stream) {
  auto h = std::make_unique<ContextHandles>();
  h->stream = stream;
  cudnnStatus_t cs = cudnnCreate(&h->cudnn);
  if (cs != CUDNN_STATUS_SUCCESS)
    return backend_failure(std::string("cudnnCreate failed: ") + cudnnGetErrorString(cs));
  cs = cudnnSetStream(h->cudnn, stream);
  if (cs != CUDNN_STATUS_SUCCESS) {
    cudnnDestroy(h->cudnn);
    return backend_failure(std::string("cudnnSetStream failed: ") + cudnnGetErrorString(cs));
  }
  cublasStatus_t bs = cublasLtCreate(&h->cublaslt);
  if (bs != CUBLAS_STATUS_SUCCESS) {
    cudnnDestroy(h->cudnn);
    return backend_failure("cublasLtCreate failed: status " + std::to_string(static_cast<int>(bs)));
  }
  return h.release();
}

void destroy_context_handles(ContextHandles* h) {
  if (!h) return;
  if (h->cudnn) cudnnDestroy(h->cudnn);
  if (h->cublaslt) cublasLtDestroy(h->cublaslt);
  delete h;
}

}  // namespace amp::cuda
