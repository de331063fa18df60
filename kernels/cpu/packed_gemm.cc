#include "kernels/cpu/packed_gemm.h"

#include <immintrin.h>

#include <algorithm>

#include "kernels/cpu/cache_size.h"
#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/gemm_strip_avx2.h"
#include "kernels/cpu/gemm_strip_avx512.h"
#include "kernels/cpu/shared_constants.h"
#include "kernels/cpu/vector_activation.h"

namespace amp::kernels::cpu {
namespace {

constexpr int64_t kNr = PackedGemm::kColumns;
static_assert(kNr == kStripColumns, "a panel is one strip kernel's width");
constexpr int64_t kKc = 256;
// Rows of x in a block (packed_gemm.h): at least 96, at most 256.
constexpr int64_t kMinBlockRows = 16 * kStripRows, kMaxBlockRows = 256;

// Panels of kNr columns for N columns, the last zero-padded.
int64_t panel_count(int64_t n) {
  return (n + kNr - 1) / kNr;
}

// Blocks of x's rows for `rows` rows: as few as fit a K slice of each in half of L2, cut as
// evenly as can be (block b starts at rows * b / blocks).
int64_t row_blocks(int64_t rows) {
  static const int64_t most =
      std::clamp<int64_t>(cpu_l2_cache_bytes() / 2 / (kKc * static_cast<int64_t>(sizeof(float))),
                          kMinBlockRows, kMaxBlockRows);
  return std::max<int64_t>(1, (rows + most - 1) / most);
}

// Whether a block of `rows` rows of x walks B panel by panel (all of K for one panel, then
// the next) rather than K slice by K slice (every panel for one slice): where the block's y,
// `width` columns, overflows half of L2, so that slice by slice it would go out to L3 or
// memory and back once a slice, and its x, all of K, stays within twice L2. A vocabulary
// projection (GPT-2's 768 -> 50257) is the case: as AVX2 on an AMD EPYC (Zen 3, 512 KiB L2),
// one thread, x [rows, 768] by a constant B [768, 50257], median ms slice by slice -> panel
// by panel: 64 rows 70-94 -> 65-77, 128 rows 154-156 -> 127-133, 256 rows (x 1.5x L2)
// 304-359 -> 268-276. Products whose y fits (a transformer's 768 -> 768 at 64 tokens)
// measured the same either way and keep the slices.
bool panel_outer(int64_t rows, int64_t k, int64_t width) {
  static const int64_t l2 = cpu_l2_cache_bytes();
  const int64_t f = static_cast<int64_t>(sizeof(float));
  return rows * width * f > l2 / 2 && rows * k * f <= 2 * l2;
}

// Rows [0, rows) of y (rows ldy apart) for panels [p0, p1), then the activation over
// them; x's rows are ldx apart. With `accumulate` the product adds to y's values.
AMP_AVX2_FMA void run_panels(const float* x, int64_t ldx, int64_t rows, int64_t k,
                             const float* packed, int64_t n, const float* bias,
                             const graph::FusedActivation& act, float* y, int64_t ldy, int64_t p0,
                             int64_t p1, bool accumulate = false) {
  const int64_t j0 = p0 * kNr, j1 = std::min(n, p1 * kNr);
  const int64_t padded_n = panel_count(n) * kNr;
  static const bool avx512 = cpu_has_avx512f();
  // Panels a strip covers at once: the AVX-512 kernel takes up to three.
  const int64_t step = avx512 ? kAvx512StripPanels : 1;
  const int64_t blocks = row_blocks(rows);
  // The panels a strip covers from panel p: four left go as two pairs, as a lone panel
  // keeps half the FMA chains.
  auto panels_at = [&](int64_t p) { return p1 - p == 4 && step == 3 ? 2 : std::min(step, p1 - p); };
  // One strip's multiply of the K slice at k0 of panels [p, p + panels), prefetching a part
  // of `next` (next_lines lines of it) into L1.
  auto slice = [&](int64_t m0, int64_t m1, int64_t k0, int64_t p, int64_t panels, const float* next,
                   int64_t next_floats) {
    const int64_t kc = std::min(kKc, k - k0);
    const bool first = k0 == 0 && !accumulate;  // the first K slice starts from the bias
    const int64_t j = p * kNr, width = std::min(panels * kNr, n - j);
    const float* bp = packed + k0 * padded_n + p * kc * kNr;
    const float* bias_j = bias != nullptr ? bias + j : nullptr;
    const int64_t strips = strip_count(m1 - m0);
    const int64_t next_lines = next_floats * static_cast<int64_t>(sizeof(float)) / 64;
    for (int64_t s = 0; s < strips; ++s) {
      for (int64_t l = next_lines * s / strips; l < next_lines * (s + 1) / strips; ++l)
        _mm_prefetch(reinterpret_cast<const char*>(next) + l * 64, _MM_HINT_T0);
      const int64_t m = m0 + strip_begin(m1 - m0, strips, s);
      const int64_t mr = m0 + strip_begin(m1 - m0, strips, s + 1) - m;
      if (avx512)
        gemm_strip_avx512(mr, x + m * ldx + k0, ldx, bp, kc * kNr, static_cast<int>(panels), kc,
                          y + m * ldy + j, ldy, bias_j, first, width);
      else
        gemm_strip_avx2(mr, x + m * ldx + k0, ldx, bp, kNr, kc, y + m * ldy + j, ldy, bias_j, first,
                        width, /*b_rows_padded=*/true);
    }
  };
  for (int64_t block = 0; block < blocks; ++block) {
    const int64_t m0 = rows * block / blocks, m1 = rows * (block + 1) / blocks;
    const bool prefetch = !avx512 && m1 - m0 >= 2 * kStripRows;
    if (panel_outer(m1 - m0, k, j1 - j0)) {
      for (int64_t p = p0, panels = 0; p < p1; p += panels) {
        panels = panels_at(p);
        for (int64_t k0 = 0; k0 < k; k0 += kKc) {
          const float* next = nullptr;
          int64_t next_floats = 0;
          if (prefetch) {
            if (k0 + kKc < k) {
              const int64_t kc_next = std::min(kKc, k - k0 - kKc);
              next = packed + (k0 + kKc) * padded_n + p * kc_next * kNr;
              next_floats = kc_next * kNr;
            } else if (p + panels < p1) {
              next = packed + (p + panels) * std::min(kKc, k) * kNr;
              next_floats = std::min(kKc, k) * kNr;
            }
          }
          slice(m0, m1, k0, p, panels, next, next_floats);
        }
      }
    } else {
      for (int64_t k0 = 0; k0 < k; k0 += kKc) {
        const int64_t kc = std::min(kKc, k - k0);
        for (int64_t p = p0, panels = 0; p < p1; p += panels) {
          panels = panels_at(p);
          // The slice of B the strips take next, prefetched a part per strip (packed_gemm.h):
          // the next panels of this K slice, else the first of the next K slice, else of the
          // next block of rows.
          const float* next = nullptr;
          int64_t next_floats = 0;
          if (prefetch) {
            if (p + panels < p1) {
              next = packed + k0 * padded_n + (p + panels) * kc * kNr;
              next_floats = kc * kNr;
            } else {
              const int64_t k_next = k0 + kKc < k ? k0 + kKc : 0;
              const int64_t kc_next = std::min(kKc, k - k_next);
              if (k0 + kKc < k || m1 < rows) {
                next = packed + k_next * padded_n + p0 * kc_next * kNr;
                next_floats = kc_next * kNr;
              }
            }
          }
          slice(m0, m1, k0, p, panels, next, next_floats);
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
  return packed_form(panel_bytes(k, n), [&](float* out) {
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
  });
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
  run_serial(x, ldx, rows, y, ldy, 0, n_, nullptr, false);
}

void PackedGemm::run_serial(const float* x, int64_t ldx, int64_t rows, float* y, int64_t ldy,
                            int64_t j0, int64_t j1, const float* bias, bool accumulate) const {
  run_panels(x, ldx, rows, k_, b_.get(), n_, accumulate ? nullptr : bias, graph::FusedActivation{},
             y, ldy, j0 / kNr, panel_count(j1), accumulate);
}

}  // namespace amp::kernels::cpu
