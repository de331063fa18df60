#include "kernels/cpu/vector_exp.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "kernels/cpu/cpu_common.h"

namespace amp::kernels::cpu {
namespace {

// Elements per block: the fast results are staged here, then checked and copied.
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

// One block: the fast results for every element, then std::exp where x is outside the
// fast range (or NaN). Returns nothing; writes y (which may be x).
AMP_ISA_CLONES void exp_block(const float* x, float* y, int64_t n) {
  float fast[kBlock];
  int outside = 0;
  // Clamping in a loop of its own: inside the exp loop, GCC 12 turns it into branches for
  // AVX2 and vectorizes nothing. The bound first, so NaN clamps to kMinFast (no NaN reaches
  // the float-to-int conversion). Bitwise, not &&, for the same reason. False for NaN.
  for (int64_t i = 0; i < n; ++i) {
    fast[i] = std::min(kMaxFast, std::max(kMinFast, x[i]));
    outside |= (static_cast<int>(x[i] >= kMinFast) & static_cast<int>(x[i] <= kMaxFast)) ^ 1;
  }
  for (int64_t i = 0; i < n; ++i) fast[i] = exp_in_range(fast[i]);
  if (outside == 0) {
    for (int64_t i = 0; i < n; ++i) y[i] = fast[i];
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    y[i] = x[i] >= kMinFast && x[i] <= kMaxFast ? fast[i] : std::exp(x[i]);
}

// In y (which may be x): -x, then exp of it in place, then 1 / (1 + that).
AMP_ISA_CLONES void sigmoid_block(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = -x[i];
  exp_block(y, y, n);
  for (int64_t i = 0; i < n; ++i) y[i] = 1.0f / (1.0f + y[i]);
}

}  // namespace

void exp_f32(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; i += kBlock) exp_block(x + i, y + i, std::min(kBlock, n - i));
}

void sigmoid_f32(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; i += kBlock) sigmoid_block(x + i, y + i, std::min(kBlock, n - i));
}

}  // namespace amp::kernels::cpu
