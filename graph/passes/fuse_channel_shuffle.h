// FuseChannelShuffle: ShuffleNet's channel shuffle, as PyTorch (torchvision's
// channel_shuffle) and PaddlePaddle export it, becomes one Gather of the channels; a Split of
// the shuffled channels (ShuffleNetV2's next unit takes x.chunk(2, dim=1)) becomes a Gather
// per part:
//
//   x[N,C,S...] --Reshape--> [N,g,C/g,S...] --Transpose(0,2,1,3..)--> [N,C/g,g,S...]
//               --Reshape--> y[N,C,S...]
// becomes
//   x --Gather(idx, axis 1)--> y          idx[k g + j] = j (C/g) + k
// and
//   y --Split(axis 1, sizes c_0, c_1, ...)--> y_p
// becomes, when the Split is y's only reader,
//   x --Gather(idx[o_p, o_p + c_p), axis 1)--> y_p     (o_p: the parts before p)
//
// Why: three copies (the Transpose; the Reshapes are views but fix the plain layout) and a
// Split become one copy per part, and a Gather of the channels can read and write the
// convolutions' own layout (runtime/layout_plan.h), so the 1x1 convolutions around a
// ShuffleNet unit stop reordering their inputs and outputs. Backends without that layout
// run the Gather as before: the result is the same bytes.
// Conditions: static shapes; x of rank 3 to 5; the Reshapes split and merge exactly the
// channel axis; the intermediate values have one reader and are no graph outputs; Split
// along axis 1 with static part sizes. Algorithm: one pass over the nodes for the chains,
// then one for the Splits that read a chain's Gather; O(nodes).
#pragma once

#include "graph/passes/pass.h"

namespace amp::graph {

class FuseChannelShuffle : public Pass {
 public:
  std::string_view name() const override { return "fuse-channel-shuffle"; }
  Result<bool> run(Graph& g) override;
};

}  // namespace amp::graph
