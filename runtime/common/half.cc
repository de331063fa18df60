#include "runtime/common/half.h"

#include <cstddef>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define AMP_X86_DISPATCH 1
#endif

namespace amp {

#if AMP_X86_DISPATCH
namespace {

// F16C: 8 conversions per instruction, round to nearest even, Inf/NaN kept; bit-identical
// to the scalar code (tests/common/half_test.cc compares them over 2M random floats).
__attribute__((target("avx,f16c"))) void f32_to_f16_f16c(const float* src, uint16_t* dst,
                                                         size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h =
        _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), h);
  }
  for (; i < n; ++i) dst[i] = float_to_half_bits(src[i]);
}

__attribute__((target("avx,f16c"))) void f16_to_f32_f16c(const uint16_t* src, float* dst,
                                                         size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(dst + i,
                     _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i))));
  for (; i < n; ++i) dst[i] = half_bits_to_float(src[i]);
}

}  // namespace
#endif

// cpuid rather than __builtin_cpu_supports("f16c"), which clang 14 (the fuzz build,
// AMP_FUZZ) rejects as an unknown feature.
bool cpu_has_f16c() {
#if AMP_X86_DISPATCH
  static const bool yes = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
    return (ecx & bit_F16C) != 0 && __builtin_cpu_supports("avx");
  }();
  return yes;
#else
  return false;
#endif
}

void convert_f32_to_f16(const float* src, uint16_t* dst, size_t n) {
#if AMP_X86_DISPATCH
  if (cpu_has_f16c()) return f32_to_f16_f16c(src, dst, n);
#endif
  for (size_t i = 0; i < n; ++i) dst[i] = float_to_half_bits(src[i]);
}

void convert_f16_to_f32(const uint16_t* src, float* dst, size_t n) {
#if AMP_X86_DISPATCH
  if (cpu_has_f16c()) return f16_to_f32_f16c(src, dst, n);
#endif
  for (size_t i = 0; i < n; ++i) dst[i] = half_bits_to_float(src[i]);
}

// bf16 is integer arithmetic on the float bits; GCC vectorizes these loops, and the clones
// let the AVX-512 version run where the CPU has it (the default build targets baseline x86-64;
// AMP_CPU_ISA_CAP_AVX2 leaves it out, as kernels/cpu/cpu_common.h's AMP_ISA_CLONES does).
#if AMP_X86_DISPATCH && defined(AMP_CPU_ISA_CAP_AVX2)
#define AMP_BF16_CLONES __attribute__((target_clones("avx2", "default")))
#elif AMP_X86_DISPATCH
#define AMP_BF16_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define AMP_BF16_CLONES
#endif
AMP_BF16_CLONES
void convert_f32_to_bf16(const float* src, uint16_t* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = float_to_bf16_bits(src[i]);
}

AMP_BF16_CLONES
void convert_bf16_to_f32(const uint16_t* src, float* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = bf16_bits_to_float(src[i]);
}

}  // namespace amp
