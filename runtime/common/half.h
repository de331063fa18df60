// IEEE binary16 (fp16) and bfloat16 conversions, bit-exact and branch-light, usable on
// host and device (AMP_HOST_DEVICE).
//
// float -> fp16 / bf16 rounds to nearest, ties to even; overflow goes to +-Inf (as the
// hardware conversions do); NaN stays NaN (quiet, sign kept); subnormals are handled.
// fp16 / bf16 -> float is exact.
//
// Storage types `Half` and `BFloat16` are plain 16-bit wrappers so tensors of them are
// trivially copyable; arithmetic is always done after converting to float (the
// numerical contract in ARCHITECTURE.md).
#pragma once

#include <cstdint>
#include <cstring>

#include "runtime/common/host_device.h"

namespace amp {

AMP_HOST_DEVICE uint32_t float_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
#endif
}
AMP_HOST_DEVICE float bits_float(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, 4);
  return f;
#endif
}

AMP_HOST_DEVICE uint16_t float_to_half_bits(float f) {
  const uint32_t x = float_bits(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // Inf or NaN
    const uint32_t mant = abs & 0x007fffffu;
    return static_cast<uint16_t>(sign | 0x7c00u | (mant ? (0x0200u | (mant >> 13)) : 0u));
  }
  if (abs >= 0x477ff000u) {  // rounds to >= 65520: overflow to Inf
    return static_cast<uint16_t>(sign | 0x7c00u);
  }
  if (abs < 0x38800000u) {  // below the smallest normal half (2^-14): subnormal or zero
    if (abs < 0x33000000u) return static_cast<uint16_t>(sign);  // < 2^-25 rounds to 0
    // value = mant * 2^(e-150) with implicit bit; half subnormal unit is 2^-24.
    const uint32_t e = abs >> 23;
    const uint32_t mant = (abs & 0x007fffffu) | 0x00800000u;
    const uint32_t shift = 126u - e;  // 2^-24 unit: (e - 150) + 24 = e - 126 → shift right
    const uint32_t shifted = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1u);
    const uint32_t half_way = 1u << (shift - 1u);
    uint32_t r = shifted;
    if (rem > half_way || (rem == half_way && (shifted & 1u))) ++r;
    return static_cast<uint16_t>(sign | r);
  }
  // Normal: rebias exponent (127 -> 15) and round the 13 dropped mantissa bits.
  uint32_t h = ((abs - 0x38000000u) >> 13);
  const uint32_t rem = abs & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // may carry into exponent: ok
  return static_cast<uint16_t>(sign | h);
}

AMP_HOST_DEVICE float half_bits_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  if (exp == 0x1fu) return bits_float(sign | 0x7f800000u | (mant << 13));  // Inf / NaN
  if (exp != 0) return bits_float(sign | ((exp + 112u) << 23) | (mant << 13));
  if (mant == 0) return bits_float(sign);
  // Subnormal: mant * 2^-24, exact in float.
  const float v = static_cast<float>(mant) * 5.9604644775390625e-08f;
  return sign ? -v : v;
}

AMP_HOST_DEVICE uint16_t float_to_bf16_bits(float f) {
  const uint32_t x = float_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) {  // NaN: keep sign, force quiet bit
    return static_cast<uint16_t>((x >> 16) | 0x0040u);
  }
  // Round to nearest even on the low 16 bits; overflow naturally carries to Inf.
  const uint32_t rounding_bias = 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>((x + rounding_bias) >> 16);
}

AMP_HOST_DEVICE float bf16_bits_to_float(uint16_t b) {
  return bits_float(static_cast<uint32_t>(b) << 16);
}

struct Half {
  uint16_t bits = 0;
  Half() = default;
  AMP_HOST_DEVICE explicit Half(float f) : bits(float_to_half_bits(f)) {}
  AMP_HOST_DEVICE explicit operator float() const { return half_bits_to_float(bits); }
  static AMP_HOST_DEVICE Half from_bits(uint16_t b) {
    Half h;
    h.bits = b;
    return h;
  }
};

struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  AMP_HOST_DEVICE explicit BFloat16(float f) : bits(float_to_bf16_bits(f)) {}
  AMP_HOST_DEVICE explicit operator float() const { return bf16_bits_to_float(bits); }
  static AMP_HOST_DEVICE BFloat16 from_bits(uint16_t b) {
    BFloat16 h;
    h.bits = b;
    return h;
  }
};

static_assert(sizeof(Half) == 2 && sizeof(BFloat16) == 2);

// Largest finite values, used by the AMP planner's range checks.
constexpr float kHalfMax = 65504.0f;
constexpr float kBFloat16Max = 3.38953139e38f;

// The CPU converts f16 <-> f32 in hardware (F16C, with AVX).
bool cpu_has_f16c();

// Bulk conversions (vectorized where the CPU allows; see half.cc).
void convert_f32_to_f16(const float* src, uint16_t* dst, size_t n);
void convert_f16_to_f32(const uint16_t* src, float* dst, size_t n);
void convert_f32_to_bf16(const float* src, uint16_t* dst, size_t n);
void convert_bf16_to_f32(const uint16_t* src, float* dst, size_t n);

}  // namespace amp
