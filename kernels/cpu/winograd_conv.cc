#include "kernels/cpu/winograd_conv.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/gemm_strip_avx2.h"
#include "kernels/cpu/gemm_strip_avx512.h"
#include "kernels/cpu/shared_constants.h"
#include "kernels/cpu/vector_activation.h"
#include "kernels/cpu/winograd_direct_tile.h"
#include "kernels/cpu/winograd_transforms.h"

namespace amp::kernels::cpu {
namespace {

constexpr int64_t kTile = 4;                // outputs per tile side
constexpr int64_t kPatch = 6;               // inputs per tile side: kTile + 3 - 1
constexpr int64_t kPoints = 36;             // kPatch^2 transformed positions
constexpr int64_t kLanes = 8;               // channels per block, one AVX2 register
constexpr int64_t kWideLanes = 16;          // channels per AVX-512 register
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
  // U reused over enough tiles (header), on both ISAs; against AVX-512's brgconv also
  // enough channels.
  const double u_bytes = static_cast<double>(kPoints * sizeof(float)) * conv.c * conv.m;
  const bool u_pays = conv.n * tiles >= kManyTiles ||
                      u_bytes <= static_cast<double>(kUBytesPerTile * conv.n * tiles);
  if (!cpu_has_avx512f()) return u_pays;
  return conv.c >= kAvx512MinChannels && u_pays;
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
  // 16 lanes on AVX-512 (winograd_transforms.h): channels-last input is read 16 channels at
  // a time (8-channel blocks cannot be), any output but 8-channel blocks written so.
  wide_in_ = cpu_has_avx512f() && input == ChannelLayout::kChannelsLast;
  wide_out_ = cpu_has_avx512f() && output != ChannelLayout::kBlocked8;
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

std::string WinogradConv::implementation() const {
  std::string s = "own Winograd F(4x4, 3x3), ";
  s += !cpu_has_avx512f() ? "avx2" : wide_in_ ? "avx512" : "avx2 transforms, avx512 products";
  s += in_layout_ == ChannelLayout::kBlocked8 ? ", 8-channel blocks" : ", channels-last";
  if (out_layout_ == ChannelLayout::kPlain) s += " to a plain output";
  return s;
}

// One thread's V, M and one group's transposed weights (direct_tiles), rounded up to whole
// 64-byte lines.
size_t WinogradConv::slot_floats() const {
  const size_t floats =
      static_cast<size_t>(kPoints * block_tiles_ * (c_ + ldm_) + c_ * 9 * kWideLanes);
  return (floats * sizeof(float) + 63) / 64 * 64 / sizeof(float);
}

size_t WinogradConv::workspace_bytes() const {
  return slot_floats() * sizeof(float) * static_cast<size_t>(max_threads_);
}

WinogradConv::TileAt WinogradConv::tile_at(int64_t g) const {
  const int64_t per_image = tiles_y_ * tiles_x_;
  return {g / per_image, g % per_image / tiles_x_ * kTile, g % tiles_x_ * kTile};
}

// The width of the channel group at m0 in the output transform and the direct tiles: 16 on
// AVX-512 unless the output is in 8-channel blocks, else (and for a last group of 8) 8.
int64_t WinogradConv::group_width(int64_t m0) const {
  return wide_out_ && m0 + kWideLanes <= ldm_ ? kWideLanes : kLanes;
}

// Tiles whose patch holds an Inf or a NaN (finite[t] false): their outputs summed directly
// (header), written over the tile's first 16 points of M (bias included). Group by group,
// so that each group's weights are transposed once per block, into `wt`.
void WinogradConv::direct_tiles(const float* x, int64_t first_tile, int64_t tiles,
                                const bool finite[], float* m, float* wt) const {
  const int64_t m_stride = block_tiles_ * ldm_;
  for (int64_t m0 = 0; m0 < ldm_;) {
    const int64_t width = group_width(m0);
    for (int64_t ci = 0; ci < c_; ++ci)
      for (int64_t tap = 0; tap < 9; ++tap)
        for (int64_t l = 0; l < width; ++l)
          wt[(ci * 9 + tap) * width + l] =
              m0 + l < m_ ? weights_[((m0 + l) * c_ + ci) * 9 + tap] : 0.0f;
    for (int64_t t = 0; t < tiles; ++t) {
      if (finite[t]) continue;
      const auto [n, oy0, ox0] = tile_at(first_tile + t);
      const float* image = x + n * batch_size(in_layout_, c_, h_ * w_);
      float* mt = m + t * ldm_ + m0;
      if (width == kWideLanes)
        winograd::direct_tile16(image, in_layout_, c_, h_, w_, oy0 - pad_t_, ox0 - pad_l_, wt,
                                bias_.data() + m0, mt, m_stride);
      else
        winograd::direct_tile8(image, in_layout_, c_, h_, w_, oy0 - pad_t_, ox0 - pad_l_, wt,
                               bias_.data() + m0, mt, m_stride);
    }
    m0 += width;
  }
}

void WinogradConv::run_block(const float* x, float* y, int64_t first_tile, int64_t tiles, float* v,
                             float* m) const {
  const int64_t v_stride = block_tiles_ * c_, m_stride = block_tiles_ * ldm_;
  const int64_t ps_in = position_stride(in_layout_, c_), ps_out = position_stride(out_layout_, m_);
  // 1. Input transform, 16 channels at a time where the input allows (wide_in_), then 8. A
  // tile whose patch holds an Inf or a NaN is computed directly instead (header: the
  // transforms would spread it over the whole tile).
  bool finite[kMaxBlockTiles];
  for (int64_t t = 0; t < tiles; ++t) {
    finite[t] = true;
    const auto [n, oy0, ox0] = tile_at(first_tile + t);
    const int64_t y0 = oy0 - pad_t_, x0 = ox0 - pad_l_;
    const bool edge = y0 < 0 || x0 < 0 || y0 + kPatch > h_ || x0 + kPatch > w_;
    const float* image = x + n * batch_size(in_layout_, c_, h_ * w_);
    int64_t c0 = 0;
    for (; wide_in_ && c0 + kWideLanes <= c_; c0 += kWideLanes) {
      const float* plane = image + channel_offset(in_layout_, c0, h_ * w_);
      float* vt = v + t * c_ + c0;
      finite[t] &=
          edge ? winograd::transform_patch16<true>(plane, ps_in, h_, w_, y0, x0, vt, v_stride)
               : winograd::transform_patch16<false>(plane, ps_in, h_, w_, y0, x0, vt, v_stride);
    }
    for (; c0 < c_; c0 += kLanes) {
      const float* plane = image + channel_offset(in_layout_, c0, h_ * w_);
      float* vt = v + t * c_ + c0;
      finite[t] &=
          edge ? winograd::transform_patch8<true>(plane, ps_in, h_, w_, y0, x0, vt, v_stride)
               : winograd::transform_patch8<false>(plane, ps_in, h_, w_, y0, x0, vt, v_stride);
    }
  }
  // 2. One product per transformed position; the tiles flagged in 1 summed directly.
  for (int64_t p = 0; p < kPoints; ++p)
    (*u_)[p].run_serial(v + p * v_stride, c_, tiles, m + p * m_stride, ldm_);
  if (!std::all_of(finite, finite + tiles, [](bool f) { return f; }))
    direct_tiles(x, first_tile, tiles, finite, m, m + kPoints * m_stride);
  // 3. Output transform, bias, activation, store: 16 channels at a time where the output
  // allows (wide_out_), then 8.
  alignas(64) float out[16 * kWideLanes];
  const int64_t out_plane = oh_ * ow_;
  for (int64_t t = 0; t < tiles; ++t) {
    const auto [n, oy0, ox0] = tile_at(first_tile + t);
    const int64_t rows = std::min(kTile, oh_ - oy0), cols = std::min(kTile, ow_ - ox0);
    for (int64_t m0 = 0; m0 < ldm_;) {
      const int64_t width = group_width(m0);
      const float* mt = m + t * ldm_ + m0;
      if (!finite[t]) {  // summed in 2
        for (int64_t p = 0; p < 16; ++p)
          std::copy(mt + p * m_stride, mt + p * m_stride + width, out + p * width);
      } else if (width == kWideLanes)
        winograd::untransform_tile16(mt, m_stride, bias_.data() + m0, out);
      else
        winograd::untransform_tile8(mt, m_stride, bias_.data() + m0, out);
      if (act_.kind != graph::ActivationKind::kNone) activate_f32(act_, out, 16 * width);
      float* plane = y + n * batch_size(out_layout_, m_, out_plane) +
                     channel_offset(out_layout_, m0, out_plane);
      // The group's channels: the last may hold fewer (not in 8-channel blocks).
      const int64_t lanes = std::min(width, m_ - m0);
      if (out_layout_ == ChannelLayout::kBlocked8) {  // width 8 (wide_out_ is off)
        for (int64_t i = 0; i < rows; ++i)
          std::copy(out + i * kTile * kLanes, out + (i * kTile + cols) * kLanes,
                    plane + ((oy0 + i) * ow_ + ox0) * kLanes);
      } else if (out_layout_ == ChannelLayout::kChannelsLast) {
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t j = 0; j < cols; ++j)
            std::copy(out + (i * kTile + j) * width, out + (i * kTile + j) * width + lanes,
                      plane + ((oy0 + i) * ow_ + ox0 + j) * ps_out);
      } else {
        for (int64_t l = 0; l < lanes; ++l) {
          float* channel = plane + l * out_plane;
          for (int64_t i = 0; i < rows; ++i)
            for (int64_t j = 0; j < cols; ++j)
              channel[(oy0 + i) * ow_ + ox0 + j] = out[(i * kTile + j) * width + l];
        }
      }
      m0 += width;
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
