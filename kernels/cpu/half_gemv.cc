#include "kernels/cpu/half_gemv.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>

#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/gemv_panels.h"
#include "kernels/cpu/vector_activation.h"
#include "runtime/common/half.h"

// AVX2 and FMA intrinsics with F16C's widening.
#define AMP_AVX2_FMA_F16C __attribute__((target("avx2,fma,f16c")))

namespace amp::kernels::cpu {
namespace {

constexpr int64_t kColumns = HalfGemv::kColumns;
static_assert(kColumns == gemv_panels::kColumns, "the panels are gemv_panels.h's");
constexpr int kVectors = kColumns / 8;

// Eight 16-bit values widened to f32.
template <DType kStorage>
AMP_AVX2_FMA_F16C inline __m256 widen(const uint16_t* p) {
  const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  if constexpr (kStorage == DType::kF16) {
    return _mm256_cvtph_ps(h);
  } else {  // bf16: the top half of an f32
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
  }
}

// One row's 64 outputs of one panel, started from `start` (64 values: the bias or zeros);
// `width` of them are stored.
template <DType kStorage>
AMP_AVX2_FMA_F16C void panel_row(const float* __restrict__ x, const uint16_t* __restrict__ bp,
                                 int64_t k, const float* __restrict__ start, float* __restrict__ y,
                                 int64_t width) {
  __m256 acc[kVectors];
  for (int v = 0; v < kVectors; ++v) acc[v] = _mm256_loadu_ps(start + 8 * v);
  for (int64_t kk = 0; kk < k; ++kk) {
    const __m256 xv = _mm256_broadcast_ss(x + kk);
    const uint16_t* row = bp + kk * kColumns;
    // B's row 16 ahead (2 lines): streaming from memory sets the pace.
    _mm_prefetch(reinterpret_cast<const char*>(row + 16 * kColumns), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(row + 16 * kColumns + 32), _MM_HINT_T0);
    _Pragma("GCC unroll 8") for (int v = 0; v < kVectors; ++v) acc[v] =
        _mm256_fmadd_ps(xv, widen<kStorage>(row + 8 * v), acc[v]);
  }
  gemv_panels::store_panel(acc, y, width);
}

template <DType kStorage>
inline float widen_one(uint16_t h) {
  return kStorage == DType::kF16 ? half_bits_to_float(h) : bf16_bits_to_float(h);
}

// In place (header): columns [j, j + width) of kRows rows, B [K, N] dense row-major. The sums
// are y[r * n + j ...], already started from the bias or zeros.
template <DType kStorage, int kRows>
AMP_AVX2_FMA_F16C void tile_rows(const float* __restrict__ x, const uint16_t* __restrict__ b,
                                 int64_t k, int64_t n, int64_t j, int64_t width,
                                 float* __restrict__ y) {
  const int64_t vec_width = width & ~int64_t{7};
  int64_t kk = 0;
  for (; kk + 4 <= k; kk += 4) {
    const uint16_t* b0 = b + kk * n + j;
    const uint16_t* b1 = b0 + n;
    const uint16_t* b2 = b1 + n;
    const uint16_t* b3 = b2 + n;
    __m256 xs[kRows][4];
    for (int r = 0; r < kRows; ++r)
      for (int i = 0; i < 4; ++i) xs[r][i] = _mm256_broadcast_ss(x + r * k + kk + i);
    for (int64_t c = 0; c < vec_width; c += 8) {
      const __m256 w0 = widen<kStorage>(b0 + c), w1 = widen<kStorage>(b1 + c);
      const __m256 w2 = widen<kStorage>(b2 + c), w3 = widen<kStorage>(b3 + c);
      for (int r = 0; r < kRows; ++r) {
        float* sums = y + r * n + j + c;
        __m256 acc = _mm256_loadu_ps(sums);
        acc = _mm256_fmadd_ps(xs[r][0], w0, acc);
        acc = _mm256_fmadd_ps(xs[r][1], w1, acc);
        acc = _mm256_fmadd_ps(xs[r][2], w2, acc);
        acc = _mm256_fmadd_ps(xs[r][3], w3, acc);
        _mm256_storeu_ps(sums, acc);
      }
    }
  }
  for (; kk < k; ++kk) {
    const uint16_t* b0 = b + kk * n + j;
    for (int64_t c = 0; c < vec_width; c += 8) {
      const __m256 w0 = widen<kStorage>(b0 + c);
      for (int r = 0; r < kRows; ++r) {
        float* sums = y + r * n + j + c;
        _mm256_storeu_ps(
            sums, _mm256_fmadd_ps(_mm256_broadcast_ss(x + r * k + kk), w0, _mm256_loadu_ps(sums)));
      }
    }
  }
  // The last tile's columns past a multiple of 8: the same sums in the same order, one fused
  // multiply-add (one rounding) a step, as the vector lanes.
  for (int64_t c = vec_width; c < width; ++c)
    for (int r = 0; r < kRows; ++r) {
      float acc = y[r * n + j + c];
      for (int64_t i = 0; i < k; ++i)
        acc = std::fma(x[r * k + i], widen_one<kStorage>(b[i * n + j + c]), acc);
      y[r * n + j + c] = acc;
    }
}

template <DType kStorage>
void tile(const float* x, int64_t rows, const uint16_t* b, int64_t k, int64_t n, int64_t j,
          int64_t width, float* y) {
  switch (rows) {
    case 1:
      return tile_rows<kStorage, 1>(x, b, k, n, j, width, y);
    case 2:
      return tile_rows<kStorage, 2>(x, b, k, n, j, width, y);
    case 3:
      return tile_rows<kStorage, 3>(x, b, k, n, j, width, y);
    default:
      return tile_rows<kStorage, 4>(x, b, k, n, j, width, y);
  }
}

}  // namespace

bool HalfGemv::suits_this_cpu() {
#if defined(__GNUC__) && defined(__x86_64__)
  static const bool ok =
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && cpu_has_f16c();
  return ok;
#else
  return false;
#endif
}

void HalfGemv::prepare(DType storage, int64_t k, int64_t n, const uint16_t* b, int64_t stride_k,
                       int64_t stride_n, const graph::FusedActivation& act,
                       const std::shared_ptr<const void>& owner) {
  storage_ = storage;
  k_ = k;
  n_ = n;
  act_ = act;
  panels_ = nullptr;
  if (stride_n == 1 && stride_k == n && n >= kMinInPlaceColumns) return;  // read in place
  // f16 and bf16 panels of the same bytes are the same bits: the recipe needs no dtype.
  panels_ = gemv_panels::packed(k, n, b, stride_k, stride_n, owner);
}

void HalfGemv::run(const float* x, int64_t rows, const uint16_t* b, const float* bias, float* y,
                   int threads) const {
  if (reads_b_in_place()) return run_in_place(x, rows, b, bias, y, threads);
  const auto* panels = reinterpret_cast<const uint16_t*>(panels_.get());
  const int64_t count = gemv_panels::count(n_);
  // Panels per thread: enough weights (~64K) to pay for waking a thread.
  const int64_t grain = std::max<int64_t>(1, 65536 / std::max<int64_t>(1, k_ * kColumns));
  parallel_for(
      count, threads,
      [&](int64_t p0, int64_t p1) {
        alignas(32) float start[kColumns] = {};
        for (int64_t p = p0; p < p1; ++p) {
          const int64_t j = p * kColumns, width = std::min(kColumns, n_ - j);
          if (bias != nullptr) std::copy(bias + j, bias + j + width, start);
          const uint16_t* bp = panels + p * k_ * kColumns;
          for (int64_t r = 0; r < rows; ++r) {
            float* out = y + r * n_ + j;
            if (storage_ == DType::kF16)
              panel_row<DType::kF16>(x + r * k_, bp, k_, start, out, width);
            else
              panel_row<DType::kBF16>(x + r * k_, bp, k_, start, out, width);
            if (act_.kind != graph::ActivationKind::kNone) activate_f32(act_, out, width);
          }
        }
      },
      grain);
}

void HalfGemv::run_in_place(const float* x, int64_t rows, const uint16_t* b, const float* bias,
                            float* y, int threads) const {
  // Tiles: one per thread, but at least ~64K weights each (to pay for waking a thread) and at
  // most kMaxTile columns (the sums stay in cache).
  auto round8 = [](int64_t v) { return (v + 7) / 8 * 8; };
  int64_t width = round8((n_ + std::max(threads, 1) - 1) / std::max(threads, 1));
  width = std::max(width, round8(65536 / std::max<int64_t>(k_, 1)));
  width = std::min(width, kMaxTile);
  const int64_t count = (n_ + width - 1) / width;
  parallel_for(
      count, threads,
      [&](int64_t t0, int64_t t1) {
        for (int64_t t = t0; t < t1; ++t) {
          const int64_t j = t * width, w = std::min(width, n_ - j);
          for (int64_t r = 0; r < rows; ++r) {
            float* sums = y + r * n_ + j;
            if (bias != nullptr)
              std::copy(bias + j, bias + j + w, sums);
            else
              std::fill(sums, sums + w, 0.0f);
          }
          if (storage_ == DType::kF16)
            tile<DType::kF16>(x, rows, b, k_, n_, j, w, y);
          else
            tile<DType::kBF16>(x, rows, b, k_, n_, j, w, y);
          if (act_.kind != graph::ActivationKind::kNone)
            for (int64_t r = 0; r < rows; ++r) activate_f32(act_, y + r * n_ + j, w);
        }
      },
      1);
}

HeldConstant HalfGemv::held_constant() const {
  return {panels_.get(), panels_ ? gemv_panels::bytes(k_, n_, sizeof(uint16_t)) : 0};
}

}  // namespace amp::kernels::cpu
