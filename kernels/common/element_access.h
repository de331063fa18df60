// Elements of tensors whose dtype is known only at run time (index and parameter inputs:
// axes, starts, pads, sizes, roi, scales, normalization parameters), read where they live:
// on the host in prepare() or a CPU run(), on the device in a CUDA kernel (AMP_HOST_DEVICE).
#pragma once

#include <cstdint>

#include "amp/dtype.h"
#include "runtime/common/half.h"
#include "runtime/common/host_device.h"

namespace amp::kernels {

// Element i of an index tensor (i32 or i64) as int64.
AMP_HOST_DEVICE int64_t load_index(const void* p, DType t, int64_t i) {
  return t == DType::kI32 ? static_cast<int64_t>(static_cast<const int32_t*>(p)[i])
                          : static_cast<const int64_t*>(p)[i];
}

// Element i of a tensor of any dtype widened to double (bool as 0 or 1).
AMP_HOST_DEVICE double load_as_double(const void* data, DType dtype, int64_t i) {
  switch (dtype) {
    case DType::kF32:
      return static_cast<const float*>(data)[i];
    case DType::kF16:
      return half_bits_to_float(static_cast<const uint16_t*>(data)[i]);
    case DType::kBF16:
      return bf16_bits_to_float(static_cast<const uint16_t*>(data)[i]);
    case DType::kF64:
      return static_cast<const double*>(data)[i];
    case DType::kU8:
      return static_cast<const uint8_t*>(data)[i];
    case DType::kI8:
      return static_cast<const int8_t*>(data)[i];
    case DType::kI16:
      return static_cast<const int16_t*>(data)[i];
    case DType::kI32:
      return static_cast<const int32_t*>(data)[i];
    case DType::kI64:
      return static_cast<double>(static_cast<const int64_t*>(data)[i]);
    case DType::kBool:
      return static_cast<const uint8_t*>(data)[i] != 0 ? 1.0 : 0.0;
    case DType::kUndefined:
      break;
  }
  return 0.0;
}

// v clamped to [lo, hi] (lo <= hi).
AMP_HOST_DEVICE int64_t clamp_index(int64_t v, int64_t lo, int64_t hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

}  // namespace amp::kernels
