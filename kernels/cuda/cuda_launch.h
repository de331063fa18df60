// Launch geometry, indexing and dtype dispatch shared by the CUDA elementwise and movement
// kernels (kernels/cuda/elementwise_*.cu, movement_*.cu).
//
// Conventions every kernel here follows:
//   - kThreads threads per block, a grid-stride loop over int64 indices, and at most
//     kMaxBlocks blocks (the loop covers the rest), so any size launches the same way;
//   - nothing launches for an empty tensor (a zero-block grid is a launch error);
//   - after each launch, launch_status() turns cudaGetLastError() into a Status naming
//     the kernel;
//   - shapes and strides travel by value in small fixed-size structs (kMaxDims dims), so a
//     run() needs no device allocation and no host-to-device copy.
//
//   const unsigned blocks = grid_for(n);
//   my_kernel<<<blocks, kThreads, 0, stream>>>(..., n);
//   AMP_RETURN_IF_ERROR(launch_status("my_kernel"));
#pragma once

#include <cuda_runtime.h>
#if defined(__CUDACC__)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#endif

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "amp/dtype.h"
#include "kernels/common/elementwise_functors.h"
#include "kernels/cuda/cuda_check.h"
#include "runtime/common/half.h"
#include "runtime/common/status.h"

namespace amp::kernels::cuda {

inline constexpr int kThreads = 256;
// Enough blocks to fill an H200 (132 SMs x 2048 threads) many times over; the grid-stride
// loop covers larger tensors.
inline constexpr int64_t kMaxBlocks = int64_t{1} << 16;
// Dims of the index structs passed by value (after merging contiguous axes).
inline constexpr int kMaxDims = 8;

// Blocks for a grid-stride loop over `items` work items, `per_block` of them per block
// (1 for one row per block, kThreads for one item per thread), capped at kMaxBlocks.
inline unsigned blocks_for(int64_t items, int64_t per_block) {
  const int64_t blocks = (items + per_block - 1) / per_block;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > kMaxBlocks ? kMaxBlocks : blocks));
}

// Blocks for a grid-stride loop over `n` items, one per thread.
inline unsigned grid_for(int64_t n) {
  return blocks_for(n, kThreads);
}

// The Status of the last launch (named after `kernel`), e.g. an invalid configuration.
inline Status launch_status(const char* kernel) {
  const cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) return Status::ok();
  return cuda_status(err, kernel, __FILE__, __LINE__);
}

inline bool is_aligned(const void* p, size_t bytes) {
  return reinterpret_cast<uintptr_t>(p) % bytes == 0;
}

#if defined(__CUDACC__)
// The first index of this thread and the stride of a grid-stride loop.
__device__ __forceinline__ int64_t thread_index() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ int64_t grid_stride() {
  return static_cast<int64_t>(gridDim.x) * blockDim.x;
}
#endif

#if defined(__CUDACC__)
// Storage <-> compute conversions for device code: ew::load / ew::store (the numerical
// contract: f16/bf16 widen to fp32 exactly, round once to nearest even on store), with the
// f16/bf16 conversions done by the hardware's round-to-nearest-even cvt instructions instead
// of common/half.h's integer emulation, which would cost ~15 ALU instructions per element
// and make streaming kernels compute-bound. The values are identical (both are IEEE RNE,
// overflow to Inf); only NaN payloads may differ (the hardware returns a canonical NaN).
template <typename T>
__device__ __forceinline__ ew::compute_t<T> dev_load(T v) {
  if constexpr (std::is_same_v<T, Half>)
    return __half2float(__ushort_as_half(v.bits));
  else if constexpr (std::is_same_v<T, BFloat16>)
    return __bfloat162float(__ushort_as_bfloat16(v.bits));
  else
    return ew::load(v);
}
template <typename T>
__device__ __forceinline__ T dev_store(ew::compute_t<T> v) {
  if constexpr (std::is_same_v<T, Half>)
    return Half::from_bits(__half_as_ushort(__float2half_rn(v)));
  else if constexpr (std::is_same_v<T, BFloat16>)
    return BFloat16::from_bits(__bfloat16_as_ushort(__float2bfloat16_rn(v)));
  else
    return ew::store<T>(v);
}
// ew::cast_value with the same hardware conversions between float, f16 and bf16 (the AMP
// planner's casts); every other pair is ew::cast_value itself.
template <typename D, typename S>
__device__ __forceinline__ D dev_cast(S s) {
  constexpr bool kS = std::is_same_v<S, float> || ew::kIsLowFloat<S>;
  constexpr bool kD = std::is_same_v<D, float> || ew::kIsLowFloat<D>;
  if constexpr (kS && kD && !std::is_same_v<S, D>)
    return dev_store<D>(dev_load(s));
  else
    return ew::cast_value<D>(s);
}
#endif

// N consecutive elements loaded or stored as one aligned access (16 bytes at most), so
// contiguous kernels issue 128-bit loads whatever the element type.
template <typename T, int N>
struct alignas(sizeof(T) * N) Pack {
  T v[N];
};

// Elements per Pack for a kernel reading/writing these storage types: 16 bytes of the
// widest one.
template <typename... Ts>
constexpr int pack_size() {
  size_t widest = 1;
  ((widest = sizeof(Ts) > widest ? sizeof(Ts) : widest), ...);
  return static_cast<int>(16 / widest);
}

// Offsets of N operands for an output linear index: the output is row-major in dims[0..rank),
// operand k's element is at sum_d idx_d * strides[k][d] (0 on broadcast axes). Built on the
// host in prepare() and passed to kernels by value.
template <int N>
struct OffsetCalc {
  int rank = 1;
  int64_t dims[kMaxDims] = {};
  int64_t strides[N][kMaxDims] = {};

#if defined(__CUDACC__)
  // I is uint32_t when the output has fewer than 2^32 elements (cheap division), else int64_t.
  template <typename I>
  __device__ __forceinline__ void get(I linear, int64_t (&off)[N]) const {
#pragma unroll
    for (int k = 0; k < N; ++k) off[k] = 0;
    for (int d = rank - 1; d >= 0; --d) {
      const I dim = static_cast<I>(dims[d]);
      const I q = linear / dim;
      const int64_t r = static_cast<int64_t>(linear - q * dim);
      linear = q;
#pragma unroll
      for (int k = 0; k < N; ++k) off[k] += r * strides[k][d];
    }
  }
#endif
};

}  // namespace amp::kernels::cuda
