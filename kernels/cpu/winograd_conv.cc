#include "kernels/cpu/winograd_conv.h"

#include <immintrin.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/gemm_strip_avx2.h"
#include "kernels/cpu/gemm_strip_avx512.h"
#include "kernels/cpu/shared_constants.h"
#include "kernels/cpu/vector_activation.h"

namespace amp::kernels::cpu {
namespace {

constexpr int64_t kTile = 4;                // outputs per tile side
constexpr int64_t kPatch = 6;               // inputs per tile side: kTile + 3 - 1
constexpr int64_t kPoints = 36;             // kPatch^2 transformed positions
constexpr int64_t kLanes = 8;               // channels per block, one AVX2 register
constexpr size_t kBlockBytes = 256 * 1024;  // V and M of one block of tiles
constexpr int64_t kMaxBlockTiles = 36;

// Tiles of kTile outputs along an axis of `out` outputs, the last one partial.
int64_t tiles_along(int64_t out) {
  return (out + kTile - 1) / kTile;
}

// (G g G^T) in one dimension: the 3 filter taps to the 6 interpolation points.
void filter_transform(const double g[3], double u[6]) {
  u[0] = g[0] / 4;
  u[1] = -(g[0] + g[1] + g[2]) / 6;
  u[2] = -(g[0] - g[1] + g[2]) / 6;
  u[3] = g[0] / 24 + g[1] / 12 + g[2] / 6;
  u[4] = g[0] / 24 - g[1] / 12 + g[2] / 6;
  u[5] = g[2];
}

// How the filters were transformed: the same weights' bytes with the same dims give the
// same U.
struct FilterRecipe {
  int64_t m, c;
  bool operator==(const FilterRecipe&) const = default;
};

// U [36][C][M] = G g G^T per filter, in double, rounded once, packed as 36 GEMM operands.
std::shared_ptr<const std::vector<PackedGemm>> transform_filters(const float* w, int64_t m,
                                                                 int64_t c) {
  std::vector<float> u(static_cast<size_t>(kPoints * c * m));
  for (int64_t mo = 0; mo < m; ++mo) {
    for (int64_t ci = 0; ci < c; ++ci) {
      const float* g = w + (mo * c + ci) * 9;
      double rows[3][6];  // G applied along each filter row: rows[r][j]
      for (int r = 0; r < 3; ++r) {
        const double taps[3] = {g[r * 3], g[r * 3 + 1], g[r * 3 + 2]};
        filter_transform(taps, rows[r]);
      }
      for (int j = 0; j < 6; ++j) {
        const double col[3] = {rows[0][j], rows[1][j], rows[2][j]};
        double out[6];
        filter_transform(col, out);
        for (int i = 0; i < 6; ++i)
          u[static_cast<size_t>(((i * 6 + j) * c + ci) * m + mo)] = static_cast<float>(out[i]);
      }
    }
  }
  auto packed = std::make_shared<std::vector<PackedGemm>>(kPoints);
  for (int64_t p = 0; p < kPoints; ++p) (*packed)[p].prepare(c, m, u.data() + p * c * m, m, 1, {});
  return packed;
}

// B^T d in one dimension, 8 channels a register.
AMP_AVX2_FMA inline void input_transform_1d(const __m256 d[6], __m256 o[6]) {
  const __m256 two = _mm256_set1_ps(2), four = _mm256_set1_ps(4), five = _mm256_set1_ps(5);
  o[0] = _mm256_fmadd_ps(four, d[0], _mm256_fnmadd_ps(five, d[2], d[4]));
  o[1] = _mm256_fnmadd_ps(four, _mm256_add_ps(d[1], d[2]), _mm256_add_ps(d[3], d[4]));
  o[2] = _mm256_fmadd_ps(four, _mm256_sub_ps(d[1], d[2]), _mm256_sub_ps(d[4], d[3]));
  o[3] = _mm256_fmadd_ps(two, _mm256_sub_ps(d[3], d[1]), _mm256_sub_ps(d[4], d[2]));
  o[4] = _mm256_fmadd_ps(two, _mm256_sub_ps(d[1], d[3]), _mm256_sub_ps(d[4], d[2]));
  o[5] = _mm256_fmadd_ps(four, d[1], _mm256_fnmadd_ps(five, d[3], d[5]));
}

// A^T m in one dimension: the 6 points back to 4 outputs.
AMP_AVX2_FMA inline void output_transform_1d(const __m256 m[6], __m256 o[4]) {
  const __m256 s12 = _mm256_add_ps(m[1], m[2]), d12 = _mm256_sub_ps(m[1], m[2]);
  const __m256 s34 = _mm256_add_ps(m[3], m[4]), d34 = _mm256_sub_ps(m[3], m[4]);
  o[0] = _mm256_add_ps(_mm256_add_ps(m[0], s12), s34);
  o[1] = _mm256_fmadd_ps(_mm256_set1_ps(2), d34, d12);
  o[2] = _mm256_fmadd_ps(_mm256_set1_ps(4), s34, s12);
  o[3] = _mm256_add_ps(_mm256_fmadd_ps(_mm256_set1_ps(8), d34, d12), m[5]);
}

// V of one tile and 8-channel block: plane is the block's first channel at position (0, 0),
// positions `pos_stride` floats apart (8 in 8-channel blocks, C channels-last), (y0, x0)
// the patch's top-left (negative in the padding); v points at V_0's row of the tile, the 36
// points `point_stride` floats apart.
// Returns false when the patch holds an Inf or a NaN: the four corner points V[0][0],
// V[0][5], V[5][0] and V[5][5] weigh every input of the patch (rows 0 and 5 of B^T cover its
// rows 0, 2, 4 and 1, 3, 5), so their sum is then Inf or NaN; a finite patch keeps it finite
// unless its values reach ~1e36 (the transforms scale by up to 100). Four adds per patch.
template <bool kEdge>
AMP_AVX2_FMA bool transform_patch(const float* plane, int64_t pos_stride, int64_t h, int64_t w,
                                  int64_t y0, int64_t x0, float* v, int64_t point_stride) {
  __m256 t[6][6];  // t[i][j]: B^T applied down column j
  for (int j = 0; j < 6; ++j) {
    __m256 d[6];
    for (int i = 0; i < 6; ++i) {
      const int64_t y = y0 + i, x = x0 + j;
      if (kEdge && (y < 0 || y >= h || x < 0 || x >= w))
        d[i] = _mm256_setzero_ps();
      else
        d[i] = _mm256_loadu_ps(plane + (y * w + x) * pos_stride);
    }
    __m256 o[6];
    input_transform_1d(d, o);
    for (int i = 0; i < 6; ++i) t[i][j] = o[i];
  }
  __m256 corners = _mm256_setzero_ps();
  for (int i = 0; i < 6; ++i) {
    __m256 o[6];
    input_transform_1d(t[i], o);
    for (int j = 0; j < 6; ++j) _mm256_storeu_ps(v + (i * 6 + j) * point_stride, o[j]);
    if (i == 0 || i == 5) corners = _mm256_add_ps(corners, _mm256_add_ps(o[0], o[5]));
  }
  // corners - corners is 0 when finite, NaN otherwise.
  const __m256 bad =
      _mm256_cmp_ps(_mm256_sub_ps(corners, corners), _mm256_setzero_ps(), _CMP_NEQ_UQ);
  return _mm256_movemask_ps(bad) == 0;
}

// A^T m A + bias for one tile and 8-channel block: m points at M_0's row of the tile, the
// 36 points `point_stride` floats apart; out[16][8]: the tile's 4x4 positions, row-major.
AMP_AVX2_FMA void untransform_tile(const float* m, int64_t point_stride, const float* bias,
                                   float out[16 * kLanes]) {
  __m256 t[4][6];  // t[i][j]: A^T applied down column j
  for (int j = 0; j < 6; ++j) {
    __m256 col[6];
    for (int i = 0; i < 6; ++i) col[i] = _mm256_loadu_ps(m + (i * 6 + j) * point_stride);
    __m256 o[4];
    output_transform_1d(col, o);
    for (int i = 0; i < 4; ++i) t[i][j] = o[i];
  }
  const __m256 b = bias != nullptr ? _mm256_loadu_ps(bias) : _mm256_setzero_ps();
  for (int i = 0; i < 4; ++i) {
    __m256 o[4];
    output_transform_1d(t[i], o);
    for (int j = 0; j < 4; ++j)
      _mm256_storeu_ps(out + (i * 4 + j) * kLanes, _mm256_add_ps(o[j], b));
  }
}

// AMP_CPU_WINOGRAD=0: oneDNN's direct convolution runs these instead (A/B comparisons).
bool turned_off() {
  const char* e = std::getenv("AMP_CPU_WINOGRAD");
  return e != nullptr && std::strcmp(e, "0") == 0;
}

}  // namespace

bool WinogradConv::suits(const graph::ConvAttrs& conv, ChannelLayout input) {
  const graph::Window& win = conv.window;
  if (input == ChannelLayout::kPlain || turned_off() || !cpu_has_avx2_fma() || conv.group != 1 ||
      win.rank() != 2 || !win.resolved())
    return false;
  for (size_t i = 0; i < 2; ++i)
    if (win.kernel[i] != 3 || win.strides[i] != 1 || win.dilations[i] != 1 ||
        win.pad_begin[i] < 0 || win.pad_end[i] < 0)
      return false;
  if (conv.c % kLanes != 0 || conv.m < 1) return false;
  const int64_t tiles = tiles_along(win.out_spatial[0]) * tiles_along(win.out_spatial[1]);
  if (conv.n * tiles < kMinTiles ||
      win.out_spatial[0] * win.out_spatial[1] < kMinOutputsPerTile * tiles)
    return false;
  if (!cpu_has_avx512f()) return true;
  // Against AVX-512's brgconv (header): enough channels, and U reused over enough tiles.
  const double u_bytes = static_cast<double>(kPoints * sizeof(float)) * conv.c * conv.m;
  return (conv.c >= kAvx512MinChannels || conv.c * conv.m >= kAvx512MinChannelPairs) &&
         (conv.n * tiles >= kAvx512ManyTiles ||
          u_bytes <= static_cast<double>(kAvx512UBytesPerTile * conv.n * tiles));
}

void WinogradConv::prepare(const graph::ConvAttrs& conv, const float* w,
                           const std::shared_ptr<const void>& w_owner, const float* bias,
                           ChannelLayout input, ChannelLayout output, int max_threads) {
  const graph::Window& win = conv.window;
  n_ = conv.n;
  c_ = conv.c;
  m_ = conv.m;
  h_ = win.in_spatial[0];
  w_ = win.in_spatial[1];
  oh_ = win.out_spatial[0];
  ow_ = win.out_spatial[1];
  pad_t_ = win.pad_begin[0];
  pad_l_ = win.pad_begin[1];
  tiles_y_ = tiles_along(oh_);
  tiles_x_ = tiles_along(ow_);
  ldm_ = (m_ + kLanes - 1) / kLanes * kLanes;
  in_layout_ = input;
  out_layout_ = output;
  act_ = conv.act;
  max_threads_ = std::max(1, max_threads);
  // Tiles of a block: V and M within kBlockBytes, at least one 6-row strip, at most 36.
  const int64_t per_tile = kPoints * (c_ + ldm_) * static_cast<int64_t>(sizeof(float));
  block_tiles_ =
      std::clamp<int64_t>(static_cast<int64_t>(kBlockBytes) / per_tile, 6, kMaxBlockTiles);

  bias_.assign(static_cast<size_t>(ldm_), 0.0f);
  if (bias != nullptr) std::copy(bias, bias + m_, bias_.begin());

  weights_owner_ = w_owner;
  weights_copy_.clear();
  if (!w_owner) weights_copy_.assign(w, w + m_ * c_ * 9);
  weights_ = w_owner ? w : weights_copy_.data();
  u_ = SharedConstants<FilterRecipe, std::vector<PackedGemm>>::instance().get(
      w, w_owner, FilterRecipe{m_, c_}, [&] { return transform_filters(w, m_, c_); });
}

HeldConstant WinogradConv::held_constant() const {
  size_t bytes = 0;
  if (u_)
    for (const PackedGemm& u : *u_) bytes += u.held_constant().bytes;
  return {u_.get(), bytes};
}

// One thread's V and M, rounded up to whole 64-byte lines.
size_t WinogradConv::slot_floats() const {
  const size_t floats = static_cast<size_t>(kPoints * block_tiles_ * (c_ + ldm_));
  return (floats * sizeof(float) + 63) / 64 * 64 / sizeof(float);
}

size_t WinogradConv::workspace_bytes() const {
  return slot_floats() * sizeof(float) * static_cast<size_t>(max_threads_);
}

WinogradConv::TileAt WinogradConv::tile_at(int64_t g) const {
  const int64_t per_image = tiles_y_ * tiles_x_;
  return {g / per_image, g % per_image / tiles_x_ * kTile, g % tiles_x_ * kTile};
}

// The tile's outputs of channels kb * 8 ... as a direct convolution sums them, in place of
// the transforms' (WinogradConv's header: Inf and NaN).
void WinogradConv::direct_tile(const float* x, int64_t n, int64_t oy0, int64_t ox0, int64_t kb,
                               float out[16 * kLanes]) const {
  const int64_t rows = std::min(kTile, oh_ - oy0), cols = std::min(kTile, ow_ - ox0);
  const int64_t lanes = std::min(kLanes, m_ - kb * kLanes);
  const int64_t ps = position_stride(in_layout_, c_);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      for (int64_t l = 0; l < lanes; ++l) {
        const int64_t mo = kb * kLanes + l;
        float acc = bias_[static_cast<size_t>(mo)];
        for (int64_t ci = 0; ci < c_; ++ci) {
          const float* plane =
              x + n * batch_size(in_layout_, c_, h_ * w_) + channel_offset(in_layout_, ci, h_ * w_);
          const float* g = weights_ + (mo * c_ + ci) * 9;
          for (int64_t ky = 0; ky < 3; ++ky) {
            const int64_t iy = oy0 + i + ky - pad_t_;
            if (iy < 0 || iy >= h_) continue;
            for (int64_t kx = 0; kx < 3; ++kx) {
              const int64_t ix = ox0 + j + kx - pad_l_;
              if (ix >= 0 && ix < w_) acc += plane[(iy * w_ + ix) * ps] * g[ky * 3 + kx];
            }
          }
        }
        out[(i * kTile + j) * kLanes + l] = acc;
      }
}

void WinogradConv::run_block(const float* x, float* y, int64_t first_tile, int64_t tiles, float* v,
                             float* m) const {
  const int64_t v_stride = block_tiles_ * c_, m_stride = block_tiles_ * ldm_;
  const int64_t ps_in = position_stride(in_layout_, c_), ps_out = position_stride(out_layout_, m_);
  // 1. Input transform. A tile whose patch holds an Inf or a NaN is computed directly
  // instead (header: the transforms would spread it over the whole tile).
  bool finite[kMaxBlockTiles];
  for (int64_t t = 0; t < tiles; ++t) {
    finite[t] = true;
    const auto [n, oy0, ox0] = tile_at(first_tile + t);
    const int64_t y0 = oy0 - pad_t_, x0 = ox0 - pad_l_;
    const bool edge = y0 < 0 || x0 < 0 || y0 + kPatch > h_ || x0 + kPatch > w_;
    const float* image = x + n * batch_size(in_layout_, c_, h_ * w_);
    for (int64_t cb = 0; cb < c_ / kLanes; ++cb) {
      const float* plane = image + channel_offset(in_layout_, cb * kLanes, h_ * w_);
      float* vt = v + t * c_ + cb * kLanes;
      finite[t] &= edge ? transform_patch<true>(plane, ps_in, h_, w_, y0, x0, vt, v_stride)
                        : transform_patch<false>(plane, ps_in, h_, w_, y0, x0, vt, v_stride);
    }
  }
  // 2. One product per transformed position.
  for (int64_t p = 0; p < kPoints; ++p)
    (*u_)[p].run_serial(v + p * v_stride, c_, tiles, m + p * m_stride, ldm_);
  // 3. Output transform, bias, activation, store.
  alignas(64) float out[16 * kLanes];
  const int64_t out_plane = oh_ * ow_;
  for (int64_t t = 0; t < tiles; ++t) {
    const auto [n, oy0, ox0] = tile_at(first_tile + t);
    const int64_t rows = std::min(kTile, oh_ - oy0), cols = std::min(kTile, ow_ - ox0);
    for (int64_t kb = 0; kb < ldm_ / kLanes; ++kb) {
      if (finite[t])
        untransform_tile(m + t * ldm_ + kb * kLanes, m_stride, bias_.data() + kb * kLanes, out);
      else
        direct_tile(x, n, oy0, ox0, kb, out);
      if (act_.kind != graph::ActivationKind::kNone) activate_f32(act_, out, 16 * kLanes);
      float* plane = y + n * batch_size(out_layout_, m_, out_plane) +
                     channel_offset(out_layout_, kb * kLanes, out_plane);
      // The block's channels: the last may hold fewer than 8 (not in 8-channel blocks).
      const int64_t lanes = std::min(kLanes, m_ - kb * kLanes);
      if (out_layout_ == ChannelLayout::kBlocked8) {
        for (int64_t i = 0; i < rows; ++i)
          std::copy(out + i * kTile * kLanes, out + (i * kTile + cols) * kLanes,
                    plane + ((oy0 + i) * ow_ + ox0) * kLanes);
      } else if (out_layout_ == ChannelLayout::kChannelsLast) {
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t j = 0; j < cols; ++j)
            std::copy(out + (i * kTile + j) * kLanes, out + (i * kTile + j) * kLanes + lanes,
                      plane + ((oy0 + i) * ow_ + ox0 + j) * ps_out);
      } else {
        for (int64_t l = 0; l < lanes; ++l) {
          float* channel = plane + l * out_plane;
          for (int64_t i = 0; i < rows; ++i)
            for (int64_t j = 0; j < cols; ++j)
              channel[(oy0 + i) * ow_ + ox0 + j] = out[(i * kTile + j) * kLanes + l];
        }
      }
    }
  }
}

void WinogradConv::run(const float* x, float* y, void* workspace, int threads) const {
  const int64_t total = n_ * tiles_y_ * tiles_x_;
  const int64_t slots = std::clamp<int64_t>(threads, 1, max_threads_);
  // Blocks of at most block_tiles_ tiles, as many as a multiple of the threads, as even as
  // can be.
  int64_t blocks = (total + block_tiles_ - 1) / block_tiles_;
  blocks = (blocks + slots - 1) / slots * slots;
  const size_t slot = slot_floats();
  parallel_for(
      slots, static_cast<int>(slots),
      [&](int64_t s0, int64_t s1) {
        for (int64_t s = s0; s < s1; ++s) {
          float* v = static_cast<float*>(workspace) + static_cast<size_t>(s) * slot;
          float* m = v + kPoints * block_tiles_ * c_;
          for (int64_t b = s; b < blocks; b += slots) {
            const int64_t first = total * b / blocks, last = total * (b + 1) / blocks;
            if (last > first) run_block(x, y, first, last - first, v, m);
          }
        }
      },
      1);
}

}  // namespace amp::kernels::cpu
