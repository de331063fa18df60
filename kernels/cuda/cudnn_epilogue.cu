// The epilogue kernels of the CUDA library ops (cudnn_epilogue.h).
//
// Geometry: bias + activation walks one (n, c) plane per block when planes are long
// (conv outputs), with 4-element vector loads/stores when the plane length and pointers
// allow, and the tensor flattened otherwise (GEMM outputs, 7x7 planes), using 32-bit
// index arithmetic whenever the tensor has fewer than 2^31 elements.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <string>

#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/cuda_launch.h"
#include "kernels/cuda/cudnn_epilogue.h"

namespace amp::kernels::cuda {
namespace {

// Storage of each library dtype, with exact widening and round-to-nearest-even narrowing
// (the values common/half.h produces).
template <DType D>
struct Stor;
template <>
struct Stor<DType::kF32> {
  using type = float;
  static __device__ __forceinline__ float load(float v) { return v; }
  static __device__ __forceinline__ float store(float v) { return v; }
};
template <>
struct Stor<DType::kF16> {
  using type = uint16_t;
  static __device__ __forceinline__ float load(uint16_t v) {
    return __half2float(__ushort_as_half(v));
  }
  static __device__ __forceinline__ uint16_t store(float v) {
    return __half_as_ushort(__float2half_rn(v));
  }
};
template <>
struct Stor<DType::kBF16> {
  using type = uint16_t;
  static __device__ __forceinline__ float load(uint16_t v) {
    return __bfloat162float(__ushort_as_bfloat16(v));
  }
  static __device__ __forceinline__ uint16_t store(float v) {
    return __bfloat16_as_ushort(__float2bfloat16_rn(v));
  }
};

__device__ __forceinline__ float load_any(DType t, const void* p, int64_t i) {
  switch (t) {
    case DType::kF16:
      return Stor<DType::kF16>::load(static_cast<const uint16_t*>(p)[i]);
    case DType::kBF16:
      return Stor<DType::kBF16>::load(static_cast<const uint16_t*>(p)[i]);
    default:
      return static_cast<const float*>(p)[i];
  }
}
__device__ __forceinline__ void store_any(DType t, void* p, int64_t i, float v) {
  switch (t) {
    case DType::kF16:
      static_cast<uint16_t*>(p)[i] = Stor<DType::kF16>::store(v);
      return;
    case DType::kBF16:
      static_cast<uint16_t*>(p)[i] = Stor<DType::kBF16>::store(v);
      return;
    default:
      static_cast<float*>(p)[i] = v;
      return;
  }
}

// ---- Bias + activation ----

// One (n, c) plane per block; 4-element vectors when `vec4` (inner % 4 == 0, aligned).
template <DType SrcT, DType DstT>
__global__ void bias_act_planes_kernel(const typename Stor<SrcT>::type* src,
                                       typename Stor<DstT>::type* y,
                                       const typename Stor<DstT>::type* bias, int64_t planes,
                                       int64_t inner, int64_t channels, ew::Activation act,
                                       bool vec4) {
  using S = Stor<SrcT>;
  using D = Stor<DstT>;
  for (int64_t p = blockIdx.x; p < planes; p += gridDim.x) {
    const float b = bias ? D::load(bias[p % channels]) : 0.0f;
    const typename S::type* sp = src + p * inner;
    typename D::type* yp = y + p * inner;
    if (vec4) {
      for (int64_t j = threadIdx.x; j < inner / 4; j += blockDim.x) {
        // Aligned whole-vector copies (8 or 16 bytes): the compiler emits one load/store.
        struct alignas(4 * sizeof(typename S::type)) SV {
          typename S::type e[4];
        };
        struct alignas(4 * sizeof(typename D::type)) DV {
          typename D::type e[4];
        };
        const SV sv = reinterpret_cast<const SV*>(sp)[j];
        DV dv;
#pragma unroll
        for (int k = 0; k < 4; ++k)
          dv.e[k] = D::store(ew::apply_activation(act, S::load(sv.e[k]) + b));
        reinterpret_cast<DV*>(yp)[j] = dv;
      }
    } else {
      for (int64_t i = threadIdx.x; i < inner; i += blockDim.x)
        yp[i] = D::store(ew::apply_activation(act, S::load(sp[i]) + b));
    }
  }
}

// The tensor flattened; Index is uint32_t when n < 2^31 (cheap division), else int64_t.
template <DType SrcT, DType DstT, typename Index>
__global__ void bias_act_flat_kernel(const typename Stor<SrcT>::type* src,
                                     typename Stor<DstT>::type* y,
                                     const typename Stor<DstT>::type* bias, Index n, Index inner,
                                     Index channels, ew::Activation act) {
  using S = Stor<SrcT>;
  using D = Stor<DstT>;
  for (Index i = blockIdx.x * static_cast<Index>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<Index>(gridDim.x) * blockDim.x) {
    const float b = bias ? D::load(bias[(i / inner) % channels]) : 0.0f;
    y[i] = D::store(ew::apply_activation(act, S::load(src[i]) + b));
  }
}

template <DType SrcT, DType DstT>
Status bias_act(const void* src, void* y, const void* bias, int64_t n, int64_t inner,
                int64_t channels, const ew::Activation& act, cudaStream_t st) {
  using SS = typename Stor<SrcT>::type;
  using DS = typename Stor<DstT>::type;
  const auto* s = static_cast<const SS*>(src);
  auto* d = static_cast<DS*>(y);
  const auto* b = static_cast<const DS*>(bias);
  if (inner >= 128) {
    const int64_t planes = n / inner;
    const bool vec4 = inner % 4 == 0 && reinterpret_cast<uintptr_t>(src) % (4 * sizeof(SS)) == 0 &&
                      reinterpret_cast<uintptr_t>(y) % (4 * sizeof(DS)) == 0;
    bias_act_planes_kernel<SrcT, DstT>
        <<<blocks_for(planes, 1), kThreads, 0, st>>>(s, d, b, planes, inner, channels, act, vec4);
  } else if (n < (int64_t{1} << 31)) {
    bias_act_flat_kernel<SrcT, DstT, uint32_t><<<grid_for(n), kThreads, 0, st>>>(
        s, d, b, static_cast<uint32_t>(n), static_cast<uint32_t>(inner),
        static_cast<uint32_t>(channels), act);
  } else {
    bias_act_flat_kernel<SrcT, DstT, int64_t>
        <<<grid_for(n), kThreads, 0, st>>>(s, d, b, n, inner, channels, act);
  }
  AMP_CUDA_RETURN_IF_ERROR(cudaGetLastError());
  return Status::ok();
}

// ---- Zero padding ----

template <typename E>
__global__ void pad_copy_kernel(const E* __restrict__ src, E* __restrict__ dst, int64_t total,
                                Geom3 in, Geom3 out, Geom3 pb) {
  const int64_t out_plane = out.size(), in_plane = in.size();
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t p = i / out_plane;
    int64_t r = i % out_plane;
    const int64_t ox = r % out.d[2];
    r /= out.d[2];
    const int64_t oy = r % out.d[1];
    const int64_t oz = r / out.d[1];
    const int64_t ix = ox - pb.d[2], iy = oy - pb.d[1], iz = oz - pb.d[0];
    const bool inside =
        ix >= 0 && ix < in.d[2] && iy >= 0 && iy < in.d[1] && iz >= 0 && iz < in.d[0];
    dst[i] = inside ? src[p * in_plane + (iz * in.d[1] + iy) * in.d[2] + ix] : E(0);
  }
}

// ---- ConvTranspose crop ----

template <DType T>
__global__ void crop_bias_act_kernel(const typename Stor<T>::type* __restrict__ staged,
                                     typename Stor<T>::type* __restrict__ y, int64_t total,
                                     int64_t channels, Geom3 full, Geom3 out, Geom3 off,
                                     const typename Stor<T>::type* __restrict__ bias,
                                     ew::Activation act) {
  using S = Stor<T>;
  const int64_t out_plane = out.size(), full_plane = full.size();
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t p = i / out_plane;
    int64_t r = i % out_plane;
    const int64_t ox = r % out.d[2];
    r /= out.d[2];
    const int64_t oy = r % out.d[1];
    const int64_t oz = r / out.d[1];
    const int64_t sx = ox + off.d[2], sy = oy + off.d[1], sz = oz + off.d[0];
    const bool inside =
        sx >= 0 && sx < full.d[2] && sy >= 0 && sy < full.d[1] && sz >= 0 && sz < full.d[0];
    float v =
        inside ? S::load(staged[p * full_plane + (sz * full.d[1] + sy) * full.d[2] + sx]) : 0.0f;
    if (bias) v += S::load(bias[p % channels]);
    y[i] = S::store(ew::apply_activation(act, v));
  }
}

// ---- Broadcast of Gemm's C ----

__global__ void broadcast_2d_kernel(const void* c, DType c_type, int64_t cm, int64_t cn,
                                    float scale, void* dst, DType dst_type, int64_t m, int64_t n,
                                    int64_t total, ew::Activation act) {
  const int64_t mn = m * n;
  for (int64_t idx = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; idx < total;
       idx += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t e = idx % mn, i = e / n, j = e % n;
    const float v = c ? scale * load_any(c_type, c, (i % cm) * cn + (j % cn)) : 0.0f;
    store_any(dst_type, dst, idx, ew::apply_activation(act, v));
  }
}

bool library_type(DType t) {
  return t == DType::kF32 || t == DType::kF16 || t == DType::kBF16;
}

}  // namespace

Status launch_bias_activation(const void* src, DType src_type, void* y, DType y_type,
                              const void* bias, int64_t n, int64_t inner, int64_t channels,
                              const ew::Activation& act, cudaStream_t stream) {
  if (n == 0) return Status::ok();
  if (inner < 1 || channels < 1) return internal_error("bias/activation epilogue: bad geometry");
  if (src_type == y_type) {
    switch (y_type) {
      case DType::kF32:
        return bias_act<DType::kF32, DType::kF32>(src, y, bias, n, inner, channels, act, stream);
      case DType::kF16:
        return bias_act<DType::kF16, DType::kF16>(src, y, bias, n, inner, channels, act, stream);
      case DType::kBF16:
        return bias_act<DType::kBF16, DType::kBF16>(src, y, bias, n, inner, channels, act, stream);
      default:
        break;
    }
  } else if (src_type == DType::kF32) {
    switch (y_type) {
      case DType::kF16:
        return bias_act<DType::kF32, DType::kF16>(src, y, bias, n, inner, channels, act, stream);
      case DType::kBF16:
        return bias_act<DType::kF32, DType::kBF16>(src, y, bias, n, inner, channels, act, stream);
      default:
        break;
    }
  }
  return internal_error("bias/activation epilogue: unsupported dtypes " +
                        std::string(dtype_name(src_type)) + " -> " +
                        std::string(dtype_name(y_type)));
}

Status launch_pad_copy(const void* src, void* dst, size_t elem_size, int64_t planes,
                       const Geom3& in, const Geom3& out, const Geom3& pad_begin,
                       cudaStream_t stream) {
  const int64_t total = planes * out.size();
  if (total == 0) return Status::ok();
  if (elem_size == 2) {
    pad_copy_kernel<uint16_t><<<grid_for(total), kThreads, 0, stream>>>(
        static_cast<const uint16_t*>(src), static_cast<uint16_t*>(dst), total, in, out, pad_begin);
  } else if (elem_size == 4) {
    pad_copy_kernel<uint32_t><<<grid_for(total), kThreads, 0, stream>>>(
        static_cast<const uint32_t*>(src), static_cast<uint32_t*>(dst), total, in, out, pad_begin);
  } else {
    return internal_error("pad copy: element size " + std::to_string(elem_size));
  }
  AMP_CUDA_RETURN_IF_ERROR(cudaGetLastError());
  return Status::ok();
}

Status launch_crop_bias_activation(const void* staged, void* y, DType type, int64_t planes,
                                   int64_t channels, const Geom3& full, const Geom3& out,
                                   const Geom3& offset, const void* bias, const ew::Activation& act,
                                   cudaStream_t stream) {
  const int64_t total = planes * out.size();
  if (total == 0) return Status::ok();
  if (channels < 1) return internal_error("crop epilogue: bad channel count");
  switch (type) {
    case DType::kF32:
      crop_bias_act_kernel<DType::kF32><<<grid_for(total), kThreads, 0, stream>>>(
          static_cast<const float*>(staged), static_cast<float*>(y), total, channels, full, out,
          offset, static_cast<const float*>(bias), act);
      break;
    case DType::kF16:
      crop_bias_act_kernel<DType::kF16><<<grid_for(total), kThreads, 0, stream>>>(
          static_cast<const uint16_t*>(staged), static_cast<uint16_t*>(y), total, channels, full,
          out, offset, static_cast<const uint16_t*>(bias), act);
      break;
    case DType::kBF16:
      crop_bias_act_kernel<DType::kBF16><<<grid_for(total), kThreads, 0, stream>>>(
          static_cast<const uint16_t*>(staged), static_cast<uint16_t*>(y), total, channels, full,
          out, offset, static_cast<const uint16_t*>(bias), act);
      break;
    default:
      return internal_error("crop epilogue: dtype " + std::string(dtype_name(type)));
  }
  AMP_CUDA_RETURN_IF_ERROR(cudaGetLastError());
  return Status::ok();
}

Status launch_broadcast_2d(const void* c, DType c_type, int64_t cm, int64_t cn, float scale,
                           void* dst, DType dst_type, int64_t m, int64_t n, int64_t total,
                           const ew::Activation& act, cudaStream_t stream) {
  if (total == 0) return Status::ok();
  if (m < 1 || n < 1 || cm < 1 || cn < 1 || (c && !library_type(c_type)) || !library_type(dst_type))
    return internal_error("broadcast epilogue: bad geometry or dtype");
  broadcast_2d_kernel<<<grid_for(total), kThreads, 0, stream>>>(c, c_type, cm, cn, scale, dst,
                                                                dst_type, m, n, total, act);
  AMP_CUDA_RETURN_IF_ERROR(cudaGetLastError());
  return Status::ok();
}

}  // namespace amp::kernels::cuda
