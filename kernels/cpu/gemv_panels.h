// The layout the vector-matrix products (packed_gemv.h in f32, half_gemv.h in 16 bits) pack
// their constant B in: panels of kColumns = 64 columns, [N / 64][K][64] (the last
// zero-padded), so that a panel streams contiguously while 8 AVX2 accumulators hold its 64
// outputs. Packed panels are shared between kernels that pack the same constant of the same
// owner the same way (shared_constants.h).
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/shared_constants.h"

namespace amp::kernels::cpu::gemv_panels {

inline constexpr int64_t kColumns = 64;

inline int64_t count(int64_t n) {
  return (n + kColumns - 1) / kColumns;
}

// The panels' bytes for elements of `element_bytes`.
inline size_t bytes(int64_t k, int64_t n, size_t element_bytes) {
  return static_cast<size_t>(count(n) * k * kColumns) * element_bytes;
}

// How B was packed: equal recipes of the same bytes give equal panels.
struct Recipe {
  int64_t k, n, stride_k, stride_n;
  size_t element_bytes;
  bool operator==(const Recipe&) const = default;
};

// B's element (k, j) is b[k * stride_k + j * stride_n]; T is float or a 16-bit float's bits.
// The panels of `b` (owned by `owner`), one some kernel already holds or packed now.
template <typename T>
std::shared_ptr<const float> packed(int64_t k, int64_t n, const T* b, int64_t stride_k,
                                    int64_t stride_n, const std::shared_ptr<const void>& owner) {
  auto pack = [&] {
    return packed_form(bytes(k, n, sizeof(T)), [&](float* storage) {
      T* out = reinterpret_cast<T*>(storage);
      for (int64_t p = 0; p < count(n); ++p)
        for (int64_t kk = 0; kk < k; ++kk)
          for (int64_t w = 0; w < std::min(kColumns, n - p * kColumns); ++w)
            out[(p * k + kk) * kColumns + w] = b[kk * stride_k + (p * kColumns + w) * stride_n];
    });
  };
  return SharedConstants<Recipe, float>::instance().get(
      b, owner, Recipe{k, n, stride_k, stride_n, sizeof(T)}, pack);
}

// A panel's 64 sums (8 AVX2 registers) stored to y[0, width): the last panel of N may hold
// fewer than 64 columns, and nothing past column N is written.
AMP_AVX2_FMA inline void store_panel(const __m256* acc, float* y, int64_t width) {
  if (width == kColumns) {
    for (int v = 0; v < kColumns / 8; ++v) _mm256_storeu_ps(y + 8 * v, acc[v]);
    return;
  }
  alignas(32) float out[kColumns];
  for (int v = 0; v < kColumns / 8; ++v) _mm256_store_ps(out + 8 * v, acc[v]);
  std::copy(out, out + width, y);
}

}  // namespace amp::kernels::cpu::gemv_panels
