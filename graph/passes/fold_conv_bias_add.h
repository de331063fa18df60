// FoldAddIntoConvBias: a Conv (or ConvTranspose) followed by the Add of a constant that is
// one value per output channel becomes one Conv with that constant in its bias. Exporters
// that keep the bias apart write this (CNTK's mnist-8, TensorFlow's BiasAdd through tf2onnx,
// Caffe2): without the fold, the Add is a full pass over the output, and the activation
// after it cannot become the convolution's epilogue (FuseActivation runs after this pass).
//
//   X --Conv(W[, B])--> y --Add(c)--> z      becomes      X --Conv(W, B')--> z
//                                                         B'[o] = B[o] (0 without) + c[o]
//
// Conditions: y, W, B and c are f32; B (if present) and c are constants; c's dims, aligned
// to y's from the right, are 1 everywhere but the channel axis (1), where they are M (the
// output channels) or 1 (one value for all channels); y has no other consumer and is not a
// graph output. The sum is rounded once to f32, so z may differ from the unfused graph by one
// rounding of the bias (as in every runtime that folds it). B' is a new constant: a bias
// shared with another node is never changed behind its back.
#pragma once

#include "graph/passes/pass.h"

namespace amp::graph {

class FoldAddIntoConvBias : public Pass {
 public:
  std::string_view name() const override { return "fold-add-into-conv-bias"; }
  Result<bool> run(Graph& g) override;
};

}  // namespace amp::graph
