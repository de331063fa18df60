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

// What each function makes of x: the exponent's argument, the result from x and e = exp(arg)
// (the functor's formula, kernels/common/elementwise_functors.h), whether the element may
// take the fast exp (`a` is its argument; false for NaN), and its value where not.
inline bool in_fast_range(float a) {
  // Bitwise, not &&: GCC 12 vectorizes neither branches nor short-circuits here.
  return (static_cast<int>(a >= kMinFast) & static_cast<int>(a <= kMaxFast)) != 0;
}

// a where pick_a, else b, by bit mask: GCC 12 makes a ?: of two floats a branch for AVX2,
// which leaves the whole loop scalar (ExpOp's select: 0.42 -> 2.1 ns an element).
inline float select(bool pick_a, float a, float b) {
  const uint32_t m = static_cast<uint32_t>(-static_cast<int32_t>(pick_a));
  return std::bit_cast<float>((std::bit_cast<uint32_t>(a) & m) | (std::bit_cast<uint32_t>(b) & ~m));
}

// `t` carries a value from arg() to finish() (GELU's 1 / (1 + z / 2), one division).
// Below -104, exp(x) < 2^-150 rounds to +0: such an element counts as fast and its result
// is masked to +0, not computed by std::exp, so that the masked scores of a softmax (-inf,
// or -3.4e38 from a padding mask) stay on the fast path.
inline constexpr float kExpIsZeroBelow = -104.0f;
struct ExpOp {
  static float arg(float x, float&) { return x; }
  static float finish(float x, float e, float) { return select(x < kExpIsZeroBelow, 0.0f, e); }
  static bool fast(float x, float a) {
    return (static_cast<int>(in_fast_range(a)) | static_cast<int>(x < kExpIsZeroBelow)) != 0;
  }
  static float slow(float x) { return std::exp(x); }
};

// 1 / (1 + exp(-x)).
struct SigmoidOp {
  static float arg(float x, float&) { return -x; }
  static float finish(float, float e, float) { return 1.0f / (1.0f + e); }
  static bool fast(float, float a) { return in_fast_range(a); }
  static float slow(float x) { return finish(x, std::exp(-x), 0.0f); }
};

// x * Sigmoid(x), as apply_activation's kSwish.
struct SwishOp {
  static float arg(float x, float&) { return -x; }
  static float finish(float x, float e, float) { return x * (1.0f / (1.0f + e)); }
  static bool fast(float, float a) { return in_fast_range(a); }
  static float slow(float x) { return finish(x, std::exp(-x), 0.0f); }
};

// x / (1 + exp(-2u)), u = sqrt(2/pi) (x + 0.044715 x^3): ew::GeluTanh.
struct GeluTanhOp {
  static float arg(float x, float&) {
    return -2.0f * (0.79788456080286535588f * (x + 0.044715f * x * x * x));
  }
  static float finish(float x, float e, float) { return x / (1.0f + e); }
  static bool fast(float, float a) { return in_fast_range(a); }
  static float slow(float x) {
    float unused;
    return finish(x, std::exp(arg(x, unused)), 0.0f);
  }
};

// 0.5 x erfc(-x / sqrt 2) (ew::GeluErf) with erfc(z), z = |x| / sqrt 2 >= 0, as
// t exp(-z^2 + P(t)), t = 1 / (1 + z / 2): Numerical Recipes' erfcc (a Chebyshev fit,
// fractional error below 1.2e-7 for every z >= 0). For x >= 0, erfc(-z) = 2 - erfc(z).
// The relative error stays small on both sides: no 1 + erf(.) cancellation for x < 0.
// The argument is at most ~0; for x >= 0 (+inf included) anything it underflows to leaves
// x (1 - erfc(z) / 2) = x; it stays above kMinFast down to x = -13, past which the result
// (below 1e-37) takes std::erfc. NaN stays NaN either way.
struct GeluErfOp {
  static float arg(float x, float& t) {
    const float z = std::fabs(x) * 0.70710678118654752f;
    t = 1.0f / (1.0f + 0.5f * z);
    float p = 0.17087277f;
    p = p * t - 0.82215223f;
    p = p * t + 1.48851587f;
    p = p * t - 1.13520398f;
    p = p * t + 0.27886807f;
    p = p * t - 0.18628806f;
    p = p * t + 0.09678418f;
    p = p * t + 0.37409196f;
    p = p * t + 1.00002368f;
    p = p * t - 1.26551223f;
    return p - z * z;
  }
  static float finish(float x, float e, float t) {
    // x (erfc(z) / 2) for x < 0, x (1 - erfc(z) / 2) otherwise.
    const float h = 0.5f * t * e;
    return x * select(x < 0.0f, h, 1.0f - h);
  }
  static bool fast(float x, float) { return !(x < -13.0f); }
  static float slow(float x) { return 0.5f * x * std::erfc(-x * 0.70710678118654752f); }
};

// tanh(x) (Cephes' tanhf): for |x| < 0.625, x + x^3 P(x^2); above, 1 - 2 / (exp(2|x|) + 1)
// with x's sign, which has no cancellation there (the result is at least 0.55). Both are
// computed and one is chosen by select(). The argument 2|x| clamps at kMaxFast, where the
// result is 1 in f32 anyway; only NaN takes std::tanh.
struct TanhOp {
  static float arg(float x, float&) { return 2.0f * std::fabs(x); }
  static float finish(float x, float e, float) {
    const float ax = std::fabs(x), z = x * x;
    float p = -5.70498872745e-3f;
    p = p * z + 2.06390887954e-2f;
    p = p * z - 5.37397155531e-2f;
    p = p * z + 1.33314422036e-1f;
    p = p * z - 3.33332819422e-1f;
    const float small = p * z * ax + ax;
    const float large = 1.0f - 2.0f / (e + 1.0f);
    const uint32_t bits = std::bit_cast<uint32_t>(select(ax < 0.625f, small, large));
    return std::bit_cast<float>(bits | (std::bit_cast<uint32_t>(x) & 0x80000000u));
  }
  static bool fast(float x, float) { return x == x; }  // NaN: std::tanh
  static float slow(float x) { return std::tanh(x); }
};

// One block in two passes: the exponent's argument clamped into the fast range (with a
// flag for elements that may not take it), then the fast exp and the finish in one loop.
// Clamping in a loop of its own: inside the exp loop, GCC 12 turns it into branches for
// AVX2 and vectorizes nothing. The bound first, so NaN clamps to kMinFast (no NaN reaches
// the float-to-int conversion). A block with flagged elements runs the same two loops (on
// their clamped arguments) and then replaces those elements by Op::slow, from a copy of x
// (y may be x): a GELU input below -13 costs one scalar element, not a scalar block.
template <class Op>
inline __attribute__((always_inline)) void map_block(const float* x, float* y, int64_t n) {
  float arg[kBlock], t[kBlock];
  int outside = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float a = Op::arg(x[i], t[i]);
    arg[i] = std::min(kMaxFast, std::max(kMinFast, a));
    outside |= static_cast<int>(Op::fast(x[i], a)) ^ 1;
  }
  if (outside == 0) {
    for (int64_t i = 0; i < n; ++i) y[i] = Op::finish(x[i], exp_in_range(arg[i]), t[i]);
    return;
  }
  float xs[kBlock];
  std::copy(x, x + n, xs);
  for (int64_t i = 0; i < n; ++i) y[i] = Op::finish(xs[i], exp_in_range(arg[i]), t[i]);
  for (int64_t i = 0; i < n; ++i)
    if (!Op::fast(xs[i], Op::arg(xs[i], t[i]))) y[i] = Op::slow(xs[i]);
}

AMP_ISA_CLONES void exp_block(const float* x, float* y, int64_t n) {
  map_block<ExpOp>(x, y, n);
}
AMP_ISA_CLONES void sigmoid_block(const float* x, float* y, int64_t n) {
  map_block<SigmoidOp>(x, y, n);
}
AMP_ISA_CLONES void swish_block(const float* x, float* y, int64_t n) {
  map_block<SwishOp>(x, y, n);
}
AMP_ISA_CLONES void gelu_tanh_block(const float* x, float* y, int64_t n) {
  map_block<GeluTanhOp>(x, y, n);
}
AMP_ISA_CLONES void gelu_erf_block(const float* x, float* y, int64_t n) {
  map_block<GeluErfOp>(x, y, n);
}
AMP_ISA_CLONES void tanh_block(const float* x, float* y, int64_t n) {
  map_block<TanhOp>(x, y, n);
}

template <void (*kBlockFn)(const float*, float*, int64_t)>
void map_blocks(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; i += kBlock) kBlockFn(x + i, y + i, std::min(kBlock, n - i));
}

}  // namespace

void exp_f32(const float* x, float* y, int64_t n) {
  map_blocks<exp_block>(x, y, n);
}
void sigmoid_f32(const float* x, float* y, int64_t n) {
  map_blocks<sigmoid_block>(x, y, n);
}
void swish_f32(const float* x, float* y, int64_t n) {
  map_blocks<swish_block>(x, y, n);
}
void gelu_tanh_f32(const float* x, float* y, int64_t n) {
  map_blocks<gelu_tanh_block>(x, y, n);
}
void gelu_erf_f32(const float* x, float* y, int64_t n) {
  map_blocks<gelu_erf_block>(x, y, n);
}
void tanh_f32(const float* x, float* y, int64_t n) {
  map_blocks<tanh_block>(x, y, n);
}

}  // namespace amp::kernels::cpu
