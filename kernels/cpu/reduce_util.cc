#include "kernels/cpu/reduce_util.h"

namespace amp::kernels::cpu {

double load_as_double(const void* data, DType dtype, int64_t i) {
  switch (dtype) {
    case DType::kF32:
      return static_cast<const float*>(data)[i];
    case DType::kF16:
      return static_cast<float>(static_cast<const Half*>(data)[i]);
    case DType::kBF16:
      return static_cast<float>(static_cast<const BFloat16*>(data)[i]);
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
      return static_cast<const uint8_t*>(data)[i] != 0;
    case DType::kUndefined:
      return 0.0;
  }
  return 0.0;
}

void store_from_double(void* data, DType dtype, int64_t i, double v) {
  switch (dtype) {
    case DType::kF32:
      static_cast<float*>(data)[i] = static_cast<float>(v);
      return;
    case DType::kF16:
      static_cast<Half*>(data)[i] = Half(static_cast<float>(v));
      return;
    case DType::kBF16:
      static_cast<BFloat16*>(data)[i] = BFloat16(static_cast<float>(v));
      return;
    case DType::kF64:
      static_cast<double*>(data)[i] = v;
      return;
    // Integer outputs never reach here: prepare() admits float statistics only.
    case DType::kU8:
    case DType::kI8:
    case DType::kI16:
    case DType::kI32:
    case DType::kI64:
    case DType::kBool:
    case DType::kUndefined:
      return;
  }
}

}  // namespace amp::kernels::cpu
