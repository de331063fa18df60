// Device-side helpers of the CUDA reduction family (reduce_*.cu, norm_*.cu, softmax.cu):
// storage <-> compute conversions, warp / block reductions, row visitors with 16-byte
// vector loads, and the host-side iteration plan of a multi-axis reduction. Included only
// by .cu files (nvcc); the registration functions are declared in cuda_kernels.h.
//
// Compute types follow the numerical contract (ARCHITECTURE.md) and the CPU kernels
// (kernels/cpu/reduce_util.h): f32/f16/bf16 -> float, f64 -> double, integers and bool ->
// int64_t. f16/bf16 are widened exactly with the cuda_fp16/cuda_bf16 intrinsics and
// rounded once on store, to nearest even (the same values common/half.h produces).
// The arithmetic itself (max/min/sum steps, softmax, statistics) comes from
// common/reduction_functors.h, shared with the CPU.
//
// Launch geometry used throughout: 256-thread blocks; a "row" (a contiguous run that one
// output reduces) is handled by one warp when it is short and by one block when it is
// long, so short rows (attention softmax, LayerNorm over 768) do not leave 7/8 of a
// block idle and long rows (GlobalAveragePool over 56x56) get 256 threads.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "amp/dtype.h"
#include "kernels/common/kernel_checks.h"
#include "kernels/common/reduce_plan.h"
#include "kernels/common/reduction_functors.h"
#include "kernels/common/reduction_types.h"
#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/cuda/cuda_launch.h"
#include "kernels/kernel_registry.h"
#include "runtime/common/half.h"
#include "runtime/common/status.h"

namespace amp::kernels::cuda {

inline constexpr int kWarp = 32;
// Rows up to this length are reduced by one warp, longer ones by one block.
inline constexpr int64_t kWarpRowMax = 1024;

// Storage types and their compute types: common/reduction_types.h.
using reduction::compute_t;
using reduction::ComputeOf;
using reduction::dtype_of;
using reduction::highest_of;
using reduction::lowest_of;

__host__ __device__ __forceinline__ int64_t min64(int64_t a, int64_t b) {
  return a < b ? a : b;
}
__host__ __device__ __forceinline__ int64_t max64(int64_t a, int64_t b) {
  return a < b ? b : a;
}

// ---- Storage <-> compute (device) ----

__device__ __forceinline__ float to_compute(float v) {
  return v;
}
__device__ __forceinline__ double to_compute(double v) {
  return v;
}
__device__ __forceinline__ float to_compute(Half v) {
  return __half2float(__ushort_as_half(v.bits));
}
__device__ __forceinline__ float to_compute(BFloat16 v) {
  return __bfloat162float(__ushort_as_bfloat16(v.bits));
}
__device__ __forceinline__ int64_t to_compute(int8_t v) {
  return v;
}
__device__ __forceinline__ int64_t to_compute(uint8_t v) {
  return v;
}
__device__ __forceinline__ int64_t to_compute(int32_t v) {
  return v;
}
__device__ __forceinline__ int64_t to_compute(int64_t v) {
  return v;
}
__device__ __forceinline__ int64_t to_compute(ew::Bool v) {
  return v.v != 0 ? 1 : 0;
}

// Compute -> storage, rounding once (nearest even) for f16/bf16; integer results wrap to
// the storage type like the CPU's static_cast.
template <typename T>
__device__ __forceinline__ T from_compute(compute_t<T> v) {
  if constexpr (std::is_same_v<T, Half>) {
    return Half::from_bits(__half_as_ushort(__float2half_rn(v)));
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return BFloat16::from_bits(__bfloat16_as_ushort(__float2bfloat16_rn(v)));
  } else if constexpr (std::is_same_v<T, ew::Bool>) {
    return ew::Bool{static_cast<uint8_t>(v != 0 ? 1 : 0)};
  } else {
    return static_cast<T>(v);
  }
}

// Element i of a float tensor whose dtype is only known at run time (normalization
// parameters may differ in dtype from X). The switch is uniform across a launch.
__device__ __forceinline__ float load_float_any(DType t, const void* p, int64_t i) {
  switch (t) {
    case DType::kF16:
      return __half2float(__ushort_as_half(static_cast<const uint16_t*>(p)[i]));
    case DType::kBF16:
      return __bfloat162float(__ushort_as_bfloat16(static_cast<const uint16_t*>(p)[i]));
    case DType::kF64:
      return static_cast<float>(static_cast<const double*>(p)[i]);
    default:
      return static_cast<const float*>(p)[i];
  }
}
__device__ __forceinline__ double load_double_any(DType t, const void* p, int64_t i) {
  if (t == DType::kF64) return static_cast<const double*>(p)[i];
  return static_cast<double>(load_float_any(t, p, i));
}
template <typename C>
__device__ __forceinline__ C load_param(DType t, const void* p, int64_t i) {
  if constexpr (std::is_same_v<C, double>)
    return load_double_any(t, p, i);
  else
    return load_float_any(t, p, i);
}
// Stores v into element i of a float tensor (f32/f16/bf16/f64), rounding once.
__device__ __forceinline__ void store_float_any(DType t, void* p, int64_t i, double v) {
  switch (t) {
    case DType::kF16:
      static_cast<uint16_t*>(p)[i] = __half_as_ushort(__float2half_rn(static_cast<float>(v)));
      return;
    case DType::kBF16:
      static_cast<uint16_t*>(p)[i] =
          __bfloat16_as_ushort(__float2bfloat16_rn(static_cast<float>(v)));
      return;
    case DType::kF64:
      static_cast<double*>(p)[i] = v;
      return;
    default:
      static_cast<float*>(p)[i] = static_cast<float>(v);
      return;
  }
}

// ---- Warp and block reductions ----

template <typename C>
__device__ __forceinline__ C shfl_down(C v, int delta) {
  if constexpr (std::is_same_v<C, int64_t>)
    return static_cast<C>(__shfl_down_sync(0xffffffffu, static_cast<long long>(v), delta));
  else
    return __shfl_down_sync(0xffffffffu, v, delta);
}
template <typename C>
__device__ __forceinline__ C shfl_idx(C v, int lane) {
  if constexpr (std::is_same_v<C, int64_t>)
    return static_cast<C>(__shfl_sync(0xffffffffu, static_cast<long long>(v), lane));
  else
    return __shfl_sync(0xffffffffu, v, lane);
}

// Reduces v over the 32 lanes of a (fully active) warp; every lane gets the result.
template <typename C, typename Op>
__device__ __forceinline__ C warp_reduce(C v, Op op) {
  for (int d = kWarp / 2; d > 0; d /= 2) v = op(v, shfl_down(v, d));
  return shfl_idx(v, 0);
}

// Reduces v over the whole block (blockDim.x a multiple of 32, <= 1024); every thread gets
// the result. `scratch` holds 32 values; the call synchronizes, so it may be reused by
// the next call.
template <typename C, typename Op>
__device__ __forceinline__ C block_reduce(C v, Op op, C identity, C* scratch) {
  const int lane = threadIdx.x % kWarp;
  const int warp = threadIdx.x / kWarp;
  const int warps = blockDim.x / kWarp;
  v = warp_reduce(v, op);
  __syncthreads();  // scratch may still be read by a previous call
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  if (warp == 0) {
    C w = lane < warps ? scratch[lane] : identity;
    w = warp_reduce(w, op);
    if (lane == 0) scratch[0] = w;
  }
  __syncthreads();
  return scratch[0];
}

// Reduction over a group of `width` threads (a warp when width == 32, else the block).
template <typename C, typename Op>
__device__ __forceinline__ C group_reduce(C v, Op op, C identity, C* scratch, bool warp_group) {
  return warp_group ? warp_reduce(v, op) : block_reduce(v, op, identity, scratch);
}

// A reducer's step (reduction_functors.h) as the functor warp and block reductions combine
// with.
template <typename R>
struct StepOp {
  template <typename C>
  __device__ __forceinline__ C operator()(C a, C b) const {
    return R::step(a, b);
  }
};
using MaxOp = StepOp<MaxReducer>;
using SumOp = StepOp<SumReducer>;

// Calls f(i, value) for i = lane, lane + stride, ... < n of a contiguous row, reading 16
// bytes at a time when the row is 16-byte aligned and n is a multiple of the vector width
// (then each thread handles whole vectors: element order per thread stays increasing).
template <typename T, typename F>
__device__ __forceinline__ void visit_row(const T* row, int64_t n, int lane, int stride, F&& f) {
  constexpr int V = static_cast<int>(16 / sizeof(T));
  if constexpr (V > 1) {
    if (n % V == 0 && reinterpret_cast<uintptr_t>(row) % 16 == 0) {
      const int4* vrow = reinterpret_cast<const int4*>(row);
      const int64_t nv = n / V;
      for (int64_t j = lane; j < nv; j += stride) {
        const int4 raw = vrow[j];
        const T* e = reinterpret_cast<const T*>(&raw);
#pragma unroll
        for (int k = 0; k < V; ++k) f(j * V + k, to_compute(e[k]));
      }
      return;
    }
  }
  for (int64_t i = lane; i < n; i += stride) f(i, to_compute(row[i]));
}

// ---- Host-side helpers ----

// The input offset of the index-th element of a row-major space `dims` with `strides`.
__host__ __device__ __forceinline__ int64_t offset_of(int64_t index, const int64_t* dims,
                                                      const int64_t* strides, int n) {
  int64_t off = 0;
  for (int d = n - 1; d >= 0; --d) {
    off += (index % dims[d]) * strides[d];
    index /= dims[d];
  }
  return off;
}

inline cudaStream_t stream_of(const KernelArgs& a) {
  return static_cast<cudaStream_t>(a.stream);
}

}  // namespace amp::kernels::cuda
