// Shared plumbing of the CUDA library kernels (cudnn_common.h).
#include "kernels/cuda/cudnn_common.h"

#include <algorithm>
#include <cfloat>
#include <limits>
#include <map>
#include <mutex>

#include "kernels/cuda/cuda_check.h"

namespace amp::kernels::cuda {

cudnnDataType_t cudnn_type(DType t) {
  switch (t) {
    case DType::kF16:
      return CUDNN_DATA_HALF;
    case DType::kBF16:
      return CUDNN_DATA_BFLOAT16;
    case DType::kI8:
      return CUDNN_DATA_INT8;
    case DType::kU8:
      return CUDNN_DATA_UINT8;
    default:
      return CUDNN_DATA_FLOAT;
  }
}

cudaDataType_t cuda_type(DType t) {
  switch (t) {
    case DType::kF16:
      return CUDA_R_16F;
    case DType::kBF16:
      return CUDA_R_16BF;
    default:
      return CUDA_R_32F;
  }
}

bool is_library_float(DType t) {
  return t == DType::kF32 || t == DType::kF16 || t == DType::kBF16;
}

Status create(TensorDescriptor& d) {
  return d.create<cudnnCreateTensorDescriptor>("cudnnCreateTensorDescriptor");
}
Status create(FilterDescriptor& d) {
  return d.create<cudnnCreateFilterDescriptor>("cudnnCreateFilterDescriptor");
}
Status create(ConvDescriptor& d) {
  return d.create<cudnnCreateConvolutionDescriptor>("cudnnCreateConvolutionDescriptor");
}
Status create(PoolDescriptor& d) {
  return d.create<cudnnCreatePoolingDescriptor>("cudnnCreatePoolingDescriptor");
}
Status create(ActivationDescriptor& d) {
  return d.create<cudnnCreateActivationDescriptor>("cudnnCreateActivationDescriptor");
}

Status fits_int(const std::vector<int64_t>& v, const std::string& what) {
  for (int64_t x : v)
    if (x > std::numeric_limits<int>::max() || x < std::numeric_limits<int>::min())
      return unsupported(what + " " + dims_to_string(v) + " exceeds cuDNN's 32-bit parameters");
  return Status::ok();
}

std::vector<int> to_int(const std::vector<int64_t>& v) {
  return std::vector<int>(v.begin(), v.end());
}

Status set_tensor(TensorDescriptor& d, DType t, const std::vector<int64_t>& dims) {
  AMP_RETURN_IF_ERROR(create(d));
  AMP_RETURN_IF_ERROR(fits_int(dims, "tensor dims"));
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  AMP_RETURN_IF_ERROR(fits_int(strides, "tensor strides"));
  const std::vector<int> di = to_int(dims), si = to_int(strides);
  AMP_CUDNN_RETURN_IF_ERROR(cudnnSetTensorNdDescriptor(
      d.get(), cudnn_type(t), static_cast<int>(di.size()), di.data(), si.data()));
  return Status::ok();
}

Status set_filter(FilterDescriptor& d, DType t, const std::vector<int64_t>& dims) {
  AMP_RETURN_IF_ERROR(create(d));
  AMP_RETURN_IF_ERROR(fits_int(dims, "filter dims"));
  const std::vector<int> di = to_int(dims);
  AMP_CUDNN_RETURN_IF_ERROR(cudnnSetFilterNdDescriptor(d.get(), cudnn_type(t), CUDNN_TENSOR_NCHW,
                                                       static_cast<int>(di.size()), di.data()));
  return Status::ok();
}

Result<const cuda::DeviceHandles*> device_handles(const KernelConfig& cfg) {
  const auto* h = static_cast<const cuda::DeviceHandles*>(cfg.backend_handle);
  if (h == nullptr)
    return internal_error(
        "CUDA kernel prepared without DeviceHandles (KernelConfig::backend_handle)");
  return h;
}

Result<const cuda::ContextHandles*> context_handles(const KernelArgs& a) {
  const auto* h = static_cast<const cuda::ContextHandles*>(a.context_handles);
  if (h == nullptr)
    return internal_error("CUDA kernel run without ContextHandles (KernelArgs::context_handles)");
  return h;
}

Status with_heuristics_handle(int device, const std::function<Status(cudnnHandle_t)>& fn) {
  static std::mutex mu;
  // Never destroyed: destroying cuDNN handles from a static destructor races the CUDA
  // runtime's own teardown at exit.
  static std::map<int, cudnnHandle_t>* handles = new std::map<int, cudnnHandle_t>();
  std::lock_guard<std::mutex> lock(mu);
  auto it = handles->find(device);
  if (it == handles->end()) {
    int prev = 0;
    AMP_CUDA_RETURN_IF_ERROR(cudaGetDevice(&prev));
    AMP_CUDA_RETURN_IF_ERROR(cudaSetDevice(device));
    cudnnHandle_t h = nullptr;
    const cudnnStatus_t st = cudnnCreate(&h);
    const cudaError_t restore = cudaSetDevice(prev);
    if (st != CUDNN_STATUS_SUCCESS)
      return cuda::cudnn_status(st, "cudnnCreate (heuristics handle)", __FILE__, __LINE__);
    if (restore != cudaSuccess) {
      cudnnDestroy(h);
      return cuda::cuda_status(restore, "cudaSetDevice(prev)", __FILE__, __LINE__);
    }
    it = handles->emplace(device, h).first;
  }
  return fn(it->second);
}

}  // namespace amp::kernels::cuda
