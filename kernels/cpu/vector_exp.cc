#include "kernels/cpu/vector_exp.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "kernels/cpu/cpu_common.h"

namespace amp::kernels::cpu {
namespace {

// Elements per block: staged in a buffer on the stack, in L1.
constexpr int64_t kBlock = 256;

// exp(x) for x in [kMinFast, kMaxFast] (the caller clamps into it).
inline float exp_in_range(float x) {
  // n = round(x log2 e): adding 1.5 * 2^23 rounds to an integer in the float's low bits.
  const float shifter = 12582912.0f;
  const float n = (x * 1.44269504088896341f + shifter) - shifter;
  // r = x - n ln 2, ln 2 = 0.693359375 - 2.12194440e-4 (the first part exact in few bits).
  float r = x - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float er = p * r * r + r + 1.0f;
  // 2^n from its exponent bits: n is in [-126, 127] here, a normal float.
  const float scale = std::bit_cast<float>((static_cast<int32_t>(n) + 127) << 23);
  return er * scale;
}

// What each function makes of x and e = exp(x) (kExp) or exp(-x) (the others).
enum class Finish { kExp, kSigmoid };

template <Finish kF>
inline float finish(float e) {
  if constexpr (kF == Finish::kExp) return e;
  return 1.0f / (1.0f + e);  // the functor's formula
}

// One block in two passes: the exponent's argument clamped into the fast range (with a
// flag for elements outside it or NaN), then the fast exp and the finish in one loop. A
// block with an element outside takes std::exp for those (the same formula for the rest).
// Clamping in a loop of its own: inside the exp loop, GCC 12 turns it into branches for
// AVX2 and vectorizes nothing. The bound first, so NaN clamps to kMinFast (no NaN reaches
// the float-to-int conversion). Bitwise, not &&, for the same reason. False for NaN.
// y may be x.
template <Finish kF>
inline __attribute__((always_inline)) void map_block(const float* x, float* y, int64_t n) {
  float arg[kBlock];
  int outside = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float a = kF == Finish::kExp ? x[i] : -x[i];
    arg[i] = std::min(kMaxFast, std::max(kMinFast, a));
    outside |= (static_cast<int>(a >= kMinFast) & static_cast<int>(a <= kMaxFast)) ^ 1;
  }
  if (outside == 0) {
    for (int64_t i = 0; i < n; ++i) y[i] = finish<kF>(exp_in_range(arg[i]));
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    const float a = kF == Finish::kExp ? x[i] : -x[i];
    y[i] = finish<kF>(a >= kMinFast && a <= kMaxFast ? exp_in_range(a) : std::exp(a));
  }
}

AMP_ISA_CLONES void exp_block(const float* x, float* y, int64_t n) {
  map_block<Finish::kExp>(x, y, n);
}
AMP_ISA_CLONES void sigmoid_block(const float* x, float* y, int64_t n) {
  map_block<Finish::kSigmoid>(x, y, n);
}

}  // namespace

void exp_f32(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; i += kBlock) exp_block(x + i, y + i, std::min(kBlock, n - i));
}

void sigmoid_f32(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; i += kBlock) sigmoid_block(x + i, y + i, std::min(kBlock, n - i));
}

}  // namespace amp::kernels::cpu
