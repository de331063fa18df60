// AMPRT's own pooling kernels (pool_kernels.cu), for the MaxPool / AveragePool
// configurations cuDNN's pooling does not express the ONNX way (cudnn_pool.cc says which):
// dilations, asymmetric or ceil_mode-extended windows, the Indices output, bf16 and 8-bit
// inputs. One thread per output element; the window loops and the counting rules are
// those of kernels/cpu/dnnl_pool.cc, line for line.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "amp/dtype.h"
#include "kernels/common/pool_geometry.h"
#include "runtime/common/status.h"

namespace amp::kernels::cuda {

// MaxPool over f32/f16/bf16/i8/u8; indices (i64, flattened into X as ONNX defines) may be
// nullptr.
Status launch_max_pool(DType type, const PoolGeometry& g, const void* x, void* y, int64_t* indices,
                       cudaStream_t stream);
// AveragePool over f32/f16/bf16, fp32 sums; include_pad = count_include_pad.
Status launch_avg_pool(DType type, const PoolGeometry& g, bool include_pad, const void* x, void* y,
                       cudaStream_t stream);

}  // namespace amp::kernels::cuda
