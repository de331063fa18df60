#include "common/half.h"

#include <cstddef>

namespace amp {

// Plain loops written so GCC auto-vectorizes them; issue 4 adds F16C/AVX-512 paths.
void convert_f32_to_f16(const float* src, uint16_t* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = float_to_half_bits(src[i]);
}
void convert_f16_to_f32(const uint16_t* src, float* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = half_bits_to_float(src[i]);
}
void convert_f32_to_bf16(const float* src, uint16_t* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = float_to_bf16_bits(src[i]);
}
void convert_bf16_to_f32(const uint16_t* src, float* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = bf16_bits_to_float(src[i]);
}

}  // namespace amp
