// GlobalPoolFromReduce: a ReduceMean or ReduceMax over every spatial axis of an image or
// video tensor, keeping dims, becomes the GlobalAveragePool or GlobalMaxPool it spells:
//
//   y = ReduceMean(x[N, C, S...], axes = {2, ..., rank-1}, keepdims = 1)   (rank 4 or 5)
// becomes
//   y = GlobalAveragePool(x)                 (ReduceMax: GlobalMaxPool)
//
// Why: torch.export writes torchvision's adaptive_avg_pool2d(x, 1), the squeeze-and-
// excitation blocks of EfficientNet, MobileNetV3 and RegNet, as that ReduceMean where
// TorchScript wrote GlobalAveragePool. A global pooling reads the convolutions' own layout
// (runtime/layout_plan.h) and a reduction does not, so each convolution feeding an SE block
// wrote plain NCHW instead: EfficientNet-B0 exported by torch.export ran 34 reorders that
// its TorchScript export did not (AMD EPYC Zen 4, one thread: 15.8 ms against 14.2).
// The AMP colors agree (ReduceMean and GlobalAveragePool NEVER, ReduceMax and GlobalMaxPool
// FOLLOW), so precision plans do not change.
// Conditions: x of f32, f16, bf16 or f64 (the pools' dtypes) and static rank 4 or 5 (rank 3
// is left alone: there the last axis is both "spatial" and a transformer's hidden axis, whose
// ReduceMean is LayerNorm's and RMSNorm's); axes a constant naming exactly axes 2 to rank-1,
// in any order, negative or not; keepdims 1. Algorithm: one scan over the nodes; the node
// keeps its name and output, its axes input goes (DeadCodeElimination drops the constant).
#pragma once

#include "graph/passes/pass.h"

namespace amp::graph {

class GlobalPoolFromReduce : public Pass {
 public:
  std::string_view name() const override { return "global-pool-from-reduce"; }
  Result<bool> run(Graph& g) override;
};

}  // namespace amp::graph
