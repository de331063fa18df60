// How to walk a reduction over any set of axes, shared by the CPU and CUDA reduction
// families (ReduceSum/Mean/Max/..., the normalizations' statistics): size-1 dims dropped,
// adjacent dims of the same kind (kept / reduced) merged. Two shapes result:
//   inner_reduced: each output reduces contiguous runs of `inner` elements, one per index
//     of the other reduced dims ("red"), at offsets from the kept dims ("kept");
//   otherwise: the innermost `inner` elements are kept and contiguous in input and output;
//     each output row (index over "kept") accumulates whole rows over "red".
// Built without allocation, so a kernel's run() can build one from run-time axes, and a
// plain struct, so CUDA kernels take it by value (this header compiles as C++17 for nvcc).
//
//   const ReducePlan p = make_reduce_plan(dims, reduced, rank);
#pragma once

#include <cstdint>

#include "runtime/common/status.h"

namespace amp::kernels {

// Reductions of higher rank are rejected in prepare (no real model comes close).
inline constexpr int kReduceMaxRank = 8;

struct ReducePlan {
  bool inner_reduced = true;
  int64_t inner = 1;
  int n_kept = 0;
  int64_t kept_dims[kReduceMaxRank] = {};
  int64_t kept_strides[kReduceMaxRank] = {};  // input strides
  int n_red = 0;
  int64_t red_dims[kReduceMaxRank] = {};
  int64_t red_strides[kReduceMaxRank] = {};
  int64_t kept_count = 1;   // product of kept_dims
  int64_t red_count = 1;    // product of red_dims
  int64_t reduce_size = 1;  // elements reduced into each output (for the mean)
};

// dims/reduced: the input's dims and which are reduced (rank <= kReduceMaxRank).
ReducePlan make_reduce_plan(const int64_t* dims, const bool* reduced, int rank);

// An axis in [-rank, rank) normalized to [0, rank); invalid_model naming `what` otherwise.
Result<int64_t> normalize_axis_attr(int64_t axis, int64_t rank, const char* what);

}  // namespace amp::kernels
