#include "kernels/cuda/cuda_context.h"

#include <memory>
#include <string>

#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/cuda_libraries.h"

namespace amp::kernels::cuda {

namespace {

// 13000 -> "13.0" (CUDA's major * 1000 + minor * 10).
std::string cuda_version(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

// 91900 -> "9.19.0", 130100 -> "13.1.0" (cuDNN 9 and cuBLAS: major * 10000 + minor * 100
// + patch).
std::string lib_version(size_t v) {
  return std::to_string(v / 10000) + "." + std::to_string((v % 10000) / 100) + "." +
         std::to_string(v % 100);
}

std::string library_versions() {
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);  // informational: a failure leaves 0
  cudaRuntimeGetVersion(&runtime);
  return "driver " + cuda_version(driver) + ", runtime " + cuda_version(runtime) + ", cuBLASLt " +
         lib_version(cublasLtGetVersion()) + ", cuDNN " + lib_version(cudnnGetVersion()) +
         " (built with " + lib_version(CUDNN_VERSION) + ")";
}

}  // namespace

Result<DeviceHandles*> create_device_handles(int device, bool allow_tf32) {
  // cuBLAS(Lt) and cuDNN are opened here, before any kernel calls them (cuda_libraries.h).
  AMP_RETURN_IF_ERROR(load_cuda_libraries());
  auto h = std::make_unique<DeviceHandles>();
  h->device = device;
  h->allow_tf32 = allow_tf32;
  AMP_CUDA_RETURN_IF_ERROR(cudaSetDevice(device));
  AMP_CUDA_RETURN_IF_ERROR(cudaGetDeviceProperties(&h->props, device));
  cublasStatus_t st = cublasLtCreate(&h->cublaslt);
  if (st != CUBLAS_STATUS_SUCCESS)
    return backend_failure("cublasLtCreate failed: status " + std::to_string(static_cast<int>(st)));
  h->library_versions = library_versions();
  return h.release();
}

void destroy_device_handles(DeviceHandles* h) {
  if (!h) return;
  if (h->cublaslt) cublasLtDestroy(h->cublaslt);
  delete h;
}

Result<ContextHandles*> create_context_handles(cudaStream_t stream) {
  AMP_RETURN_IF_ERROR(load_cuda_libraries());  // once per process; then a cached answer
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
  bs = cublasCreate(&h->cublas);
  if (bs == CUBLAS_STATUS_SUCCESS) bs = cublasSetStream(h->cublas, stream);
  if (bs != CUBLAS_STATUS_SUCCESS) {
    if (h->cublas) cublasDestroy(h->cublas);
    cublasLtDestroy(h->cublaslt);
    cudnnDestroy(h->cudnn);
    return backend_failure("cublasCreate failed: status " + std::to_string(static_cast<int>(bs)));
  }
  return h.release();
}

void destroy_context_handles(ContextHandles* h) {
  if (!h) return;
  if (h->cudnn) cudnnDestroy(h->cudnn);
  if (h->cublaslt) cublasLtDestroy(h->cublaslt);
  if (h->cublas) cublasDestroy(h->cublas);
  delete h;
}

}  // namespace amp::kernels::cuda
