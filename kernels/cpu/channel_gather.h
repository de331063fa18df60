// Gather along the channels (axis 1) with constant indices, on tensors in the convolutions'
// own layout (runtime/layout_plan.h): ShuffleNet's channel shuffle and the Split after it
// (graph/passes/fuse_channel_shuffle.h) between 1x1 convolutions that then reorder nothing.
//
// Channel c at position p (spatial positions flattened) of one batch entry lies at
//   8-channel blocks [C/8, S, 8]:  (c / 8) S 8 + c % 8 + 8 p
//   channels-last    [S, C]:       c + C p
// so out[c', p] = in[idx[c'], p] is a copy from a precomputed channel offset plus p times the
// position stride, each side in its own layout (the layout plan gives input and output the
// same kind). Per position the output's channels are written in order: a block or a
// channels-last row at a time.
//
// A shuffle's group of 8 output channels takes its lanes from two windows of 8 input lanes
// at the same position (groups of 2: channels 4q..4q+3 of each half, interleaved): in
// 8-channel blocks two blocks, channels-last two unaligned runs of 8. Element by element
// that cost 0.67 ns an element, 5x the plain layout's plane copies, more than the reorders
// it saves; so a group whose lanes lie in at most two such windows is one two-source
// permute of 8 lanes per position (GCC's __builtin_shuffle: vpermps and a blend on AVX2),
// for 4-byte elements.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace amp::kernels::cpu {

class ChannelGather {
 public:
  // `idx`: normalized input channel per output channel; `blocked8`: 8-channel blocks, else
  // channels-last; `elem`: element size in bytes (2 or 4).
  void prepare(int64_t n, int64_t c_in, int64_t positions, const std::vector<int64_t>& idx,
               bool blocked8, size_t elem);
  void run(const void* in, void* out, int threads) const;

 private:
  int64_t n_ = 0, positions_ = 0;
  int64_t in_pos_ = 0, out_pos_ = 0, in_batch_ = 0, out_batch_ = 0;  // in elements
  std::vector<int64_t> src_, dst_;  // per output channel: its input's and its own offset
  size_t elem_ = 4;
  // 4-byte elements, every group of 8 output channels from at most two windows: per group,
  // the windows' and the group's offsets (in a batch entry, at position 0) and the permute
  // (lane l reads lane mask[l] of window a, or mask[l] - 8 of window b).
  struct GroupPermute {
    int64_t a = 0, b = 0, out = 0;
    int32_t mask[8] = {};
  };
  std::vector<GroupPermute> permutes_;
};

}  // namespace amp::kernels::cpu
