// A MatMul or Gemm node's operands, checked and measured the same way by every backend
// (each then lays the product out for its library: oneDNN dims and strides, cuBLASLt
// layouts and batch strides). Attributes come from the node's record (graph/ops/op_attrs.h).
//
// MatMul (numpy semantics): a 1-D A is [1, K] and a 1-D B is [K, 1]; the batch dims
// broadcast; the output is batch + [M] (when A is not 1-D) + [N] (when B is not 1-D).
// merge_batch_axes then drops batch axes of output size 1 and merges neighbours that
// broadcast alike (both operands batched, only A, only B), so the library sees as few
// batch axes as the broadcast allows.
//
// Gemm: 2-D A and B with transA / transB, Y = alpha A B + beta C, C broadcastable to
// [M, N] (ignored when beta is 0).
//
//   AMP_ASSIGN_OR_RETURN(ew::Activation act, check_matmul_io(cfg, /*gemm=*/false));
//   AMP_ASSIGN_OR_RETURN(MatMulDims d, read_matmul_dims(cfg));
//   const BatchGroups g = merge_batch_axes(d);
#pragma once

#include <cstdint>
#include <vector>

#include "amp/dtype.h"
#include "graph/ops/op_attrs.h"
#include "kernels/kernel_registry.h"
#include "runtime/common/status.h"

namespace amp::kernels {

// Inputs (A, B[, C] for Gemm) and one output, A, B and Y of one dtype; returns the
// activation fused into the node.
Result<graph::FusedActivation> check_matmul_io(const KernelConfig& cfg, bool gemm);

struct MatMulDims {
  int64_t m = 0, k = 0, n = 0;
  std::vector<int64_t> a_batch, b_batch;  // each operand's batch dims, padded to one rank
  std::vector<int64_t> batch;             // the output's (broadcast) batch dims
};

// Checks A (input 0), B (input 1) and the output dims.
Result<MatMulDims> read_matmul_dims(const KernelConfig& cfg);

// Batch axes after dropping size-1 output axes and merging alike neighbours: a[i], b[i]
// and y[i] are group i's size in A, B (1 where the operand broadcasts) and the output.
struct BatchGroups {
  std::vector<int64_t> a, b, y;
};
BatchGroups merge_batch_axes(const MatMulDims& d);

struct GemmDims {
  bool trans_a = false, trans_b = false;
  float alpha = 1.0f, beta = 1.0f;
  int64_t m = 0, k = 0, n = 0;
  bool use_c = false;      // C present and beta != 0
  int64_t cm = 1, cn = 1;  // C's dims as [cm, cn], each 1 or M / N
};

// Checks A, B, optional C (of `dtype`) and the output dims against the node's GemmAttrs.
Result<GemmDims> read_gemm_dims(const KernelConfig& cfg, DType dtype);

}  // namespace amp::kernels
