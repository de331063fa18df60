// Exhaustive checks of the fp16 / bf16 conversions against the hardware (F16C) where
// available and against exact arithmetic otherwise.
#include "runtime/common/half.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace amp {
namespace {

bool is_nan_half(uint16_t h) {
  return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0;
}

TEST(Half, AllHalfValuesRoundTripThroughFloat) {
  for (uint32_t b = 0; b < 65536; ++b) {
    const uint16_t h = static_cast<uint16_t>(b);
    const float f = half_bits_to_float(h);
    if (is_nan_half(h)) {
      EXPECT_TRUE(std::isnan(f)) << b;
      EXPECT_TRUE(is_nan_half(float_to_half_bits(f))) << b;
      EXPECT_EQ(std::signbit(f), (h & 0x8000u) != 0) << b;
      continue;
    }
    EXPECT_EQ(float_to_half_bits(f), h) << "bits " << b << " value " << f;
  }
}

// Exact value of a half from its fields, computed independently of the code under test.
double half_reference_value(uint16_t h) {
  const int sign = (h & 0x8000) ? -1 : 1;
  const int exp = (h >> 10) & 0x1f;
  const int mant = h & 0x3ff;
  if (exp == 0x1f) return mant ? NAN : sign * INFINITY;
  if (exp == 0) return sign * std::ldexp(static_cast<double>(mant), -24);
  return sign * std::ldexp(static_cast<double>(mant + 1024), exp - 25);
}

TEST(Half, AllHalfValuesDecodeExactly) {
  for (uint32_t b = 0; b < 65536; ++b) {
    const uint16_t h = static_cast<uint16_t>(b);
    const double ref = half_reference_value(h);
    const float f = half_bits_to_float(h);
    if (std::isnan(ref)) {
      EXPECT_TRUE(std::isnan(f));
    } else {
      EXPECT_EQ(static_cast<double>(f), ref) << b;
    }
  }
}

// Midpoints between adjacent halves must round to the even one; points just off the
// midpoint must round to the nearer one. This covers every rounding boundary.
TEST(Half, RoundsToNearestEvenAtEveryMidpoint) {
  for (uint32_t b = 0; b < 0x7bff; ++b) {  // positive finite, excluding the max
    const double lo = half_reference_value(static_cast<uint16_t>(b));
    const double hi = half_reference_value(static_cast<uint16_t>(b + 1));
    const double mid = (lo + hi) / 2;
    const uint16_t even = (b & 1u) ? static_cast<uint16_t>(b + 1) : static_cast<uint16_t>(b);
    const float fmid = static_cast<float>(mid);  // exact: halves have 11 bits
    ASSERT_EQ(static_cast<double>(fmid), mid);
    EXPECT_EQ(float_to_half_bits(fmid), even) << b;
    EXPECT_EQ(float_to_half_bits(-fmid), even | 0x8000u) << b;
    EXPECT_EQ(float_to_half_bits(std::nextafter(fmid, 0.0f)), b) << b;
    EXPECT_EQ(float_to_half_bits(std::nextafter(fmid, INFINITY)), b + 1) << b;
  }
}

TEST(Half, OverflowAndSpecials) {
  EXPECT_EQ(float_to_half_bits(65504.0f), 0x7bffu);
  EXPECT_EQ(float_to_half_bits(65519.99f), 0x7bffu);  // below the max/inf midpoint
  EXPECT_EQ(float_to_half_bits(65520.0f), 0x7c00u);   // midpoint rounds to even = Inf
  EXPECT_EQ(float_to_half_bits(1e10f), 0x7c00u);
  EXPECT_EQ(float_to_half_bits(-1e10f), 0xfc00u);
  EXPECT_EQ(float_to_half_bits(INFINITY), 0x7c00u);
  EXPECT_EQ(float_to_half_bits(-INFINITY), 0xfc00u);
  EXPECT_TRUE(is_nan_half(float_to_half_bits(NAN)));
  EXPECT_EQ(float_to_half_bits(-0.0f), 0x8000u);
  EXPECT_EQ(float_to_half_bits(1e-9f), 0x0000u);           // below half the smallest subnormal
  EXPECT_EQ(float_to_half_bits(5.9604645e-08f), 0x0001u);  // smallest subnormal
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("f16c"))) uint16_t hw_float_to_half(float f) {
  return static_cast<uint16_t>(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT));
}

TEST(Half, MatchesF16CHardwareOnRandomFloats) {
  if (!__builtin_cpu_supports("f16c")) GTEST_SKIP() << "CPU has no F16C";
  std::mt19937 rng(1234);
  for (int i = 0; i < 2000000; ++i) {
    const float f = bits_float(rng());
    const uint16_t want = hw_float_to_half(f);
    const uint16_t got = float_to_half_bits(f);
    if (std::isnan(f)) {
      EXPECT_TRUE(is_nan_half(got));
    } else {
      ASSERT_EQ(got, want) << "float bits " << float_bits(f);
    }
  }
}
#endif

TEST(BFloat16, AllValuesRoundTripThroughFloat) {
  for (uint32_t b = 0; b < 65536; ++b) {
    const uint16_t h = static_cast<uint16_t>(b);
    const float f = bf16_bits_to_float(h);
    EXPECT_EQ(float_bits(f), b << 16);
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(bf16_bits_to_float(float_to_bf16_bits(f))));
      continue;
    }
    EXPECT_EQ(float_to_bf16_bits(f), h) << b;
  }
}

TEST(BFloat16, RoundsToNearestEvenAtEveryMidpoint) {
  for (uint32_t b = 0; b < 0x7f7f; ++b) {
    const uint32_t mid_bits = (b << 16) | 0x8000u;  // exactly halfway to b+1
    const uint16_t even = (b & 1u) ? static_cast<uint16_t>(b + 1) : static_cast<uint16_t>(b);
    EXPECT_EQ(float_to_bf16_bits(bits_float(mid_bits)), even) << b;
    EXPECT_EQ(float_to_bf16_bits(bits_float(mid_bits - 1)), b) << b;
    EXPECT_EQ(float_to_bf16_bits(bits_float(mid_bits + 1)), b + 1) << b;
  }
  EXPECT_EQ(float_to_bf16_bits(INFINITY), 0x7f80u);
  EXPECT_EQ(float_to_bf16_bits(3.4e38f), 0x7f80u);  // rounds past the max to Inf
  EXPECT_TRUE(std::isnan(bf16_bits_to_float(float_to_bf16_bits(NAN))));
  EXPECT_TRUE(std::isnan(bf16_bits_to_float(float_to_bf16_bits(-NAN))));
}

TEST(Half, BulkConversionsMatchScalar) {
  std::vector<float> src(1000);
  std::mt19937 rng(7);
  std::normal_distribution<float> dist(0.0f, 100.0f);
  for (float& f : src) f = dist(rng);
  std::vector<uint16_t> h(src.size()), b(src.size());
  std::vector<float> back_h(src.size()), back_b(src.size());
  convert_f32_to_f16(src.data(), h.data(), src.size());
  convert_f32_to_bf16(src.data(), b.data(), src.size());
  convert_f16_to_f32(h.data(), back_h.data(), src.size());
  convert_bf16_to_f32(b.data(), back_b.data(), src.size());
  for (size_t i = 0; i < src.size(); ++i) {
    EXPECT_EQ(h[i], float_to_half_bits(src[i]));
    EXPECT_EQ(b[i], float_to_bf16_bits(src[i]));
    EXPECT_NEAR(back_h[i], src[i], std::abs(src[i]) * 1e-3 + 1e-4);
    EXPECT_NEAR(back_b[i], src[i], std::abs(src[i]) * 8e-3 + 1e-30);
  }
}

// The vectorized bulk paths (F16C, AVX-512 clones) against the scalar reference, on every
// half and bf16 bit pattern and on random float bits (Inf, NaN, subnormals included).
TEST(Half, VectorizedBulkConversionsAreBitExact) {
  std::vector<uint16_t> all(65536);
  for (uint32_t b = 0; b < 65536; ++b) all[b] = static_cast<uint16_t>(b);
  std::vector<float> wide(all.size());
  convert_f16_to_f32(all.data(), wide.data(), all.size());
  for (uint32_t b = 0; b < 65536; ++b) {
    if (is_nan_half(all[b])) {  // F16C quiets signaling NaNs; both stay NaN
      ASSERT_TRUE(std::isnan(wide[b])) << b;
      continue;
    }
    ASSERT_EQ(float_bits(wide[b]), float_bits(half_bits_to_float(all[b]))) << b;
  }
  convert_bf16_to_f32(all.data(), wide.data(), all.size());
  for (uint32_t b = 0; b < 65536; ++b) ASSERT_EQ(float_bits(wide[b]), b << 16) << b;

  std::mt19937 rng(99);
  std::vector<float> src(1 << 20);
  for (float& f : src) f = bits_float(rng());
  std::vector<uint16_t> h(src.size()), bf(src.size());
  convert_f32_to_f16(src.data(), h.data(), src.size() - 3);  // odd tail
  convert_f32_to_bf16(src.data(), bf.data(), src.size() - 3);
  for (size_t i = 0; i + 3 < src.size(); ++i) {
    if (std::isnan(src[i])) {
      ASSERT_TRUE(is_nan_half(h[i]));
      ASSERT_TRUE(std::isnan(bf16_bits_to_float(bf[i])));
      continue;
    }
    ASSERT_EQ(h[i], float_to_half_bits(src[i])) << i;
    ASSERT_EQ(bf[i], float_to_bf16_bits(src[i])) << i;
  }
}

}  // namespace
}  // namespace amp
