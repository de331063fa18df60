// Helpers shared by the CPU kernels: storage-type loads/stores through fp32, a parallel
// loop honouring the run's thread count, and broadcasting index arithmetic.
#pragma once

#include <omp.h>

#include <cstdint>
#include <type_traits>
#include <vector>

#include "amp/dtype.h"
#include "kernels/common/kernel_checks.h"
#include "runtime/common/half.h"

// AMP_ISA_CLONES on a hot loop: GCC compiles it for AVX-512 (x86-64-v4), AVX2 + FMA + F16C
// (x86-64-v3) and the baseline, and the loader picks the best one this CPU has (function
// multiversioning through an ifunc), so one binary vectorizes 16 or 8 floats a step where
// the CPU can. Clang (the fuzzing build) spells the targets differently: baseline only.
// AMP_CPU_ISA_CAP_AVX2 (CMake option of that name) leaves the AVX-512 clone out, so that a
// measurement on an AVX-512 machine sees what an AVX2-only CPU would run. AMP_NO_ISA_CLONES
// (the ThreadSanitizer build) compiles the baseline only: ifunc resolvers run before TSan's
// runtime is initialized, and an instrumented one crashes the program at load.
#if defined(AMP_NO_ISA_CLONES)
#define AMP_ISA_CLONES
#elif defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && \
    defined(AMP_CPU_ISA_CAP_AVX2)
#define AMP_ISA_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#elif defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define AMP_ISA_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define AMP_ISA_CLONES
#endif

// AMP_AVX2_FMA on code written with AVX2 / FMA intrinsics (the packed GEMM, the Winograd
// convolution): compiled for that ISA only; callers check the CPU has it before calling.
#define AMP_AVX2_FMA __attribute__((target("avx2,fma")))
// AMP_AVX512F likewise for AVX-512 intrinsics (gemm_strip_avx512.h: cpu_has_avx512f()).
#define AMP_AVX512F __attribute__((target("avx512f")))

namespace amp::kernels::cpu {

// The float <-> low-float pairs the vectorized converters of common/half.h serve (bit-equal
// to the scalar conversions, a row at a time instead of an element).
template <typename S, typename D>
inline constexpr bool kBulkCast = (std::is_same_v<S, float> &&
                                   (std::is_same_v<D, Half> || std::is_same_v<D, BFloat16>)) ||
                                  (std::is_same_v<D, float> &&
                                   (std::is_same_v<S, Half> || std::is_same_v<S, BFloat16>));

template <typename S, typename D>
void bulk_cast(const S* in, D* out, size_t n) {
  static_assert(kBulkCast<S, D>);
  if constexpr (std::is_same_v<D, Half>)
    convert_f32_to_f16(in, reinterpret_cast<uint16_t*>(out), n);
  else if constexpr (std::is_same_v<D, BFloat16>)
    convert_f32_to_bf16(in, reinterpret_cast<uint16_t*>(out), n);
  else if constexpr (std::is_same_v<S, Half>)
    convert_f16_to_f32(reinterpret_cast<const uint16_t*>(in), out, n);
  else
    convert_bf16_to_f32(reinterpret_cast<const uint16_t*>(in), out, n);
}

// Storage type -> fp32 and back, rounding once (nearest even) on store.
inline float load_f32(float v) {
  return v;
}
inline float load_f32(Half v) {
  return static_cast<float>(v);
}
inline float load_f32(BFloat16 v) {
  return static_cast<float>(v);
}
inline float load_f32(double v) {
  return static_cast<float>(v);
}
template <typename T>
inline T store_as(float v);
template <>
inline float store_as<float>(float v) {
  return v;
}
template <>
inline Half store_as<Half>(float v) {
  return Half(v);
}
template <>
inline BFloat16 store_as<BFloat16>(float v) {
  return BFloat16(v);
}

// Runs fn(begin, end) over [0, n) split into contiguous chunks on up to `threads` threads.
// Small loops run inline: thread start-up costs more than it saves below ~32K elements.
template <typename Fn>
void parallel_for(int64_t n, int threads, Fn&& fn, int64_t grain = 32768) {
  if (threads <= 1 || n <= grain) {
    fn(int64_t{0}, n);
    return;
  }
  int64_t chunks = std::min<int64_t>(threads, (n + grain - 1) / grain);
#pragma omp parallel for num_threads(static_cast <int>(chunks)) schedule(static)
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t begin = n * c / chunks;
    const int64_t end = n * (c + 1) / chunks;
    fn(begin, end);
  }
}

}  // namespace amp::kernels::cpu
