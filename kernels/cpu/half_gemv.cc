#include "kernels/cpu/half_gemv.h"

#include <immintrin.h>

#include <algorithm>

#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/gemv_panels.h"
#include "kernels/cpu/vector_activation.h"

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
  const __m128i h = _mm_load_si128(reinterpret_cast<const __m128i*>(p));
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

}  // namespace

bool HalfGemv::suits_this_cpu() {
#if defined(__GNUC__) && defined(__x86_64__)
  static const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                         __builtin_cpu_supports("f16c");
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
  // f16 and bf16 panels of the same bytes are the same bits: the recipe needs no dtype.
  b_ = gemv_panels::packed(k, n, b, stride_k, stride_n, owner);
}

void HalfGemv::run(const float* x, int64_t rows, const float* bias, float* y, int threads) const {
  const auto* panels = reinterpret_cast<const uint16_t*>(b_.get());
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

HeldConstant HalfGemv::held_constant() const {
  return {b_.get(), b_ ? gemv_panels::bytes(k_, n_, sizeof(uint16_t)) : 0};
}

}  // namespace amp::kernels::cpu
