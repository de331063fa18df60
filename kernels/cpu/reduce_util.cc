#include "kernels/cpu/reduce_util.h"

namespace amp::kernels::cpu {

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
