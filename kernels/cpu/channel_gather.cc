#include "kernels/cpu/channel_gather.h"

#include <algorithm>
#include <cstring>

#include "kernels/cpu/channel_layout.h"
#include "kernels/cpu/cpu_common.h"

namespace amp::kernels::cpu {
namespace {

template <typename E>
void gather_positions(const E* __restrict__ in, E* __restrict__ out, const int64_t* src,
                      const int64_t* dst, int64_t channels, int64_t in_pos, int64_t out_pos,
                      int64_t begin, int64_t end) {
  for (int64_t p = begin; p < end; ++p) {
    const E* i = in + p * in_pos;
    E* o = out + p * out_pos;
    for (int64_t c = 0; c < channels; ++c) o[dst[c]] = i[src[c]];
  }
}

typedef uint32_t Lanes8 __attribute__((vector_size(32)));
typedef int32_t LaneMask8 __attribute__((vector_size(32)));

// One group of 8 output channels at positions [begin, end): out = shuffle(a, b, mask).
AMP_ISA_CLONES void permute_positions(const uint32_t* __restrict__ a,
                                      const uint32_t* __restrict__ b, const int32_t* mask_lanes,
                                      uint32_t* __restrict__ out, int64_t in_pos, int64_t out_pos,
                                      int64_t begin, int64_t end) {
  LaneMask8 mask;
  std::memcpy(&mask, mask_lanes, sizeof(mask));
  for (int64_t p = begin; p < end; ++p) {
    Lanes8 va, vb;
    std::memcpy(&va, a + p * in_pos, sizeof(va));
    std::memcpy(&vb, b + p * in_pos, sizeof(vb));
#if defined(__clang__)
    // clang has no __builtin_shuffle with a run-time mask; only its fuzz and sanitizer
    // builds of this project get here. GCC's semantics: lane m of (a, b), m modulo 16.
    Lanes8 r;
    for (int l = 0; l < 8; ++l) {
      const int m = mask[l] & 15;
      r[l] = m < 8 ? va[m] : vb[m - 8];
    }
#else
    const Lanes8 r = __builtin_shuffle(va, vb, mask);
#endif
    std::memcpy(out + p * out_pos, &r, sizeof(r));
  }
}

// Where 8 consecutive input lanes that hold channel s start (a block, or channels-last 8
// channels from s on, kept inside the position's channels), as a channel number.
int64_t window_start(int64_t s, int64_t c_in, bool blocked8) {
  return blocked8 ? s / 8 * 8 : std::min(s, c_in - 8);
}

}  // namespace

void ChannelGather::prepare(int64_t n, int64_t c_in, int64_t positions,
                            const std::vector<int64_t>& idx, bool blocked8, size_t elem) {
  n_ = n;
  positions_ = positions;
  elem_ = elem;
  const int64_t c_out = static_cast<int64_t>(idx.size());
  const ChannelLayout layout = blocked8 ? ChannelLayout::kBlocked8 : ChannelLayout::kChannelsLast;
  in_pos_ = position_stride(layout, c_in);
  out_pos_ = position_stride(layout, c_out);
  in_batch_ = batch_size(layout, c_in, positions);
  out_batch_ = batch_size(layout, c_out, positions);
  src_.resize(idx.size());
  dst_.resize(idx.size());
  for (int64_t c = 0; c < c_out; ++c) {
    src_[static_cast<size_t>(c)] = channel_offset(layout, idx[static_cast<size_t>(c)], positions);
    dst_[static_cast<size_t>(c)] = channel_offset(layout, c, positions);
  }
  // Two-source permutes: each group of 8 output channels from at most two windows of 8
  // input lanes at the same position.
  permutes_.clear();
  if (elem != 4 || c_out % 8 != 0 || c_in < 8) return;
  for (int64_t q = 0; q < c_out / 8; ++q) {
    GroupPermute gp;
    int64_t start[2] = {-1, -1};
    for (int l = 0; l < 8; ++l) {
      const int64_t s = idx[static_cast<size_t>(q * 8 + l)];
      int which = -1;
      for (int w = 0; w < 2 && which < 0; ++w)
        if (start[w] >= 0 && s >= start[w] && s < start[w] + 8) which = w;
      if (which < 0) {
        which = start[0] < 0 ? 0 : start[1] < 0 ? 1 : -1;
        if (which < 0) {  // a third window: element by element for the whole gather
          permutes_.clear();
          return;
        }
        start[which] = window_start(s, c_in, blocked8);
      }
      gp.mask[l] = static_cast<int32_t>(which * 8 + (s - start[which]));
    }
    if (start[1] < 0) start[1] = start[0];
    gp.a = channel_offset(layout, start[0], positions);
    gp.b = channel_offset(layout, start[1], positions);
    gp.out = channel_offset(layout, q * 8, positions);
    permutes_.push_back(gp);
  }
}

void ChannelGather::run(const void* in, void* out, int threads) const {
  const int64_t channels = static_cast<int64_t>(src_.size());
  if (!permutes_.empty()) {
    const int64_t groups = static_cast<int64_t>(permutes_.size());
    parallel_for(
        n_ * groups, threads,
        [&](int64_t begin, int64_t end) {
          for (int64_t t = begin; t < end; ++t) {
            const int64_t entry = t / groups;
            const GroupPermute& gp = permutes_[static_cast<size_t>(t % groups)];
            const uint32_t* x = static_cast<const uint32_t*>(in) + entry * in_batch_;
            permute_positions(x + gp.a, x + gp.b, gp.mask,
                              static_cast<uint32_t*>(out) + entry * out_batch_ + gp.out, in_pos_,
                              out_pos_, 0, positions_);
          }
        },
        std::max<int64_t>(1, 4096 / std::max<int64_t>(positions_, 1)));
    return;
  }
  const int64_t total = n_ * positions_;
  parallel_for(
      total, threads,
      [&](int64_t begin, int64_t end) {
        // Split at batch entries: positions of one entry share the base offsets.
        for (int64_t b = begin; b < end;) {
          const int64_t entry = b / positions_;
          const int64_t stop = std::min(end, (entry + 1) * positions_);
          const int64_t p0 = b - entry * positions_, p1 = stop - entry * positions_;
          if (elem_ == 2)
            gather_positions(static_cast<const uint16_t*>(in) + entry * in_batch_,
                             static_cast<uint16_t*>(out) + entry * out_batch_, src_.data(),
                             dst_.data(), channels, in_pos_, out_pos_, p0, p1);
          else
            gather_positions(static_cast<const uint32_t*>(in) + entry * in_batch_,
                             static_cast<uint32_t*>(out) + entry * out_batch_, src_.data(),
                             dst_.data(), channels, in_pos_, out_pos_, p0, p1);
          b = stop;
        }
      },
      std::max<int64_t>(1, 16384 / std::max<int64_t>(channels, 1)));
}

}  // namespace amp::kernels::cpu
