#include "kernels/cpu/packed_gemm.h"

#include <immintrin.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/shared_constants.h"
#include "kernels/cpu/vector_activation.h"

namespace amp::kernels::cpu {
namespace {

constexpr int64_t kNr = 16;  // columns of a panel: two AVX2 registers
constexpr int64_t kMr = 6;   // rows of a tile: 12 accumulators + 2 of B + 1 broadcast = 15
constexpr int64_t kKc = 256;
constexpr int64_t kMc = 16 * kMr;

// Panels of kNr columns for N columns, the last zero-padded.
int64_t panel_count(int64_t n) {
  return (n + kNr - 1) / kNr;
}

// Lanes [0, width) of a register of 8, for the masked loads and stores of a narrow panel.
AMP_AVX2_FMA inline __m256i lane_mask(int64_t width) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(width)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

template <bool kMasked>
AMP_AVX2_FMA inline __m256 load8(const float* p, __m256i mask) {
  if constexpr (kMasked) return _mm256_maskload_ps(p, mask);
  return _mm256_loadu_ps(p);
}

// The MR x (8 NV) tile of y at c (rows ldc apart; `width` <= 8 NV columns valid) plus
// x[0..MR)[0..kc) times the panel slice bp [kc][16]. `first`: the tile starts from the
// bias (or 0) instead of c. NV = 1 for a last panel of at most 8 columns: half the FMAs of
// a masked 16-column one (a 24-channel output's third panel).
template <int MR, int NV, bool kMasked>
AMP_AVX2_FMA void tile(const float* __restrict__ x, int64_t ldx, const float* __restrict__ bp,
                       int64_t kc, float* __restrict__ c, int64_t ldc, const float* bias,
                       bool first, int64_t width) {
  const __m256i mask[2] = {lane_mask(width), lane_mask(width - 8)};
  __m256 acc[MR][NV];
  __m256 b[NV];
  _Pragma("GCC unroll 2") for (int v = 0; v < NV; ++v) b[v] =
      first && bias ? load8<kMasked>(bias + 8 * v, mask[v]) : _mm256_setzero_ps();
  _Pragma("GCC unroll 8") for (int r = 0; r < MR; ++r) {
    _Pragma("GCC unroll 2") for (int v = 0; v < NV; ++v) acc[r][v] =
        first ? b[v] : load8<kMasked>(c + r * ldc + 8 * v, mask[v]);
  }
  _Pragma("GCC unroll 2") for (int64_t k = 0; k < kc; ++k) {
    __m256 w[NV];
    _Pragma("GCC unroll 2") for (int v = 0; v < NV; ++v) w[v] =
        _mm256_load_ps(bp + k * kNr + 8 * v);
    _Pragma("GCC unroll 8") for (int r = 0; r < MR; ++r) {
      const __m256 xv = _mm256_broadcast_ss(x + r * ldx + k);
      _Pragma("GCC unroll 2") for (int v = 0; v < NV; ++v) acc[r][v] =
          _mm256_fmadd_ps(xv, w[v], acc[r][v]);
    }
  }
  _Pragma("GCC unroll 8") for (int r = 0; r < MR; ++r) {
    _Pragma("GCC unroll 2") for (int v = 0; v < NV; ++v) {
      if constexpr (kMasked)
        _mm256_maskstore_ps(c + r * ldc + 8 * v, mask[v], acc[r][v]);
      else
        _mm256_storeu_ps(c + r * ldc + 8 * v, acc[r][v]);
    }
  }
}

template <int NV, bool kMasked>
AMP_AVX2_FMA void tile_rows(int64_t rows, const float* x, int64_t ldx, const float* bp, int64_t kc,
                            float* c, int64_t ldc, const float* bias, bool first, int64_t width) {
  switch (rows) {
    case 1:
      return tile<1, NV, kMasked>(x, ldx, bp, kc, c, ldc, bias, first, width);
    case 2:
      return tile<2, NV, kMasked>(x, ldx, bp, kc, c, ldc, bias, first, width);
    case 3:
      return tile<3, NV, kMasked>(x, ldx, bp, kc, c, ldc, bias, first, width);
    case 4:
      return tile<4, NV, kMasked>(x, ldx, bp, kc, c, ldc, bias, first, width);
    case 5:
      return tile<5, NV, kMasked>(x, ldx, bp, kc, c, ldc, bias, first, width);
    default:
      return tile<6, NV, kMasked>(x, ldx, bp, kc, c, ldc, bias, first, width);
  }
}

// Rows [0, rows) of y (rows ldy apart) for panels [p0, p1), then the activation over
// them; x's rows are ldx apart.
AMP_AVX2_FMA void run_panels(const float* x, int64_t ldx, int64_t rows, int64_t k,
                             const float* packed, int64_t n, const float* bias,
                             const graph::FusedActivation& act, float* y, int64_t ldy, int64_t p0,
                             int64_t p1) {
  const int64_t j0 = p0 * kNr, j1 = std::min(n, p1 * kNr);
  const int64_t padded_n = panel_count(n) * kNr;
  for (int64_t m0 = 0; m0 < rows; m0 += kMc) {
    const int64_t m1 = std::min(rows, m0 + kMc);
    for (int64_t k0 = 0; k0 < k; k0 += kKc) {
      const int64_t kc = std::min(kKc, k - k0);
      for (int64_t p = p0; p < p1; ++p) {
        const int64_t j = p * kNr, width = std::min(kNr, n - j);
        const float* bp = packed + k0 * padded_n + p * kc * kNr;
        const float* bias_j = bias != nullptr ? bias + j : nullptr;
        // Strips of at most 6 rows, as even as can be: 32 rows as 5+5+6+5+5+6, not
        // 6+6+6+6+6+2 (a strip of fewer than 4 rows waits on FMA latency, not throughput).
        const int64_t strips = (m1 - m0 + kMr - 1) / kMr;
        for (int64_t s = 0, m = m0; s < strips; ++s) {
          const int64_t mr = (m1 - m0) * (s + 1) / strips - (m - m0);
          const float* xs = x + m * ldx + k0;
          float* ys = y + m * ldy + j;
          if (width == kNr)
            tile_rows<2, false>(mr, xs, ldx, bp, kc, ys, ldy, bias_j, k0 == 0, width);
          else if (width == 8)
            tile_rows<1, false>(mr, xs, ldx, bp, kc, ys, ldy, bias_j, k0 == 0, width);
          else if (width < 8)
            tile_rows<1, true>(mr, xs, ldx, bp, kc, ys, ldy, bias_j, k0 == 0, width);
          else
            tile_rows<2, true>(mr, xs, ldx, bp, kc, ys, ldy, bias_j, k0 == 0, width);
          m += mr;
        }
      }
    }
    if (act.kind != graph::ActivationKind::kNone)
      for (int64_t m = m0; m < m1; ++m) activate_f32(act, y + m * ldy + j0, j1 - j0);
  }
}

// How a PackedGemm packed its B: equal recipes of the same bytes give equal panels.
struct PanelRecipe {
  int64_t k, n, stride_k, stride_n;
  bool operator==(const PanelRecipe&) const = default;
};

size_t panel_bytes(int64_t k, int64_t n) {
  return static_cast<size_t>(panel_count(n) * k * kNr) * sizeof(float);
}

std::shared_ptr<const float> pack_panels(int64_t k, int64_t n, const float* b, int64_t stride_k,
                                         int64_t stride_n) {
  const size_t bytes = panel_bytes(k, n);
  auto* out = static_cast<float*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64));
  if (out == nullptr) throw std::bad_alloc();
  std::shared_ptr<const float> packed(out,
                                      [](const float* p) { std::free(const_cast<float*>(p)); });
  std::memset(out, 0, bytes);
  // [K / kKc][N / 16][kc][16]: a K slice of all panels is one contiguous stream.
  const int64_t panels = panel_count(n);
  const int64_t padded_n = panels * kNr;
  for (int64_t k0 = 0; k0 < k; k0 += kKc) {
    const int64_t kc = std::min(kKc, k - k0);
    for (int64_t p = 0; p < panels; ++p)
      for (int64_t kk = 0; kk < kc; ++kk)
        for (int64_t w = 0; w < std::min(kNr, n - p * kNr); ++w)
          out[k0 * padded_n + (p * kc + kk) * kNr + w] =
              b[(k0 + kk) * stride_k + (p * kNr + w) * stride_n];
  }
  return packed;
}

}  // namespace

bool PackedGemm::suits_this_cpu() {
#if defined(__GNUC__) && defined(__x86_64__)
  // libgcc's CPU model: under tools/bench/as_avx2_cpu.cc it sees the masked CPU too.
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
         !__builtin_cpu_supports("avx512f");
#else
  return false;
#endif
}

void PackedGemm::prepare(int64_t k, int64_t n, const float* b, int64_t stride_k, int64_t stride_n,
                         const graph::FusedActivation& act,
                         const std::shared_ptr<const void>& owner) {
  k_ = k;
  n_ = n;
  act_ = act;
  b_ = SharedConstants<PanelRecipe, float>::instance().get(
      b, owner, PanelRecipe{k, n, stride_k, stride_n},
      [&] { return pack_panels(k, n, b, stride_k, stride_n); });
}

HeldConstant PackedGemm::held_constant() const {
  return {b_.get(), b_ ? panel_bytes(k_, n_) : 0};
}

void PackedGemm::run(const float* x, int64_t rows, const float* bias, float* y, int threads) const {
  const int64_t panels = panel_count(n_);
  // Panels per thread: enough multiply-adds (~32K) to pay for waking a thread.
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(1, rows * k_ * kNr));
  parallel_for(
      panels, threads,
      [&](int64_t p0, int64_t p1) {
        run_panels(x, k_, rows, k_, b_.get(), n_, bias, act_, y, n_, p0, p1);
      },
      grain);
}

void PackedGemm::run_serial(const float* x, int64_t ldx, int64_t rows, float* y,
                            int64_t ldy) const {
  run_panels(x, ldx, rows, k_, b_.get(), n_, nullptr, graph::FusedActivation{}, y, ldy, 0,
             panel_count(n_));
}

}  // namespace amp::kernels::cpu
