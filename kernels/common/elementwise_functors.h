// The arithmetic of every elementwise op, activation and cast, once, for every backend.
//
// The CPU loops (kernels/cpu/elementwise_*.cc) and the CUDA kernels include this header,
// so the CPU tests exercise the exact arithmetic the GPU runs (ARCHITECTURE.md,
// "Backends"). Everything here is AMP_HOST_DEVICE, uses only <cmath> functions that CUDA
// also provides (expf, erfcf, tanhf, powf, ... and their double versions), never throws,
// and has no undefined behaviour on any input: integer arithmetic wraps, integer division
// by zero yields 0 (the kernel reports it separately), float -> int casts saturate.
//
// Functors take and return the *compute* type: float for f32/f16/bf16 storage (the
// numerical contract: fp32 arithmetic, one rounding on store), double for f64, the
// integer type itself for integers. Conversions between storage and compute types are
// load() / store<T>() below.
//
//   float y = amp::ew::Sigmoid{}(x);
//   amp::ew::Activation act{amp::ew::ActivationKind::kLeakyRelu, 0.1f, 0.0f};
//   float z = amp::ew::apply_activation(act, x);  // fused epilogues (Conv, Gemm)
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "graph/ops/fused_activation.h"
#include "runtime/common/half.h"
#include "runtime/common/host_device.h"

namespace amp::ew {

// Storage of a bool tensor element: one byte, any non-zero value reads as true, writes
// are 0 or 1. A distinct type (not uint8_t) so Cast can tell bool from u8.
struct Bool {
  uint8_t v = 0;
};
static_assert(sizeof(Bool) == 1);

// ---- Storage <-> compute ---------------------------------------------------------------

template <typename T>
struct ComputeOf {
  using type = T;  // float, double, integers compute in themselves
};
template <>
struct ComputeOf<Half> {
  using type = float;
};
template <>
struct ComputeOf<BFloat16> {
  using type = float;
};
template <typename T>
using compute_t = typename ComputeOf<T>::type;

template <typename T>
AMP_HOST_DEVICE compute_t<T> load(T v) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
    return static_cast<float>(v);
  else
    return v;
}
template <typename T>
AMP_HOST_DEVICE T store(compute_t<T> v) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
    return T(v);
  else
    return v;
}

// ---- Math helpers overloaded for float and double -----------------------------------------

namespace math {
AMP_HOST_DEVICE float exp(float x) {
  return expf(x);
}
AMP_HOST_DEVICE double exp(double x) {
  return ::exp(x);
}
AMP_HOST_DEVICE float log(float x) {
  return logf(x);
}
AMP_HOST_DEVICE double log(double x) {
  return ::log(x);
}
AMP_HOST_DEVICE float sqrt(float x) {
  return sqrtf(x);
}
AMP_HOST_DEVICE double sqrt(double x) {
  return ::sqrt(x);
}
AMP_HOST_DEVICE float erf(float x) {
  return erff(x);
}
AMP_HOST_DEVICE double erf(double x) {
  return ::erf(x);
}
AMP_HOST_DEVICE float erfc(float x) {
  return erfcf(x);
}
AMP_HOST_DEVICE double erfc(double x) {
  return ::erfc(x);
}
AMP_HOST_DEVICE float tanh(float x) {
  return tanhf(x);
}
AMP_HOST_DEVICE double tanh(double x) {
  return ::tanh(x);
}
AMP_HOST_DEVICE float pow(float x, float y) {
  return powf(x, y);
}
AMP_HOST_DEVICE double pow(double x, double y) {
  return ::pow(x, y);
}
AMP_HOST_DEVICE float abs(float x) {
  return fabsf(x);
}
AMP_HOST_DEVICE double abs(double x) {
  return ::fabs(x);
}
AMP_HOST_DEVICE float expm1(float x) {
  return expm1f(x);
}
AMP_HOST_DEVICE double expm1(double x) {
  return ::expm1(x);
}
AMP_HOST_DEVICE float log1p(float x) {
  return log1pf(x);
}
AMP_HOST_DEVICE double log1p(double x) {
  return ::log1p(x);
}
AMP_HOST_DEVICE float sin(float x) {
  return sinf(x);
}
AMP_HOST_DEVICE double sin(double x) {
  return ::sin(x);
}
AMP_HOST_DEVICE float cos(float x) {
  return cosf(x);
}
AMP_HOST_DEVICE double cos(double x) {
  return ::cos(x);
}
AMP_HOST_DEVICE float floor(float x) {
  return floorf(x);
}
AMP_HOST_DEVICE double floor(double x) {
  return ::floor(x);
}
AMP_HOST_DEVICE float ceil(float x) {
  return ceilf(x);
}
AMP_HOST_DEVICE double ceil(double x) {
  return ::ceil(x);
}
// Round half to even (the default rounding mode; ONNX Round, numpy.round).
AMP_HOST_DEVICE float rint(float x) {
  return rintf(x);
}
AMP_HOST_DEVICE double rint(double x) {
  return ::rint(x);
}
}  // namespace math

// Clamp that keeps NaN (fminf/fmaxf would replace it by a bound). lo > hi gives hi,
// as numpy's clip and ONNX Clip do.
template <typename C>
AMP_HOST_DEVICE C clamp_keep_nan(C x, C lo, C hi) {
  const C y = x < lo ? lo : x;
  return y > hi ? hi : y;
}

// ---- Integer arithmetic without UB: wraps modulo 2^bits like numpy -----------------------

// An unsigned type at least as wide as C and at least 32 bits, so the arithmetic never
// promotes to (overflowing) int.
template <typename C>
using wide_unsigned_t = std::conditional_t<(sizeof(C) <= 4), uint32_t, uint64_t>;

template <typename C>
AMP_HOST_DEVICE C add(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    using W = wide_unsigned_t<C>;
    return static_cast<C>(static_cast<W>(a) + static_cast<W>(b));
  } else {
    return a + b;
  }
}
template <typename C>
AMP_HOST_DEVICE C sub(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    using W = wide_unsigned_t<C>;
    return static_cast<C>(static_cast<W>(a) - static_cast<W>(b));
  } else {
    return a - b;
  }
}
template <typename C>
AMP_HOST_DEVICE C mul(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    using W = wide_unsigned_t<C>;
    return static_cast<C>(static_cast<W>(a) * static_cast<W>(b));
  } else {
    return a * b;
  }
}
template <typename C>
AMP_HOST_DEVICE C neg(C a) {
  if constexpr (std::is_integral_v<C>) {
    using W = wide_unsigned_t<C>;
    return static_cast<C>(W{0} - static_cast<W>(a));
  } else {
    return -a;
  }
}
// Integer division truncates toward zero; x / 0 is 0 here (kernels report it as an
// error before computing) and INT_MIN / -1 wraps to INT_MIN.
template <typename C>
AMP_HOST_DEVICE C div(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<C>) {
      if (b == static_cast<C>(-1)) return neg(a);
    }
    return static_cast<C>(a / b);
  } else {
    return a / b;
  }
}

// Remainder. Integers: C's truncated remainder (fmod semantics, the dividend's sign) or,
// with python_sign, the floor remainder (Python's %, the divisor's sign); a zero divisor
// gives 0 (the kernel reports it separately) and x % -1 is 0 without overflow. Floats: C's
// fmod (ONNX requires fmod=1 for floats; the result is exact in the inputs' type).
template <typename C>
AMP_HOST_DEVICE C mod(C a, C b, bool python_sign) {
  if constexpr (std::is_integral_v<C>) {
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<C>) {
      if (b == static_cast<C>(-1)) return 0;
      const C r = static_cast<C>(a % b);
      if (python_sign && r != 0 && ((r < 0) != (b < 0))) return static_cast<C>(r + b);
      return r;
    } else {
      return static_cast<C>(a % b);
    }
  } else if constexpr (std::is_same_v<C, float>) {
    return fmodf(a, b);
  } else {
    return ::fmod(a, b);
  }
}

// Integer power by squaring, wrapping. Negative exponents give the truncated value of
// 1 / base^|e|: 1 for base 1, +-1 for base -1, else 0 (0 also for base 0, where the
// real result is infinite and no integer is right).
template <typename C>
AMP_HOST_DEVICE C ipow(C base, int64_t e) {
  if (e < 0) {
    if (base == 1) return 1;
    if constexpr (std::is_signed_v<C>) {
      if (base == -1) return (e & 1) ? static_cast<C>(-1) : static_cast<C>(1);
    }
    return 0;
  }
  using W = wide_unsigned_t<C>;
  W result = 1;
  W b = static_cast<W>(base);
  while (e != 0) {
    if (e & 1) result = static_cast<W>(result * b);
    b = static_cast<W>(b * b);
    e >>= 1;
  }
  return static_cast<C>(result);
}

// ---- Casts ------------------------------------------------------------------------------

// double -> float rounding to odd: when inexact, truncate and set the last bit. A second
// rounding of the result to a type with at least 2 fewer significant bits (f16, bf16) then
// equals one correct rounding of the double, so f64 -> f16 never double-rounds.
AMP_HOST_DEVICE float double_to_float_round_odd(double d) {
  const float f = static_cast<float>(d);
  if (static_cast<double>(f) == d || f != f) return f;
  uint32_t bits = float_bits(f);
  if (::fabs(static_cast<double>(f)) > ::fabs(d)) bits -= 1;  // toward zero (sign-magnitude)
  return bits_float(bits | 1u);
}

// Float -> integer: truncate toward zero, saturate at the type's range, NaN -> 0 (ONNX
// leaves out-of-range undefined; this is the defined, hardware-like answer).
// (std::numeric_limits in device code relies on nvcc's --expt-relaxed-constexpr, which
// kernels/CMakeLists.txt sets.)
template <typename I>
AMP_HOST_DEVICE I saturate_to_int(double v) {
  constexpr bool kSigned = std::is_signed_v<I>;
  constexpr int kBits = static_cast<int>(sizeof(I) * 8);
  // [lo, hi) are exact powers of two in double.
  constexpr double lo = kSigned ? -static_cast<double>(uint64_t{1} << (kBits - 1)) : 0.0;
  constexpr double hi = kSigned ? static_cast<double>(uint64_t{1} << (kBits - 1))
                                : static_cast<double>(uint64_t{1} << (kBits - 1)) * 2.0;
  if (v != v) return 0;
  if (v <= lo) return std::numeric_limits<I>::lowest();
  if (v >= hi) return std::numeric_limits<I>::max();
  return static_cast<I>(v);  // in range after truncation: defined
}

template <typename T>
inline constexpr bool kIsFloatStorage = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                                        std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
template <typename T>
inline constexpr bool kIsLowFloat = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// Converts one element from storage type S to storage type D with ONNX Cast semantics:
// float -> float rounds once to nearest even; float -> int as saturate_to_int; int -> int
// wraps (two's complement, like numpy astype); x -> bool is x != 0 (NaN -> true);
// bool -> x is 0 or 1.
template <typename D, typename S>
AMP_HOST_DEVICE D cast_value(S s) {
  if constexpr (std::is_same_v<S, Bool>) {
    return cast_value<D, uint8_t>(static_cast<uint8_t>(s.v != 0 ? 1 : 0));
  } else if constexpr (std::is_same_v<D, Bool>) {
    if constexpr (kIsLowFloat<S>)
      return Bool{static_cast<uint8_t>(static_cast<float>(s) != 0.0f ? 1 : 0)};
    else
      return Bool{static_cast<uint8_t>(s != 0 ? 1 : 0)};
  } else if constexpr (std::is_same_v<D, S>) {
    return s;
  } else if constexpr (kIsLowFloat<D>) {
    if constexpr (kIsLowFloat<S> || std::is_same_v<S, float>)
      return D(static_cast<float>(s));  // float holds every f16/bf16 value exactly
    else
      // double, or an integer: exact in double below 2^53 (beyond, f16 is Inf anyway and
      // bf16 may be off by one ulp of a value > 2^53).
      return D(double_to_float_round_odd(static_cast<double>(s)));
  } else if constexpr (kIsFloatStorage<D>) {  // float or double
    if constexpr (kIsLowFloat<S>)
      return static_cast<D>(static_cast<float>(s));
    else
      return static_cast<D>(s);  // int -> float and double -> float round to nearest
  } else {                       // D is an integer
    if constexpr (kIsLowFloat<S>)
      return saturate_to_int<D>(static_cast<double>(static_cast<float>(s)));
    else if constexpr (kIsFloatStorage<S>)
      return saturate_to_int<D>(static_cast<double>(s));
    else
      return static_cast<D>(s);  // integer -> integer: modular (C++20)
  }
}

// ---- Unary functors (compute type in, compute type out) ---------------------------------

struct Abs {
  template <typename C>
  AMP_HOST_DEVICE C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>)
      return math::abs(x);
    else if constexpr (std::is_signed_v<C>)
      return x < 0 ? neg(x) : x;  // INT_MIN stays INT_MIN (wraps), like numpy
    else
      return x;
  }
};
struct Neg {
  template <typename C>
  AMP_HOST_DEVICE C operator()(C x) const {
    return neg(x);
  }
};
struct Exp {
  template <typename C>
  AMP_HOST_DEVICE C operator()(C x) const {
    return math::exp(x);
  }
};
struct Log {
  template <typename C>
  AMP_HOST_DEVICE C operator()(C x) const {
    return math::log(x);
  }
};
struct Sqrt {
  template <typename C>
  AMP_HOST_DEVICE C operator()(C x) const {
    return math::sqrt(x);
  }
};
struct Reciprocal {
  template <typename C>
  AMP_HOST_DEVICE C operator()(C x) const {
    return C(1) / x;
  }
};
struct Erf {
  template <typename C>
  AMP_HOST_DEVICE C operator()(C x) const {
    return math::erf(x);
  }
};
// 1 / (1 + e^-x): exp overflows to Inf for x < -88 and the result is then exactly 0.
struct Sigmoid {
  template <typename C>
  AMP_HOST_DEVICE C operator()(C x) const {
    return C(1) / (C(1) + math::exp(-x));
  }
};
struct Tanh {
  template <typename C>
  AMP_HOST_DEVICE C operator()(C x) const {
    return math::tanh(x);
  }
};
// Comparison instead of fmaxf so NaN propagates (numpy maximum(x, 0) is NaN for NaN).
struct Relu {
  template <typename C>
  AMP_HOST_DEVICE C operator()(C x) const {
    return x < C(0) ? C(0) : x;
  }
};
struct LeakyRelu {
  float alpha = 0.01f;
  template <typename C>
  AMP_HOST_DEVICE C operator()(C x) const {
    return x < C(0) ? C(alpha) * x : x;
  }
};
struct HardSigmoid {
  float alpha = 0.2f;
  float beta = 0.5f;
  template <typename C>
  AMP_HOST_DEVICE C operator()(C x) const {
    return clamp_keep_nan(C(alpha) * x + C(beta), C(0), C(1));
  }
};
// x * HardSigmoid(x; alpha = 1/6, beta = 1/2).
struct HardSwish {
  template <typename C>
  AMP_HOST_DEVICE C operator()(C x) const {
    return x * clamp_keep_nan(x * C(1.0 / 6.0) + C(0.5), C(0), C(1));
  }
};
// 0.5 x (1 + erf(x / sqrt 2)) written as 0.5 x erfc(-x / sqrt 2): the same value, without
// the cancellation of 1 + erf(.) for negative x (the relative error stays small there).
struct GeluErf {
  template <typename C>
  AMP_HOST_DEVICE C operator()(C x) const {
    return C(0.5) * x * math::erfc(-x * C(0.70710678118654752440));
  }
};
// 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3), written as x / (1 + e^(-2u))
// (1 + tanh(u) = 2 sigmoid(2u)), again free of cancellation for negative x.
struct GeluTanh {
  template <typename C>
  AMP_HOST_DEVICE C operator()(C x) const {
    const C u = C(0.79788456080286535588) * (x + C(0.044715) * x * x * x);
    return x / (C(1) + math::exp(C(-2) * u));
  }
};
// ONNX Gelu: attribute approximate = "none" (erf) or "tanh". The branch is the same for every
// element of a tensor, so it costs nothing measurable.
struct Gelu {
  bool tanh = false;
  template <typename C>
  AMP_HOST_DEVICE C operator()(C x) const {
    return tanh ? GeluTanh{}(x) : GeluErf{}(x);
  }
};
struct Sin {
  template <typename C>
  AMP_HOST_DEVICE C operator()(C x) const {
    return math::sin(x);
  }
};
struct Cos {
  template <typename C>
  AMP_HOST_DEVICE C operator()(C x) const {
    return math::cos(x);
  }
};
struct Floor {
  template <typename C>
  AMP_HOST_DEVICE C operator()(C x) const {
    return math::floor(x);
  }
};
struct Ceil {
  template <typename C>
  AMP_HOST_DEVICE C operator()(C x) const {
    return math::ceil(x);
  }
};
struct Round {
  template <typename C>
  AMP_HOST_DEVICE C operator()(C x) const {
    return math::rint(x);
  }
};
// -1, 0 or 1; NaN stays NaN and zero keeps its sign (numpy.sign).
struct Sign {
  template <typename C>
  AMP_HOST_DEVICE C operator()(C x) const {
    if constexpr (std::is_unsigned_v<C>)
      return x > C(0) ? C(1) : C(0);
    else
      return x > C(0) ? C(1) : (x < C(0) ? C(-1) : x);
  }
};
// log(1 + e^x) without overflow: x + log1p(e^-x) for positive x.
struct Softplus {
  template <typename C>
  AMP_HOST_DEVICE C operator()(C x) const {
    return x > C(0) ? x + math::log1p(math::exp(-x)) : math::log1p(math::exp(x));
  }
};
struct Softsign {
  template <typename C>
  AMP_HOST_DEVICE C operator()(C x) const {
    return x / (C(1) + math::abs(x));
  }
};
// x tanh(softplus(x)).
struct Mish {
  template <typename C>
  AMP_HOST_DEVICE C operator()(C x) const {
    return x * math::tanh(Softplus{}(x));
  }
};
struct Elu {
  float alpha = 1.0f;
  template <typename C>
  AMP_HOST_DEVICE C operator()(C x) const {
    return x < C(0) ? C(alpha) * math::expm1(x) : x;
  }
};
struct Selu {
  float alpha = 1.67326319217681884765625f;
  float gamma = 1.05070102214813232421875f;
  template <typename C>
  AMP_HOST_DEVICE C operator()(C x) const {
    return x > C(0) ? C(gamma) * x : C(gamma) * C(alpha) * math::expm1(x);
  }
};
// max(0, x) + min(0, alpha (e^(x / alpha) - 1)).
struct Celu {
  float alpha = 1.0f;
  template <typename C>
  AMP_HOST_DEVICE C operator()(C x) const {
    return x > C(0) ? x : C(alpha) * math::expm1(x / C(alpha));
  }
};
struct ThresholdedRelu {
  float alpha = 1.0f;
  template <typename C>
  AMP_HOST_DEVICE C operator()(C x) const {
    return x > C(alpha) ? x : C(0);
  }
};
// x + bias below -lambd, x - bias above lambd, 0 between (any numeric type).
struct Shrink {
  float lambd = 0.5f;
  float bias = 0.0f;
  template <typename C>
  AMP_HOST_DEVICE C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>) {
      return x < C(-lambd) ? x + C(bias) : (x > C(lambd) ? x - C(bias) : C(0));
    } else {
      // Compared in double as ONNX's reference does; the result wraps like integer math.
      const double f = static_cast<double>(x);
      const double y = f < -lambd ? f + bias : (f > lambd ? f - bias : 0.0);
      return static_cast<C>(static_cast<int64_t>(y));
    }
  }
};

// x times a constant (Mean's final division by the input count).
struct Scale {
  double factor = 1.0;
  template <typename C>
  AMP_HOST_DEVICE C operator()(C x) const {
    return x * static_cast<C>(factor);
  }
};

// ---- Predicates (float in, bool out) --------------------------------------------------------

struct IsNaN {
  template <typename C>
  AMP_HOST_DEVICE bool operator()(C x) const {
    return x != x;
  }
};
// x - x is NaN exactly for infinities (and NaN), which needs no <limits> on the device.
struct IsInf {
  bool detect_negative = true;
  bool detect_positive = true;
  template <typename C>
  AMP_HOST_DEVICE bool operator()(C x) const {
    const C d = x - x;
    return x == x && d != d && (x > C(0) ? detect_positive : detect_negative);
  }
};

template <typename C>
struct Clip {
  C lo;
  C hi;
  AMP_HOST_DEVICE C operator()(C x) const { return clamp_keep_nan(x, lo, hi); }
};

// ---- Binary functors ----------------------------------------------------------------------

struct Add {
  template <typename C>
  AMP_HOST_DEVICE C operator()(C a, C b) const {
    return add(a, b);
  }
};
struct Sub {
  template <typename C>
  AMP_HOST_DEVICE C operator()(C a, C b) const {
    return sub(a, b);
  }
};
struct Mul {
  template <typename C>
  AMP_HOST_DEVICE C operator()(C a, C b) const {
    return mul(a, b);
  }
};
struct Div {
  template <typename C>
  AMP_HOST_DEVICE C operator()(C a, C b) const {
    return div(a, b);
  }
};
// Float base: powf / pow. Integer base with integer exponent: ipow. Integer base with a
// float exponent: pow in double, then saturate_to_int (what ONNX Runtime does).
struct Pow {
  template <typename C, typename E>
  AMP_HOST_DEVICE C operator()(C a, E e) const {
    if constexpr (std::is_floating_point_v<C>)
      return math::pow(a, static_cast<C>(e));
    else if constexpr (std::is_integral_v<E>)
      return ipow(a, static_cast<int64_t>(e));
    else
      return saturate_to_int<C>(math::pow(static_cast<double>(a), static_cast<double>(e)));
  }
};
// NaN in either input gives NaN (numpy maximum / minimum).
struct Max {
  template <typename C>
  AMP_HOST_DEVICE C operator()(C a, C b) const {
    return a != a ? a : (b != b ? b : (a < b ? b : a));
  }
};
struct Min {
  template <typename C>
  AMP_HOST_DEVICE C operator()(C a, C b) const {
    return a != a ? a : (b != b ? b : (b < a ? b : a));
  }
};
// ONNX Mod: fmod = 0 takes the divisor's sign (integers only), fmod = 1 the dividend's.
// x where x >= 0, slope * x elsewhere; slope broadcasts to x (unidirectionally).
struct PRelu {
  template <typename C>
  AMP_HOST_DEVICE C operator()(C x, C slope) const {
    return x < C(0) ? slope * x : x;
  }
};
struct Mod {
  bool fmod = false;
  template <typename C>
  AMP_HOST_DEVICE C operator()(C a, C b) const {
    return mod(a, b, !fmod);
  }
};
struct Equal {
  template <typename C>
  AMP_HOST_DEVICE bool operator()(C a, C b) const {
    return a == b;
  }
  AMP_HOST_DEVICE bool operator()(Bool a, Bool b) const { return (a.v != 0) == (b.v != 0); }
};
struct Greater {
  template <typename C>
  AMP_HOST_DEVICE bool operator()(C a, C b) const {
    return a > b;
  }
};
struct Less {
  template <typename C>
  AMP_HOST_DEVICE bool operator()(C a, C b) const {
    return a < b;
  }
};
struct GreaterOrEqual {
  template <typename C>
  AMP_HOST_DEVICE bool operator()(C a, C b) const {
    return a >= b;
  }
};
struct LessOrEqual {
  template <typename C>
  AMP_HOST_DEVICE bool operator()(C a, C b) const {
    return a <= b;
  }
};
struct And {
  AMP_HOST_DEVICE bool operator()(Bool a, Bool b) const { return (a.v != 0) && (b.v != 0); }
};
struct Or {
  AMP_HOST_DEVICE bool operator()(Bool a, Bool b) const { return (a.v != 0) || (b.v != 0); }
};
struct Xor {
  AMP_HOST_DEVICE bool operator()(Bool a, Bool b) const { return (a.v != 0) != (b.v != 0); }
};

// ---- Bool functors ----------------------------------------------------------------------

struct Not {
  AMP_HOST_DEVICE Bool operator()(Bool x) const { return Bool{static_cast<uint8_t>(x.v == 0)}; }
};

// ---- Fused activations ----------------------------------------------------------------------

// The activations a Conv / Gemm / MatMul epilogue may apply (graph/ops/fused_activation.h).
// One switch per element; fine for an epilogue, the elementwise kernels use the functors
// directly.
using ActivationKind = graph::ActivationKind;
using Activation = graph::FusedActivation;

AMP_HOST_DEVICE float apply_activation(const Activation& a, float x) {
  switch (a.kind) {
    case ActivationKind::kNone:
      return x;
    case ActivationKind::kRelu:
      return Relu{}(x);
    case ActivationKind::kLeakyRelu:
      return LeakyRelu{a.alpha}(x);
    case ActivationKind::kSigmoid:
      return Sigmoid{}(x);
    case ActivationKind::kTanh:
      return Tanh{}(x);
    case ActivationKind::kHardSigmoid:
      return HardSigmoid{a.alpha, a.beta}(x);
    case ActivationKind::kHardSwish:
      return HardSwish{}(x);
    case ActivationKind::kGeluErf:
      return GeluErf{}(x);
    case ActivationKind::kGeluTanh:
      return GeluTanh{}(x);
    case ActivationKind::kSwish:
      return x * Sigmoid{}(x);
    case ActivationKind::kClip:
      return Clip<float>{a.alpha, a.beta}(x);
  }
  return x;
}

}  // namespace amp::ew
