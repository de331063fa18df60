// Element-type conversion on the GPU: f32 <-> f16 / bf16, rounding as in common/half.h
// (round to nearest even, NaN kept). Asynchronous on `stream`.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "amp/dtype.h"
#include "runtime/common/status.h"

namespace amp::kernels::cuda {

// Converts n elements of src_type at `src` into dst_type at `dst` (device pointers).
// Supported pairs: any two of f32, f16, bf16. Other pairs are kUnsupported.
Status launch_cast(DType src_type, const void* src, DType dst_type, void* dst, size_t n,
                   cudaStream_t stream);

}  // namespace amp::kernels::cuda
