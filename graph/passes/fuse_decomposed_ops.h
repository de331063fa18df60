// FuseDecomposedOps: the elementwise spellings that exporters write for ops we run as one
// kernel become that op again, so a model exported for an old opset runs (and is colored
// by the AMP planner) like one exported with the op:
//
//   LayerNormalization  m = ReduceMean(x); d = x - m;
//                       y = d / Sqrt(ReduceMean(d^2) + eps) [* gamma] [+ beta]
//                       (d^2 as Pow(d, 2) or d * d; both means over the last axis only,
//                       keepdims; gamma / beta constants of the last axis' size)
//   Gelu                x * 0.5 * (1 + Erf(x / sqrt 2))      (x / sqrt 2 also x * (1/sqrt 2))
//   Gelu(tanh)          x * 0.5 * (1 + Tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
//                       (x^3 as Pow(x, 3) or x * x * x)
//   HardSwish           x * Clip(x + 3, 0, 6) / 6             (/ 6 also * (1/6))
//                       x * HardSigmoid(x; alpha 1/6, beta 1/2)
//   Attention           Reshape(Transpose(MatMul(Softmax(MatMul(Q, K^T) [/ c | * c]
//                       [+ mask]), V), 0213), [B, S, H*Dv]) with Q, K^T, V the heads of
//                       3-D q, k, v: Transpose(Reshape(x, [B, S, H, D]), 0213), K^T by
//                       perm 0231 or by 0213 then 0132 (PyTorch's permute + transpose);
//                       becomes Attention(q, k, v[, mask]) with q/kv_num_heads H and scale
//                       1/c, c or 1 (the mask as long as the keys in its last axis); in
//                       place of "+ mask", Where(mask, scores, fill) with a constant bool
//                       mask holding a True in every row and fill <= -1e4 (GPT-2's causal
//                       mask) becomes the bool mask, or is_causal = 1 when it is exactly
//                       the lower triangle of square scores. torch.export's spelling of
//                       scaled_dot_product_attention (every Hugging Face model through
//                       torch.onnx.export(dynamo=True)) matches too: Q and K^T each times a
//                       scalar (the scale is their product), K^T as Reshape [B H, S, D],
//                       Transpose 0 2 1, Reshape [B, H, D, S] of the key heads, Where(IsNaN(P),
//                       0, P) after the Softmax (the zeros Attention gives a fully masked
//                       row; a row made NaN by a NaN in q or k gives NaN instead), a Reshape
//                       of the heads' output to its own shape (Whisper), and a merge to
//                       another shape than [B, S, H*Dv] ([B S, H*Dv] for GPT-2's Gemm: the
//                       Attention node takes the Transpose's place, the Reshape stays).
//                       Where Q, K or V is no head split of a 3-D tensor (Llama's rotary
//                       embedding on the heads) or the output is not merged back, the
//                       product becomes Attention's 4-D form over the [B, H, S, D] tensors
//                       in MatMul(P, V)'s place; grouped kv heads repeated by Hugging Face's
//                       repeat_kv (Unsqueeze at axis 2, Expand, Reshape) go in unrepeated
//                       (kv_num_heads < q_num_heads); an Attention node the exporter
//                       wrote over such repeated heads takes them unrepeated too
// The trailing "* 0.5" of Gelu may come first or last: (x * 0.5) * (1 + ...) and
// (x * (1 + ...)) * 0.5 both match; every Add and Mul matches with its operands swapped.
//
// Algorithm: one scan in node order. Each pattern is anchored at its most distinctive node
// (Div / Erf / Tanh / Clip / HardSigmoid / Softmax) and matched backwards to x through the
// producers and forwards to its last node through sole consumers. A match is applied only when
// every value it computes except the last node's output is used by the match alone and is not a
// graph output (the fused op does not produce it), every scalar constant is within 1e-4
// (relative) of the value the formula needs (Attention takes its scale as written), and
// none of its nodes is in an earlier match.
// The last node keeps its name and output and becomes the fused op; the other nodes go.
// Runs before FuseActivation, so a HardSwish after a Conv then becomes its epilogue.
#pragma once

#include "graph/passes/pass.h"

namespace amp::graph {

class FuseDecomposedOps : public Pass {
 public:
  std::string_view name() const override { return "fuse-decomposed-ops"; }
  Result<bool> run(Graph& g) override;
};

}  // namespace amp::graph
