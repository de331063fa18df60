// Plumbing shared by the CUDA library kernels (cudnn_conv.cc, cudnn_pool.cc,
// cublaslt_matmul.cc): descriptor ownership, dtype mapping, workspace layout, and the
// cuDNN handle used for prepare-time heuristics. The node readers (fused activation,
// sliding window, Conv/MatMul/Gemm operands) are kernels/common/, shared with the CPU.
//
// Handles: prepare() receives cuda::DeviceHandles, which has a cuBLASLt handle (for
// cublasLtMatmulAlgoGetHeuristic) but no cuDNN handle, and cuDNN's algorithm heuristics
// (cudnnGetConvolutionForwardAlgorithm_v7) need one. with_heuristics_handle() lends a
// process-wide cuDNN handle per device, created on first use and kept for the life of
// the process, under a mutex (heuristics are descriptor-only: nothing runs on a stream).
// run() uses the ExecutionContext's own handle (KernelArgs::context_handles).
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "amp/dtype.h"
#include "graph/ir/graph.h"
#include "kernels/common/elementwise_functors.h"
#include "kernels/common/kernel_checks.h"
#include "kernels/common/workspace_layout.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/cudnn_check.h"
#include "kernels/kernel_registry.h"
#include "runtime/common/status.h"

namespace amp::kernels::cuda {

// ---- dtypes ----

// cuDNN / CUDA data types of f32, f16, bf16 (the library kernels' dtypes).
cudnnDataType_t cudnn_type(DType t);
cudaDataType_t cuda_type(DType t);
bool is_library_float(DType t);  // f32, f16, bf16

// ---- Descriptor ownership (created in prepare, read-only in run) ----

template <typename H, cudnnStatus_t (*Destroy)(H)>
class CudnnDesc {
 public:
  CudnnDesc() = default;
  CudnnDesc(const CudnnDesc&) = delete;
  CudnnDesc& operator=(const CudnnDesc&) = delete;
  ~CudnnDesc() {
    if (h_) Destroy(h_);
  }
  // Creates the descriptor once; later calls keep it.
  template <cudnnStatus_t (*Create)(H*)>
  Status create(const char* what) {
    if (h_) return Status::ok();
    const cudnnStatus_t st = Create(&h_);
    if (st != CUDNN_STATUS_SUCCESS) {
      h_ = nullptr;
      return cuda::cudnn_status(st, what, __FILE__, __LINE__);
    }
    return Status::ok();
  }
  H get() const { return h_; }

 private:
  H h_ = nullptr;
};

using TensorDescriptor = CudnnDesc<cudnnTensorDescriptor_t, cudnnDestroyTensorDescriptor>;
using FilterDescriptor = CudnnDesc<cudnnFilterDescriptor_t, cudnnDestroyFilterDescriptor>;
using ConvDescriptor = CudnnDesc<cudnnConvolutionDescriptor_t, cudnnDestroyConvolutionDescriptor>;
using PoolDescriptor = CudnnDesc<cudnnPoolingDescriptor_t, cudnnDestroyPoolingDescriptor>;
using ActivationDescriptor =
    CudnnDesc<cudnnActivationDescriptor_t, cudnnDestroyActivationDescriptor>;

Status create(TensorDescriptor& d);
Status create(FilterDescriptor& d);
Status create(ConvDescriptor& d);
Status create(PoolDescriptor& d);
Status create(ActivationDescriptor& d);

// A packed NC[D]HW tensor descriptor of `dims` (rank 4 or 5; callers lift 1-D to 2-D).
// unsupported when a dim exceeds int32 (cuDNN's legacy API takes int dims).
Status set_tensor(TensorDescriptor& d, DType t, const std::vector<int64_t>& dims);
Status set_filter(FilterDescriptor& d, DType t, const std::vector<int64_t>& dims);

// Checks that every value fits cuDNN's int parameters.
Status fits_int(const std::vector<int64_t>& v, const std::string& what);
std::vector<int> to_int(const std::vector<int64_t>& v);

// ---- Handles ----

// The DeviceHandles of a prepare() call; internal_error when the runtime passed none.
Result<const cuda::DeviceHandles*> device_handles(const KernelConfig& cfg);
// The ContextHandles of a run() call, checked.
Result<const cuda::ContextHandles*> context_handles(const KernelArgs& a);

// Runs fn(handle) with the process-wide heuristics cuDNN handle of `device` (header
// comment), holding its mutex.
Status with_heuristics_handle(int device, const std::function<Status(cudnnHandle_t)>& fn);

// ---- Workspace layout ----

// 256-byte aligned regions of the run's workspace (common/workspace_layout.h), as
// cuBLASLt and cuDNN want their buffers.
using WorkspaceLayout = AlignedWorkspaceLayout<256>;

}  // namespace amp::kernels::cuda
