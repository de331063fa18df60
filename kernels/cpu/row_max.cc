#include "kernels/cpu/row_max.h"

#include <cmath>

#include "kernels/cpu/cpu_common.h"

namespace amp::kernels::cpu {
namespace {

// 64 lanes keep their max, reduced by halving (a max is exact in any order; no 64-step
// chain). A NaN is never the larger of a comparison, so the lanes ignore NaN; with
// kPropagateNaN, `poison` gathers v * 0 per lane as well: 0 for finite elements, NaN for a
// NaN or an infinity, in one multiply-add the compiler vectorizes (a bool "saw NaN" per lane
// did not: 0.41 ms for the header's planes against 0.077 this way). Only when it is NaN is
// the row scanned for a real NaN; without one, the lanes' max is right (infinities compare
// as numbers).
template <bool kPropagateNaN, typename C>
AMP_ISA_CLONES C max_of(const C* __restrict__ s, int64_t n) {
  constexpr int64_t kLanes = 64;
  C lane[kLanes], poison[kLanes];
  for (int64_t l = 0; l < kLanes; ++l) {
    lane[l] = -C(INFINITY);
    poison[l] = C(0);
  }
  auto step = [&](int64_t l, C v) {
    lane[l] = v > lane[l] ? v : lane[l];
    if constexpr (kPropagateNaN) poison[l] += v * C(0);
  };
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes)
    for (int64_t l = 0; l < kLanes; ++l) step(l, s[j + l]);
  for (int64_t l = 0; j + l < n; ++l) step(l, s[j + l]);
  if constexpr (kPropagateNaN) {
    C any = C(0);
    for (int64_t l = 0; l < kLanes; ++l) any += poison[l];
    if (any != any)
      for (int64_t i = 0; i < n; ++i)
        if (s[i] != s[i]) return s[i];
  }
  for (int64_t half = kLanes / 2; half >= 1; half /= 2)
    for (int64_t l = 0; l < half; ++l)
      lane[l] = lane[l + half] > lane[l] ? lane[l + half] : lane[l];
  return lane[0];
}

}  // namespace

float row_max_propagating(const float* s, int64_t n) {
  return max_of<true>(s, n);
}
double row_max_propagating(const double* s, int64_t n) {
  return max_of<true>(s, n);
}
float row_max_ignoring_nan(const float* s, int64_t n) {
  return max_of<false>(s, n);
}
double row_max_ignoring_nan(const double* s, int64_t n) {
  return max_of<false>(s, n);
}

}  // namespace amp::kernels::cpu
