// FuseMatMulBias: a MatMul by a constant weight followed by the Add of a constant bias (a
// Linear layer as every exporter writes it) becomes one Gemm, whose kernels add the bias in
// their epilogue (a oneDNN bias, a cuBLASLt bias epilogue) and to which FuseActivation can
// then attach the activation that follows (Relu, Gelu, ...):
//
//   A[B,S,K] --MatMul(W[K,N])--> --Add(b[N])-->  z[B,S,N]
// becomes
//   A --Reshape([-1,K])--> [B*S,K] --Gemm(W, b)--> [B*S,N] --Reshape([-1,S,N])--> z
//
// The Reshapes are views (no copy), and folding the leading axes into Gemm's M also gives
// the kernel one tall product instead of B short ones. A 2-D A needs no Reshape. A unary
// elementwise op that is z's only use (the activation) moves before the output Reshape
// (they commute), so that FuseActivation attaches it to the Gemm.
// Conditions: W is a 2-D constant; b is a constant of N elements whose dims are all 1 but
// the last (so the Add broadcasts nothing else); the MatMul's output has the Add as its only
// consumer and is not a graph output; A has rank >= 2, a static K, and at most one
// non-static leading dim (it becomes the -1 of the output Reshape).
#pragma once

#include "graph/passes/pass.h"

namespace amp::graph {

class FuseMatMulBias : public Pass {
 public:
  std::string_view name() const override { return "fuse-matmul-bias"; }
  Result<bool> run(Graph& g) override;
};

}  // namespace amp::graph
