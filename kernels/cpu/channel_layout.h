// Where a channel of a [N, C, spatial...] tensor lies in the layouts the CPU kernels address
// element by element (runtime/layout_plan.h): plain; 8-channel blocks [N, ceil(C/8), S, 8],
// the last block padded; channels-last [N, S, C]. S is the spatial positions, flattened.
// Within one batch entry, channel c at position p is at
//   channel_offset(layout, c, S) + p * position_stride(layout, C)
// and batch entry n starts at n * batch_size(layout, C, S). The tiled ConvTranspose's copy
// (conv_transpose_tiled.h) and the channel Gather (channel_gather.h) both address so.
#pragma once

#include <cstdint>

namespace amp::kernels::cpu {

enum class ChannelLayout { kPlain, kBlocked8, kChannelsLast };

inline int64_t channel_offset(ChannelLayout layout, int64_t c, int64_t positions) {
  switch (layout) {
    case ChannelLayout::kBlocked8:
      return c / 8 * positions * 8 + c % 8;
    case ChannelLayout::kChannelsLast:
      return c;
    case ChannelLayout::kPlain:
      break;
  }
  return c * positions;
}

inline int64_t position_stride(ChannelLayout layout, int64_t channels) {
  return layout == ChannelLayout::kPlain ? 1 : layout == ChannelLayout::kBlocked8 ? 8 : channels;
}

inline int64_t batch_size(ChannelLayout layout, int64_t channels, int64_t positions) {
  return (layout == ChannelLayout::kBlocked8 ? (channels + 7) / 8 * 8 : channels) * positions;
}

}  // namespace amp::kernels::cpu
