#include "kernels/cpu/tap_sum_conv.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "kernels/common/conv_live_taps.h"
#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/gemm_strip_avx2.h"
#include "kernels/cpu/vector_activation.h"

namespace amp::kernels::cpu {
namespace {

bool turned_off() {
  const char* e = std::getenv("AMP_CPU_TAP_SUM");
  return e != nullptr && std::strcmp(e, "0") == 0;
}

// Floats rounded up to whole 64-byte lines, so each workspace part stays aligned.
size_t whole_lines(size_t floats) {
  return (floats * sizeof(float) + 63) / 64 * 64 / sizeof(float);
}

}  // namespace

bool TapSumConv::suits(const graph::ConvAttrs& conv) {
  const graph::Window& win = conv.window;
  if (turned_off() || !cpu_has_avx2_fma() || conv.group != 1 || win.rank() != 2 ||
      !win.resolved() || conv.n < 1 || conv.c < 1 || conv.m < 1)
    return false;
  for (size_t i = 0; i < 2; ++i)
    if (win.pad_begin[i] < 0 || win.pad_end[i] < 0) return false;
  return live_share(win) <= kMaxLiveShare;
}

void TapSumConv::prepare(const graph::ConvAttrs& conv, const float* w,
                         const std::shared_ptr<const void>& w_owner, const float* bias) {
  const graph::Window& win = conv.window;
  n_ = conv.n;
  c_ = conv.c;
  m_ = conv.m;
  h_ = win.in_spatial[0];
  w_ = win.in_spatial[1];
  oh_ = win.out_spatial[0];
  ow_ = win.out_spatial[1];
  sy_ = win.strides[0];
  sx_ = win.strides[1];
  dy_ = win.dilations[0];
  dx_ = win.dilations[1];
  pad_top_ = win.pad_begin[0];
  pad_left_ = win.pad_begin[1];
  act_ = conv.act;
  share_ = live_share(win);
  bias_.assign(static_cast<size_t>(m_), 0.0f);
  if (bias != nullptr) std::copy(bias, bias + m_, bias_.begin());

  const int64_t kh = win.kernel[0], kw = win.kernel[1];
  int64_t rows = 0, narrow_rows = 0;
  taps_.clear();
  taps_.reserve(static_cast<size_t>(kh * kw));
  for (int64_t ky = 0; ky < kh; ++ky) {
    const OutputRange ys = live_outputs(win, 0, ky);
    for (int64_t kx = 0; kx < kw; ++kx) {
      const OutputRange xs = live_outputs(win, 1, kx);
      if (ys.size() == 0 || xs.size() == 0) continue;  // reads only padding
      Tap& t = taps_.emplace_back();
      t.ky = ky;
      t.kx = kx;
      t.oy0 = ys.begin;
      t.oy1 = ys.end;
      t.ox0 = xs.begin;
      t.ox1 = xs.end;
      t.row0 = rows;
      rows += t.rows();
      if (t.ox1 - t.ox0 != ow_) narrow_rows = std::max(narrow_rows, t.rows());
      // W_t[c, m] = W[m, c, ky, kx]: K = C steps kh kw apart, N = M columns C kh kw apart.
      t.w.prepare(c_, m_, w + ky * kw + kx, kh * kw, c_ * kh * kw, graph::FusedActivation{},
                  w_owner);
    }
  }
  gather_rows_.clear();
  for (size_t i = 0; i < taps_.size(); ++i)
    for (int64_t oy = taps_[i].oy0; oy < taps_[i].oy1; ++oy)
      gather_rows_.push_back({static_cast<int32_t>(i), static_cast<int32_t>(oy)});
  rows_floats_ = whole_lines(static_cast<size_t>(rows * c_));
  scratch_floats_ = whole_lines(static_cast<size_t>(narrow_rows * m_));
}

size_t TapSumConv::workspace_bytes() const {
  return (rows_floats_ + scratch_floats_) * sizeof(float);
}

void TapSumConv::held_constants(std::vector<HeldConstant>& out) const {
  for (const Tap& t : taps_) out.push_back(t.w.held_constant());
}

std::string TapSumConv::implementation() const {
  return "own tap sum, " + std::to_string(taps_.size()) + " taps over " +
         std::to_string(static_cast<int>(std::lround(share_ * 100))) +
         "% of the direct multiply-adds";
}

// Every tap's X_t of one image: row (oy - oy0) (ox1 - ox0) + (ox - ox0) of the tap's block
// is input pixel (oy sy - pad_top + ky dy, ox sx - pad_left + kx dx), inside the input by
// the rectangle's construction.
void TapSumConv::gather(const float* x, float* rows, int threads) const {
  const int64_t items = static_cast<int64_t>(gather_rows_.size());
  const size_t pixel_bytes = static_cast<size_t>(c_) * sizeof(float);
  // Output rows per thread: ~32K floats copied pay for waking one.
  const int64_t widest = ow_ * c_;
  parallel_for(
      items, threads,
      [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const Tap& t = taps_[static_cast<size_t>(gather_rows_[static_cast<size_t>(r)].tap)];
          const int64_t oy = gather_rows_[static_cast<size_t>(r)].oy;
          const int64_t width = t.ox1 - t.ox0;
          const int64_t iy = oy * sy_ - pad_top_ + t.ky * dy_;
          const int64_t ix0 = t.ox0 * sx_ - pad_left_ + t.kx * dx_;
          const float* src = x + (iy * w_ + ix0) * c_;
          float* dst = rows + (t.row0 + (oy - t.oy0) * width) * c_;
          if (sx_ == 1) {
            std::memcpy(dst, src, pixel_bytes * static_cast<size_t>(width));
          } else {
            for (int64_t i = 0; i < width; ++i)
              std::memcpy(dst + i * c_, src + i * sx_ * c_, pixel_bytes);
          }
        }
      },
      std::max<int64_t>(1, 32768 / std::max<int64_t>(1, widest)));
}

// Columns [j0, j1) of one image's y: bias, every tap's product, the activation.
void TapSumConv::multiply(const float* rows, float* y, float* scratch, int64_t j0,
                          int64_t j1) const {
  const int64_t outputs = oh_ * ow_, cols = j1 - j0;
  const size_t col_bytes = static_cast<size_t>(cols) * sizeof(float);
  for (int64_t p = 0; p < outputs; ++p) std::memcpy(y + p * m_ + j0, bias_.data() + j0, col_bytes);
  for (const Tap& t : taps_) {
    const float* x_t = rows + t.row0 * c_;
    const int64_t width = t.ox1 - t.ox0;
    if (width == ow_) {  // whole output rows: consecutive rows of y
      t.w.run_serial(x_t, c_, t.rows(), y + t.oy0 * ow_ * m_, m_, j0, j1, nullptr, true);
      continue;
    }
    t.w.run_serial(x_t, c_, t.rows(), scratch, m_, j0, j1, nullptr, false);
    for (int64_t oy = t.oy0; oy < t.oy1; ++oy)
      for (int64_t ox = t.ox0; ox < t.ox1; ++ox) {
        const float* s = scratch + ((oy - t.oy0) * width + (ox - t.ox0)) * m_ + j0;
        float* d = y + (oy * ow_ + ox) * m_ + j0;
        for (int64_t j = 0; j < cols; ++j) d[j] += s[j];
      }
  }
  if (act_.kind != graph::ActivationKind::kNone)
    for (int64_t p = 0; p < outputs; ++p) activate_f32(act_, y + p * m_ + j0, cols);
}

void TapSumConv::run(const float* x, float* y, void* workspace, int threads) const {
  float* rows = static_cast<float*>(workspace);
  float* scratch = rows + rows_floats_;
  const int64_t panels = (m_ + PackedGemm::kColumns - 1) / PackedGemm::kColumns;
  const int64_t rows_total =
      taps_.empty() ? 0 : taps_.back().row0 + taps_.back().rows();  // gathered rows
  // Panels per thread: ~32K multiply-adds pay for waking one.
  const int64_t grain =
      std::max<int64_t>(1, 32768 / std::max<int64_t>(1, rows_total * c_ * PackedGemm::kColumns));
  for (int64_t n = 0; n < n_; ++n) {
    const float* xn = x + n * h_ * w_ * c_;
    float* yn = y + n * oh_ * ow_ * m_;
    gather(xn, rows, threads);
    parallel_for(
        panels, threads,
        [&](int64_t p0, int64_t p1) {
          multiply(rows, yn, scratch, p0 * PackedGemm::kColumns,
                   std::min(m_, p1 * PackedGemm::kColumns));
        },
        grain);
  }
}

}  // namespace amp::kernels::cpu
