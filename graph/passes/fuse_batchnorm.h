// FoldBatchNormIntoConv: Conv or ConvTranspose followed by an inference BatchNormalization
// becomes one Conv (ConvTranspose) with rescaled weights and a new bias (what every fast
// runtime does first; a DB text detector's head and a U-Net decoder put the BN after a
// ConvTranspose).
//
//   X --Conv(W, B)--> y --BatchNormalization(s, b, m, v, eps)--> z
// becomes
//   X --Conv(W', B')--> z      W'[o] = W[o] * s[o] / sqrt(v[o] + eps)
//                              B'[o] = (B[o] - m[o]) * s[o] / sqrt(v[o] + eps) + b[o]
//
// W[o] is every weight of output channel o: Conv W [M, C/group, k...] holds them in row o,
// ConvTranspose W [C, M/group, k...] in column o % (M/group) of its group's rows
// (ConvWeightChannels, pass_util.h).
//
// Conditions: W, B (if present) and all BN parameters are f32 constants; y has no other
// consumer and is not a graph output; the BN has one output. The arithmetic is done in
// double and rounded once to f32. New weights are new constants (the old ones are dropped
// when unused), so a weight shared by two convs is never modified behind the other's back.
#pragma once

#include "graph/passes/pass.h"

namespace amp::graph {

class FoldBatchNormIntoConv : public Pass {
 public:
  std::string_view name() const override { return "fold-batchnorm-into-conv"; }
  Result<bool> run(Graph& g) override;
};

}  // namespace amp::graph
