// AMPRT's own MaxPool / AveragePool kernels (pool_kernels.h): one thread per output
// element, each walking its window with the same functions the CPU loop uses
// (kernels/common/pool_geometry.h), so the GPU and CPU agree on every edge rule.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <string>

#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/cuda_launch.h"
#include "kernels/cuda/pool_kernels.h"

namespace amp::kernels::cuda {
namespace {

// Storage type of each dtype and its compute type: float for floats (exact widening,
// nearest-even narrowing), int for 8-bit integers.
template <DType D>
struct PoolStor;
template <>
struct PoolStor<DType::kF32> {
  using type = float;
  using C = float;
  static __device__ __forceinline__ float load(float v) { return v; }
  static __device__ __forceinline__ float store(float v) { return v; }
  static __device__ __forceinline__ float lowest() { return -INFINITY; }
};
template <>
struct PoolStor<DType::kF16> {
  using type = uint16_t;
  using C = float;
  static __device__ __forceinline__ float load(uint16_t v) {
    return __half2float(__ushort_as_half(v));
  }
  static __device__ __forceinline__ uint16_t store(float v) {
    return __half_as_ushort(__float2half_rn(v));
  }
  static __device__ __forceinline__ float lowest() { return -INFINITY; }
};
template <>
struct PoolStor<DType::kBF16> {
  using type = uint16_t;
  using C = float;
  static __device__ __forceinline__ float load(uint16_t v) {
    return __bfloat162float(__ushort_as_bfloat16(v));
  }
  static __device__ __forceinline__ uint16_t store(float v) {
    return __bfloat16_as_ushort(__float2bfloat16_rn(v));
  }
  static __device__ __forceinline__ float lowest() { return -INFINITY; }
};
template <>
struct PoolStor<DType::kI8> {
  using type = int8_t;
  using C = int;
  static __device__ __forceinline__ int load(int8_t v) { return v; }
  static __device__ __forceinline__ int8_t store(int v) { return static_cast<int8_t>(v); }
  static __device__ __forceinline__ int lowest() { return -2147483647 - 1; }
};
template <>
struct PoolStor<DType::kU8> {
  using type = uint8_t;
  using C = int;
  static __device__ __forceinline__ int load(uint8_t v) { return v; }
  static __device__ __forceinline__ uint8_t store(int v) { return static_cast<uint8_t>(v); }
  static __device__ __forceinline__ int lowest() { return -2147483647 - 1; }
};

// Splits output index o into (plane, oz, oy, ox).
__device__ __forceinline__ void split_output(const PoolGeometry& g, int64_t o, int64_t& p,
                                             int64_t& oz, int64_t& oy, int64_t& ox) {
  ox = o % g.out[2];
  o /= g.out[2];
  oy = o % g.out[1];
  o /= g.out[1];
  oz = o % g.out[0];
  p = o / g.out[0];
}

template <DType D>
__global__ void max_pool_kernel(const typename PoolStor<D>::type* __restrict__ x,
                                typename PoolStor<D>::type* __restrict__ y,
                                int64_t* __restrict__ indices, PoolGeometry g, int64_t total) {
  using S = PoolStor<D>;
  using C = typename S::C;
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
  for (int64_t o = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; o < total;
       o += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t p, oz, oy, ox;
    split_output(g, o, p, oz, oy, ox);
    const typename S::type* xp = x + p * in_plane;
    int64_t arg = 0;
    const C best = pool_window_max<C>(
        g, oz, oy, ox, S::lowest(), [&](int64_t i) { return S::load(xp[i]); }, &arg);
    y[o] = S::store(best);
    if (indices) indices[o] = p * in_plane + arg;
  }
}

template <DType D>
__global__ void avg_pool_kernel(const typename PoolStor<D>::type* __restrict__ x,
                                typename PoolStor<D>::type* __restrict__ y, PoolGeometry g,
                                bool include_pad, int64_t total) {
  using S = PoolStor<D>;
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
  for (int64_t o = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; o < total;
       o += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t p, oz, oy, ox;
    split_output(g, o, p, oz, oy, ox);
    const typename S::type* xp = x + p * in_plane;
    y[o] = S::store(
        pool_window_average(g, include_pad, oz, oy, ox, [&](int64_t i) { return S::load(xp[i]); }));
  }
}

template <DType D>
Status max_pool(const PoolGeometry& g, const void* x, void* y, int64_t* indices, int64_t total,
                cudaStream_t st) {
  using T = typename PoolStor<D>::type;
  max_pool_kernel<D><<<grid_for(total), kThreads, 0, st>>>(static_cast<const T*>(x),
                                                           static_cast<T*>(y), indices, g, total);
  AMP_CUDA_RETURN_IF_ERROR(cudaGetLastError());
  return Status::ok();
}

template <DType D>
Status avg_pool(const PoolGeometry& g, bool include_pad, const void* x, void* y, int64_t total,
                cudaStream_t st) {
  using T = typename PoolStor<D>::type;
  avg_pool_kernel<D><<<grid_for(total), kThreads, 0, st>>>(
      static_cast<const T*>(x), static_cast<T*>(y), g, include_pad, total);
  AMP_CUDA_RETURN_IF_ERROR(cudaGetLastError());
  return Status::ok();
}

}  // namespace

Status launch_max_pool(DType type, const PoolGeometry& g, const void* x, void* y, int64_t* indices,
                       cudaStream_t stream) {
  const int64_t total = g.planes * g.out[0] * g.out[1] * g.out[2];
  if (total == 0) return Status::ok();
  switch (type) {
    case DType::kF32:
      return max_pool<DType::kF32>(g, x, y, indices, total, stream);
    case DType::kF16:
      return max_pool<DType::kF16>(g, x, y, indices, total, stream);
    case DType::kBF16:
      return max_pool<DType::kBF16>(g, x, y, indices, total, stream);
    case DType::kI8:
      return max_pool<DType::kI8>(g, x, y, indices, total, stream);
    case DType::kU8:
      return max_pool<DType::kU8>(g, x, y, indices, total, stream);
    default:
      return internal_error("MaxPool kernel: dtype " + std::string(dtype_name(type)));
  }
}

Status launch_avg_pool(DType type, const PoolGeometry& g, bool include_pad, const void* x, void* y,
                       cudaStream_t stream) {
  const int64_t total = g.planes * g.out[0] * g.out[1] * g.out[2];
  if (total == 0) return Status::ok();
  switch (type) {
    case DType::kF32:
      return avg_pool<DType::kF32>(g, include_pad, x, y, total, stream);
    case DType::kF16:
      return avg_pool<DType::kF16>(g, include_pad, x, y, total, stream);
    case DType::kBF16:
      return avg_pool<DType::kBF16>(g, include_pad, x, y, total, stream);
    default:
      return internal_error("AveragePool kernel: dtype " + std::string(dtype_name(type)));
  }
}

}  // namespace amp::kernels::cuda
