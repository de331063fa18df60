// The CUDA handles kernels receive. The runtime owns them:
//   - DeviceHandles: one per Engine (device properties, a cuBLASLt handle for prepare-time
//     heuristics). Passed to prepare() as KernelConfig::backend_handle.
//   - ContextHandles: one per ExecutionContext, bound to that context's stream (cuDNN
//     handles are not safe to share across concurrently running streams). Passed to run()
//     as KernelArgs::context_handles; args.stream is the same stream.
// Kernels never create handles or streams themselves.
#pragma once

#include <string>

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include "runtime/common/status.h"

namespace amp::kernels::cuda {

struct DeviceHandles {
  int device = 0;
  cudaDeviceProp props{};
  cublasLtHandle_t cublaslt = nullptr;
  bool allow_tf32 = false;  // Options::allow_tf32
  // "driver 13.0, runtime 13.0, cuBLASLt 13.1.0, cuDNN 9.19.0 (built with 9.19.0)": the
  // libraries actually loaded, which on a machine that brings its own (pip wheels) may
  // differ from the headers we compiled against.
  std::string library_versions;
};

struct ContextHandles {
  cudaStream_t stream = nullptr;
  cudnnHandle_t cudnn = nullptr;  // cudnnSetStream(cudnn, stream) done by the runtime
  cublasLtHandle_t cublaslt = nullptr;
  // cuBLAS (not Lt) for its pointer-array batched GEMM (Attention's two products over
  // (batch, head) pairs that no single stride describes); bound to `stream`.
  cublasHandle_t cublas = nullptr;
};

// Creation / destruction with every return code checked (implemented in cuda_context.cc).
Result<DeviceHandles*> create_device_handles(int device, bool allow_tf32);
void destroy_device_handles(DeviceHandles* h);
Result<ContextHandles*> create_context_handles(cudaStream_t stream);
void destroy_context_handles(ContextHandles* h);

}  // namespace amp::kernels::cuda
