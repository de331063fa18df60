// Device side of the CUDA elementwise family: three generic kernels and their launchers,
// parameterized by a functor that maps raw storage values to a raw output value (the
// arithmetic inside comes from common/elementwise_functors.h). Include from .cu files only.
//
//   map1: out[i] = f(in[i]), contiguous (unary ops, Cast, Clip).
//   map2: out = f(a, b) over a DevicePlan<2>. One merged axis with strides in {0, 1}
//         takes the linear kernel, vectorized with Pack loads when the pointers allow;
//         anything else the general kernel (OffsetCalc, 32-bit index math when it fits).
//   map3: out = f(a, b, c) over a DevicePlan<3> (Where), unvectorized.
//
// Aliasing: each element (each Pack) is read and written by the same thread, so an output
// may overwrite an input read with the same layout (in-place ops, Max/Min folding into the
// output).
#pragma once

#if !defined(__CUDACC__)
#error "elementwise_device.h holds CUDA kernels: include it from .cu files only"
#endif

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/common/elementwise_functors.h"
#include "kernels/cuda/cuda_launch.h"
#include "kernels/cuda/elementwise_cuda.h"

namespace amp::kernels::cuda {

// ---- Functor adapters: storage in, storage out -----------------------------------------------

// A unary functor of common/elementwise_functors.h on storage type T (fp32 compute for
// f16/bf16, rounded once on store; dev_load / dev_store in cuda_launch.h).
template <typename T, typename Op>
struct UnaryF {
  Op op;
  __device__ __forceinline__ T operator()(T x) const { return dev_store<T>(op(dev_load(x))); }
};

template <typename T, typename Op>
struct BinaryF {
  Op op;
  __device__ __forceinline__ T operator()(T a, T b) const {
    return dev_store<T>(op(dev_load(a), dev_load(b)));
  }
};

// ---- map1 -----------------------------------------------------------------------------------

template <typename S, typename D, typename F>
__global__ void map1_kernel(const S* in, D* out, int64_t n, F f) {
  for (int64_t i = thread_index(); i < n; i += grid_stride()) out[i] = f(in[i]);
}

template <int V, typename S, typename D, typename F>
__global__ void map1_vec_kernel(const S* in, D* out, int64_t n, F f) {
  const int64_t packs = n / V;
  const Pack<S, V>* pin = reinterpret_cast<const Pack<S, V>*>(in);
  Pack<D, V>* pout = reinterpret_cast<Pack<D, V>*>(out);
  for (int64_t p = thread_index(); p < packs; p += grid_stride()) {
    const Pack<S, V> x = pin[p];
    Pack<D, V> y;
#pragma unroll
    for (int k = 0; k < V; ++k) y.v[k] = f(x.v[k]);
    pout[p] = y;
  }
  for (int64_t i = packs * V + thread_index(); i < n; i += grid_stride()) out[i] = f(in[i]);
}

template <typename S, typename D, typename F>
Status launch_map1(const S* in, D* out, int64_t n, const F& f, cudaStream_t stream) {
  if (n <= 0) return Status::ok();
  constexpr int V = pack_size<S, D>();
  if (V > 1 && n >= V && is_aligned(in, sizeof(S) * V) && is_aligned(out, sizeof(D) * V)) {
    map1_vec_kernel<V><<<grid_for((n + V - 1) / V), kThreads, 0, stream>>>(in, out, n, f);
    return launch_status("map1_vec_kernel");
  }
  map1_kernel<<<grid_for(n), kThreads, 0, stream>>>(in, out, n, f);
  return launch_status("map1_kernel");
}

// ---- map2 -----------------------------------------------------------------------------------

// One merged axis; operand a (b) is contiguous when a_vec (b_vec), else a scalar at [0].
template <int V, typename A, typename B, typename O, typename F>
__global__ void map2_linear_kernel(const A* a, bool a_vec, const B* b, bool b_vec, O* out,
                                   int64_t n, F f) {
  const A a0 = a[0];
  const B b0 = b[0];
  const int64_t packs = n / V;
  for (int64_t p = thread_index(); p < packs; p += grid_stride()) {
    Pack<A, V> x;
    Pack<B, V> y;
    if (a_vec) {
      x = reinterpret_cast<const Pack<A, V>*>(a)[p];
    } else {
#pragma unroll
      for (int k = 0; k < V; ++k) x.v[k] = a0;
    }
    if (b_vec) {
      y = reinterpret_cast<const Pack<B, V>*>(b)[p];
    } else {
#pragma unroll
      for (int k = 0; k < V; ++k) y.v[k] = b0;
    }
    Pack<O, V> z;
#pragma unroll
    for (int k = 0; k < V; ++k) z.v[k] = f(x.v[k], y.v[k]);
    reinterpret_cast<Pack<O, V>*>(out)[p] = z;
  }
  for (int64_t i = packs * V + thread_index(); i < n; i += grid_stride())
    out[i] = f(a_vec ? a[i] : a0, b_vec ? b[i] : b0);
}

template <typename A, typename B, typename O, typename F>
__global__ void map2_general_kernel(const A* a, const B* b, O* out, int64_t n, OffsetCalc<2> calc,
                                    F f) {
  int64_t off[2];
  if (n <= int64_t{UINT32_MAX}) {
    for (int64_t i = thread_index(); i < n; i += grid_stride()) {
      calc.get(static_cast<uint32_t>(i), off);
      out[i] = f(a[off[0]], b[off[1]]);
    }
  } else {
    for (int64_t i = thread_index(); i < n; i += grid_stride()) {
      calc.get(i, off);
      out[i] = f(a[off[0]], b[off[1]]);
    }
  }
}

template <typename A, typename B, typename O, typename F>
Status launch_map2(const DevicePlan<2>& p, const A* a, const B* b, O* out, const F& f,
                   cudaStream_t stream) {
  const int64_t n = p.numel;
  if (n <= 0) return Status::ok();
  if (p.linear()) {
    const int64_t sa = p.linear_stride(0), sb = p.linear_stride(1);
    constexpr int V = pack_size<A, B, O>();
    if ((sa == 0 || sa == 1) && (sb == 0 || sb == 1) && (sa == 0 || is_aligned(a, sizeof(A) * V)) &&
        (sb == 0 || is_aligned(b, sizeof(B) * V)) && is_aligned(out, sizeof(O) * V)) {
      map2_linear_kernel<V>
          <<<grid_for((n + V - 1) / V), kThreads, 0, stream>>>(a, sa == 1, b, sb == 1, out, n, f);
      return launch_status("map2_linear_kernel");
    }
  }
  map2_general_kernel<<<grid_for(n), kThreads, 0, stream>>>(a, b, out, n, p.calc, f);
  return launch_status("map2_general_kernel");
}

// ---- map3 -----------------------------------------------------------------------------------

template <typename A, typename B, typename C, typename O, typename F>
__global__ void map3_kernel(const A* a, const B* b, const C* c, O* out, int64_t n,
                            OffsetCalc<3> calc, F f) {
  if (calc.rank == 1) {
    const int64_t sa = calc.strides[0][0], sb = calc.strides[1][0], sc = calc.strides[2][0];
    for (int64_t i = thread_index(); i < n; i += grid_stride())
      out[i] = f(a[i * sa], b[i * sb], c[i * sc]);
    return;
  }
  int64_t off[3];
  if (n <= int64_t{UINT32_MAX}) {
    for (int64_t i = thread_index(); i < n; i += grid_stride()) {
      calc.get(static_cast<uint32_t>(i), off);
      out[i] = f(a[off[0]], b[off[1]], c[off[2]]);
    }
  } else {
    for (int64_t i = thread_index(); i < n; i += grid_stride()) {
      calc.get(i, off);
      out[i] = f(a[off[0]], b[off[1]], c[off[2]]);
    }
  }
}

template <typename A, typename B, typename C, typename O, typename F>
Status launch_map3(const DevicePlan<3>& p, const A* a, const B* b, const C* c, O* out, const F& f,
                   cudaStream_t stream) {
  if (p.numel <= 0) return Status::ok();
  map3_kernel<<<grid_for(p.numel), kThreads, 0, stream>>>(a, b, c, out, p.numel, p.calc, f);
  return launch_status("map3_kernel");
}

}  // namespace amp::kernels::cuda
