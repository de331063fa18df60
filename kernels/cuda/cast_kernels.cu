#include "kernels/cuda/cast_kernels.h"

#include <string>

#include "kernels/cuda/cuda_check.h"
#include "runtime/common/half.h"

namespace amp::kernels::cuda {
namespace {

// The float <-> storage conversions are the shared host/device functions of
// common/half.h, so the CPU tests of half.h cover the arithmetic this kernel runs.
AMP_HOST_DEVICE float load_as_float(DType t, const void* p, size_t i) {
  switch (t) {
    case DType::kF16:
      return half_bits_to_float(static_cast<const uint16_t*>(p)[i]);
    case DType::kBF16:
      return bf16_bits_to_float(static_cast<const uint16_t*>(p)[i]);
    default:
      return static_cast<const float*>(p)[i];
  }
}

AMP_HOST_DEVICE void store_from_float(DType t, void* p, size_t i, float v) {
  switch (t) {
    case DType::kF16:
      static_cast<uint16_t*>(p)[i] = float_to_half_bits(v);
      break;
    case DType::kBF16:
      static_cast<uint16_t*>(p)[i] = float_to_bf16_bits(v);
      break;
    default:
      static_cast<float*>(p)[i] = v;
      break;
  }
}

__global__ void cast_kernel(DType src_type, const void* src, DType dst_type, void* dst, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    store_from_float(dst_type, dst, i, load_as_float(src_type, src, i));
  }
}

bool castable(DType t) {
  return t == DType::kF32 || t == DType::kF16 || t == DType::kBF16;
}

}  // namespace

Status launch_cast(DType src_type, const void* src, DType dst_type, void* dst, size_t n,
                   cudaStream_t stream) {
  if (!castable(src_type) || !castable(dst_type))
    return unsupported("CUDA cast from " + std::string(dtype_name(src_type)) + " to " +
                       std::string(dtype_name(dst_type)));
  if (n == 0) return Status::ok();
  constexpr int kThreads = 256;
  const size_t blocks_needed = (n + kThreads - 1) / kThreads;
  const int blocks = static_cast<int>(blocks_needed < 65535 ? blocks_needed : 65535);
  cast_kernel<<<blocks, kThreads, 0, stream>>>(src_type, src, dst_type, dst, n);
  AMP_CUDA_RETURN_IF_ERROR(cudaGetLastError());
  return Status::ok();
}

}  // namespace amp::kernels::cuda
