#include "kernels/common/conv_live_taps.h"

#include <algorithm>

namespace amp::kernels {
namespace {

// Whether tap t of axis i reads the input for some output position.
bool tap_is_live(const graph::Window& w, size_t i, int64_t t) {
  return live_outputs(w, i, t).size() > 0;
}

}  // namespace

OutputRange live_outputs(const graph::Window& w, size_t i, int64_t t) {
  const int64_t s = w.strides[i];
  const int64_t start = t * w.dilations[i] - w.pad_begin[i];  // input position at o = 0
  // The first o whose position is >= 0, and one past the last whose position is < in.
  const int64_t begin = start >= 0 ? 0 : (-start + s - 1) / s;
  const int64_t last = w.in_spatial[i] - 1 - start;  // o * s <= last
  if (last < 0) return {0, 0};
  return {std::min(begin, w.out_spatial[i]), std::min(last / s + 1, w.out_spatial[i])};
}

double live_share(const graph::Window& w) {
  double share = 1;
  for (size_t i = 0; i < w.rank(); ++i) {
    int64_t reached = 0;
    for (int64_t t = 0; t < w.kernel[i]; ++t) reached += live_outputs(w, i, t).size();
    const int64_t all = w.kernel[i] * w.out_spatial[i];
    share *= all > 0 ? static_cast<double>(reached) / static_cast<double>(all) : 1.0;
  }
  return share;
}

std::optional<LiveWindow> cut_to_live_taps(const graph::Window& w) {
  if (!w.resolved()) return std::nullopt;
  LiveWindow cut{w, std::vector<int64_t>(w.rank(), 0)};
  bool changed = false;
  for (size_t i = 0; i < w.rank(); ++i) {
    const int64_t k = w.kernel[i];
    int64_t t0 = 0, t1 = k - 1;
    while (t0 < k && !tap_is_live(w, i, t0)) ++t0;
    if (t0 == k) return std::nullopt;  // no tap reads the input: leave it to the kernel
    while (!tap_is_live(w, i, t1)) --t1;
    for (int64_t t = t0; t <= t1; ++t)
      if (!tap_is_live(w, i, t)) return std::nullopt;
    if (t0 == 0 && t1 == k - 1) continue;
    const int64_t pad_begin = w.pad_begin[i] - t0 * w.dilations[i];
    const int64_t pad_end = w.pad_end[i] - (k - 1 - t1) * w.dilations[i];
    if (pad_begin < 0 || pad_end < 0) return std::nullopt;
    cut.window.kernel[i] = t1 - t0 + 1;
    cut.window.pad_begin[i] = pad_begin;
    cut.window.pad_end[i] = pad_end;
    if (cut.window.kernel[i] == 1) cut.window.dilations[i] = 1;
    cut.first[i] = t0;
    changed = true;
  }
  if (!changed) return std::nullopt;
  return cut;
}

}  // namespace amp::kernels
