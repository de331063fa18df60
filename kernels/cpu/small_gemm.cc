#include "kernels/cpu/small_gemm.h"

#include <algorithm>

#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/shared_constants.h"
#include "kernels/cpu/vector_activation.h"

namespace amp::kernels::cpu {
namespace {

// Columns per register tile: 32 floats are 4 AVX2 or 2 AVX-512 registers per row.
constexpr int64_t kTile = 32;

// y[r][0..width) += sum_k x[r][k] bt[k][0..width) for R rows (x and y rows `ldx` and `ldy`
// apart), bt one packed tile [K, kTile] (zero past width). The partial sums stay in
// registers across the whole K loop: per k one contiguous load of the tile serves R rows,
// and y is read and written once.
template <int R>
AMP_ISA_CLONES void accumulate_tile(const float* __restrict__ x, int64_t ldx,
                                    const float* __restrict__ bt, int64_t k_count, int64_t width,
                                    float* __restrict__ y, int64_t ldy) {
  float acc[R][kTile];
  for (int r = 0; r < R; ++r)
    for (int64_t w = 0; w < kTile; ++w) acc[r][w] = w < width ? y[r * ldy + w] : 0.0f;
  // A single row alternates two sets of sums over even and odd k: with one set, each FMA
  // waits for the previous one's result on the same registers.
  float odd[R == 1 ? kTile : 1] = {};
  int64_t k = 0;
  if constexpr (R == 1) {
    for (; k + 2 <= k_count; k += 2) {
      const float* __restrict__ row = bt + k * kTile;
      const float x0 = x[k], x1 = x[k + 1];
      for (int64_t w = 0; w < kTile; ++w) {
        acc[0][w] += x0 * row[w];
        odd[w] += x1 * row[kTile + w];
      }
    }
  }
  for (; k < k_count; ++k) {
    const float* __restrict__ row = bt + k * kTile;
    for (int r = 0; r < R; ++r) {
      const float xk = x[r * ldx + k];
      for (int64_t w = 0; w < kTile; ++w) acc[r][w] += xk * row[w];
    }
  }
  for (int r = 0; r < R; ++r)
    for (int64_t w = 0; w < width; ++w) y[r * ldy + w] = acc[r][w] + (R == 1 ? odd[w] : 0.0f);
}

}  // namespace

namespace {

// How a SmallGemm tiled its B: equal recipes of the same bytes give equal tiles.
struct TileRecipe {
  int64_t k, n, stride_k, stride_n;
  bool operator==(const TileRecipe&) const = default;
};

// Tile-major [N / kTile][K][kTile], the last tile zero-padded: a tile's K rows are
// contiguous, so the K loop streams them (B's own rows are N apart).
std::shared_ptr<const std::vector<float>> tile_b(int64_t k, int64_t n, const float* b,
                                                 int64_t stride_k, int64_t stride_n) {
  const int64_t tiles = (n + kTile - 1) / kTile;
  auto out = std::make_shared<std::vector<float>>(static_cast<size_t>(tiles * k * kTile), 0.0f);
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t j = 0; j < n; ++j)
      (*out)[static_cast<size_t>((j / kTile * k + kk) * kTile + j % kTile)] =
          b[kk * stride_k + j * stride_n];
  return out;
}

}  // namespace

void SmallGemm::prepare(int64_t rows, int64_t k, int64_t n, const float* b, int64_t stride_k,
                        int64_t stride_n, const float* bias, const graph::FusedActivation& act,
                        const std::shared_ptr<const void>& owner) {
  rows_ = rows;
  k_ = k;
  n_ = n;
  act_ = act;
  b_ = SharedConstants<TileRecipe, std::vector<float>>::instance().get(
      b, owner, TileRecipe{k, n, stride_k, stride_n},
      [&] { return tile_b(k, n, b, stride_k, stride_n); });
  if (bias != nullptr) bias_.assign(bias, bias + n);
}

HeldConstant SmallGemm::held_constant() const {
  return {b_.get(), b_ ? b_->size() * sizeof(float) : 0};
}

void SmallGemm::run(const float* x, const float* bias, float* y, int threads) const {
  const float* b = bias_.empty() ? bias : bias_.data();
  const int64_t tiles = (n_ + kTile - 1) / kTile;
  // Tiles of columns per thread: enough multiply-adds (~32K) to pay for waking a thread.
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(1, rows_ * k_ * kTile));
  parallel_for(
      tiles, threads,
      [&](int64_t t0, int64_t t1) {
        for (int64_t t = t0; t < t1; ++t) {
          const int64_t j = t * kTile, width = std::min(kTile, n_ - j);
          const float* bt = b_->data() + t * k_ * kTile;
          for (int64_t r = 0; r < rows_; ++r)
            for (int64_t w = 0; w < width; ++w) y[r * n_ + j + w] = b != nullptr ? b[j + w] : 0.0f;
          int64_t r = 0;
          for (; r + 2 <= rows_; r += 2)
            accumulate_tile<2>(x + r * k_, k_, bt, k_, width, y + r * n_ + j, n_);
          for (; r < rows_; ++r)
            accumulate_tile<1>(x + r * k_, k_, bt, k_, width, y + r * n_ + j, n_);
          if (act_.kind == graph::ActivationKind::kNone) continue;
          for (r = 0; r < rows_; ++r) activate_f32(act_, y + r * n_ + j, width);
        }
      },
      grain);
}

}  // namespace amp::kernels::cpu
