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
// In 8-channel blocks a shuffle's output block takes its lanes from two input blocks at the
// same position (groups of 2: lanes 4q..4q+3 of the first half's block and of the second
// half's, interleaved). Element by element that cost 0.67 ns an element, 5x the plain
// layout's plane copies, more than the reorders it saves; so an output block whose lanes come
// from at most two input blocks is one two-source permute of 8 lanes per position (GCC's
// __builtin_shuffle: vpermps and a blend on AVX2), for 4-byte elements.
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
  // 8-channel blocks, 4-byte elements, every output block from at most two input blocks:
  // per output block, the two blocks' offsets and the permute (lane l reads lane mask[l] of
  // a, or mask[l] - 8 of b).
  struct BlockPermute {
    int64_t a = 0, b = 0;
    int32_t mask[8] = {};
  };
  std::vector<BlockPermute> permutes_;
};

}  // namespace amp::kernels::cpu
