#include "kernels/cpu/softmax_rows.h"

#include <cmath>

#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/reduce_util.h"
#include "kernels/cpu/row_max.h"

namespace amp::kernels::cpu {
namespace {

template <typename C>
AMP_ISA_CLONES C sum_of(const C* __restrict__ s, int64_t n) {
  return tree_reduce<C>(
      0, n, C(0), [](C a, C b) { return a + b; }, [s](int64_t j) { return s[j]; });
}

template <typename C>
AMP_ISA_CLONES void scale(C* __restrict__ s, int64_t n, C factor) {
  for (int64_t j = 0; j < n; ++j) s[j] *= factor;
}

template <typename C>
AMP_ISA_CLONES void scale_add(C* __restrict__ s, const float* __restrict__ add, int64_t n,
                              C factor) {
  for (int64_t j = 0; j < n; ++j) s[j] = s[j] * factor + static_cast<C>(add[j]);
}

// Not __restrict__: x may be y.
template <typename C>
AMP_ISA_CLONES void subtract(const C* x, C* y, int64_t n, C value) {
  for (int64_t j = 0; j < n; ++j) y[j] = x[j] - value;
}

}  // namespace

float row_max(const float* s, int64_t n) {
  return row_max_ignoring_nan(s, n);
}
double row_max(const double* s, int64_t n) {
  return row_max_ignoring_nan(s, n);
}
float row_sum(const float* s, int64_t n) {
  return sum_of(s, n);
}
double row_sum(const double* s, int64_t n) {
  return sum_of(s, n);
}
void scale_row(float* s, int64_t n, float factor) {
  scale(s, n, factor);
}
void scale_row(double* s, int64_t n, double factor) {
  scale(s, n, factor);
}
void scale_add_row(float* s, const float* add, int64_t n, float factor) {
  scale_add(s, add, n, factor);
}
void scale_add_row(double* s, const float* add, int64_t n, double factor) {
  scale_add(s, add, n, factor);
}
void subtract_row(const float* x, float* y, int64_t n, float value) {
  subtract(x, y, n, value);
}
void subtract_row(const double* x, double* y, int64_t n, double value) {
  subtract(x, y, n, value);
}

}  // namespace amp::kernels::cpu
