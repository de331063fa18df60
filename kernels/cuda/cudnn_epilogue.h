// Small elementwise kernels around the cuDNN / cuBLASLt calls (cudnn_epilogue.cu): bias
// and fused activation after a convolution or GEMM, zero padding for asymmetric conv pads,
// the crop of a staged ConvTranspose output, and broadcasting Gemm's C. All arithmetic is
// fp32 with the shared ew::apply_activation (common/elementwise_functors.h), so the
// epilogue computes exactly what the CPU's oneDNN post-ops are checked against; values
// are rounded once, when stored in the output dtype.
//
// dtypes: f32, f16, bf16 for every tensor argument (each may differ: e.g. an f32 staging
// buffer written into an f16 output). Launches are asynchronous on `stream`.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "amp/dtype.h"
#include "kernels/common/elementwise_functors.h"
#include "runtime/common/host_device.h"
#include "runtime/common/status.h"

namespace amp::kernels::cuda {

// y[i] = act(src[i] + bias[(i / inner) % channels]) for i < n; bias (in y's dtype) may be
// nullptr (0). src may equal y (same dtype): in place. src_type is y_type or f32.
Status launch_bias_activation(const void* src, DType src_type, void* y, DType y_type,
                              const void* bias, int64_t n, int64_t inner, int64_t channels,
                              const ew::Activation& act, cudaStream_t stream);

// Spatial geometry right-aligned into 3 axes (leading axes of size 1 for 1-D / 2-D).
struct Geom3 {
  int64_t d[3] = {1, 1, 1};
  AMP_HOST_DEVICE int64_t size() const { return d[0] * d[1] * d[2]; }
};

// dst [planes, out] = src [planes, in] placed at offset `pad_begin` on each axis, zeros
// elsewhere (out = in + pad_begin + pad_end). Element size 2 or 4 bytes.
Status launch_pad_copy(const void* src, void* dst, size_t elem_size, int64_t planes,
                       const Geom3& in, const Geom3& out, const Geom3& pad_begin,
                       cudaStream_t stream);

// y [planes, out] = act(staged[planes, full][o + offset] + bias[plane % channels]), where a
// position outside [0, full) reads 0 (offset may be negative). staged and y share `type`.
Status launch_crop_bias_activation(const void* staged, void* y, DType type, int64_t planes,
                                   int64_t channels, const Geom3& full, const Geom3& out,
                                   const Geom3& offset, const void* bias, const ew::Activation& act,
                                   cudaStream_t stream);

// dst[idx] = act(scale * c[i % cm][j % cn]) over idx < total, with (i, j) the position of
// idx within an [m, n] matrix (the pattern repeats every m * n elements). c == nullptr
// reads 0. Gemm's C as a bias vector (m = 1) or matrix, and Gemm/MatMul fills when K == 0.
Status launch_broadcast_2d(const void* c, DType c_type, int64_t cm, int64_t cn, float scale,
                           void* dst, DType dst_type, int64_t m, int64_t n, int64_t total,
                           const ew::Activation& act, cudaStream_t stream);

}  // namespace amp::kernels::cuda
