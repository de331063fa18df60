// LowerEinsum: a two-operand Einsum that is a batched matrix product becomes Transposes
// around one MatMul, which runs on the backends' GEMMs (oneDNN, our packed GEMM, cuBLASLt)
// instead of Einsum's direct loop (one multiply-add per step, nothing blocked or
// vectorized across the sum). MaxViT's attention as exported, "...ihd,...jhd->...hij"-style
// products of 49 x 32 by 32 x 49 per head, ran at 0.14 GFLOP/s that way: 1.2 s a run, six
// times ONNX Runtime's.
//
// Algorithm. Each label of the resolved equation (EinsumAttrs, ellipsis dims expanded) is
//   batch  in A, B and the output    k  in A and B, not in the output (summed)
//   m      in A and the output only   n  in B and the output only
// m* and n* are the m and n labels that come last in the output; the other m and n labels
// are batch labels that one operand lacks. With L = the output's labels without m* and n*,
//   A' = Transpose(A) to [L labels A has, m*, k]     B' = Transpose(B) to [L labels B has, k, n*]
//   Y' = MatMul(A', B')  as [L, m*, n*]              Y = Transpose(Y') to the output's order
// A label of L that an operand lacks is a broadcast dim of size 1 there, which MatMul's
// rank broadcasting supplies only when those labels come first in L, so that is a condition.
// A batch label of size 1 in one operand broadcasts in MatMul as in Einsum. Identity
// Transposes are left out; the MatMul keeps the Einsum's name (policy files name nodes).
// Conditions: two operands of f32, f16 or bf16 with inferred ranks; no label twice in one
// operand (a diagonal); no label summed within one operand; exactly one k label, of the
// same size in both (static, or one named symbol); at least one m and one n label. Anything
// else keeps its Einsum. O(nodes).
#pragma once

#include "graph/passes/pass.h"

namespace amp::graph {

class LowerEinsum : public Pass {
 public:
  std::string_view name() const override { return "lower-einsum"; }
  Result<bool> run(Graph& g) override;
};

}  // namespace amp::graph
