// The AMP planner: decides fp16/bf16 vs fp32 for every node at load time, inserts the
// casts, converts weights once, and reports what it did.
//
// Algorithm (ARCHITECTURE.md "The AMP planner"; TVM AMP RFC, made better):
//   1. Color each node: casting_checker (op table + node-dependent rules), then the policy
//      overrides (op type < node name/glob < callback; amp_policy.h).
//   2. One topological pass builds the planned graph:
//        ALWAYS -> low; NEVER -> fp32;
//        FOLLOW -> low iff every float input is already low, or is a constant whose values
//                  fit the low type; else fp32 (so Concat of mixed inputs promotes).
//      A node whose low kernel does not exist on the backend falls back to fp32 (reported);
//      a node *pinned* low by an override without a kernel is an error.
//      Model Cast and CastLike nodes keep their target type; they are not colored.
//   3. Inputs are converted on demand through a cache keyed by (value, dtype): a value
//      with many consumers is cast once per dtype. Constants are converted here, at load,
//      once: a weight used only in the low type is stored only in it (the fp32 copy is
//      dropped), one used in both types keeps both. Out-of-range weights are reported,
//      and clamped to the low type's max only when the policy asks.
//   4. Graph outputs get a final cast back to their original dtype (keep_io_types) under
//      their original names; graph inputs keep their dtypes.
//   5. Cleanup (cast_cleanup.h): exact round trips low -> fp32 -> low collapse to the low
//      value; a model Cast to fp32 consumed only by an inserted cast to low is retargeted
//      to low. Lossy fp32 -> low -> fp32 pairs are never removed. Then dead code goes.
// Limits: cast placement is greedy (first consumer), not the optimal min-cut; resolution
// of accuracy problems (calibration, bisection) is a later step.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "graph/ir/graph.h"
#include "graph/passes/amp/amp_policy.h"
#include "runtime/common/status.h"

namespace amp::graph {

struct AmpNodeReport {
  std::string node;
  std::string op;
  std::string color;          // ALWAYS / FOLLOW / NEVER after overrides; "-" for non-float nodes
  std::string reason;         // why this color / this dtype
  DType dtype = DType::kF32;  // the dtype the node computes in (storage)
  bool fallback = false;      // wanted low, runs fp32
};

struct AmpReport {
  DType target = DType::kF16;
  std::vector<AmpNodeReport> nodes;
  int nodes_total = 0;  // float nodes
  int nodes_low = 0;
  int casts = 0;                   // cast nodes inserted (after cleanup)
  int64_t cast_bytes_per_run = 0;  // bytes written by inserted casts (symbolic dims as 1)
  int64_t weights_bytes_before = 0;
  int64_t weights_bytes_after = 0;
  double flops_total = 0;  // conv/matmul/gemm FLOPs (symbolic dims as 1)
  double flops_low = 0;
  int64_t weight_values_overflowed = 0;  // weight elements outside the low range
  bool weights_clamped = false;
  std::vector<AmpNodeReport> fallbacks;  // nodes that wanted low but run fp32
  double low_flops_fraction() const { return flops_total > 0 ? flops_low / flops_total : 0.0; }
};

// Whether the backend has a kernel for `node` computing in `dtype`. Null: assume yes.
using KernelAvailability = std::function<bool(const Node& node, DType dtype)>;

// Rewrites `g` into its mixed-precision plan. `g` must be shape-inferred and verified.
Result<AmpReport> plan_mixed_precision(Graph& g, const AmpPolicy& policy,
                                       const KernelAvailability& has_kernel = nullptr);

// Conv / ConvTranspose / MatMul / Gemm FLOPs of a node (0 for other ops); symbolic dims
// count as 1.
double node_flops(const Graph& g, const Node& n);

}  // namespace amp::graph
