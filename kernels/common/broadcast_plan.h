// numpy (multidirectional) broadcasting, planned once in prepare() for every backend.
//
// The plan drops output axes of size 1 and merges adjacent axes along which every input is
// contiguous, so "same shape" becomes one axis, "tensor + scalar" one axis with a 0 stride,
// and "NCHW + C11" three axes (N, C, HW). The CPU loops walk it in contiguous rows; the CUDA
// kernels turn it into an OffsetCalc (at most 8 merged axes there). An empty output is one
// axis of size 0, a single element one axis of size 1 with stride 0.
//
//   AMP_ASSIGN_OR_RETURN(BroadcastPlan p, make_broadcast_plan({a.dims, b.dims}, out.dims));
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "kernels/kernel.h"
#include "runtime/common/status.h"

namespace amp::kernels {

inline constexpr int kMaxBroadcastRank = 16;  // after merging axes
inline constexpr int kMaxBroadcastInputs = 3;

struct BroadcastPlan {
  int rank = 1;  // >= 1
  int num_inputs = 0;
  int64_t numel = 0;
  std::array<int64_t, kMaxBroadcastRank> dims{};
  // Element strides of each input along the merged output axes (0 = broadcast).
  std::array<std::array<int64_t, kMaxBroadcastRank>, kMaxBroadcastInputs> strides{};

  int64_t inner_stride(int input) const { return strides[input][rank - 1]; }
};

// numpy multidirectional broadcast of `shapes`; invalid_model when they do not broadcast.
Result<std::vector<int64_t>> broadcast_dims(const std::vector<std::vector<int64_t>>& shapes);

// The plan for reading inputs of dims `inputs` broadcast to `out`. Checks that `out` is
// the broadcast of the inputs (shape inference and kernel must agree) and that the merged
// rank fits kMaxBroadcastRank.
Result<BroadcastPlan> make_broadcast_plan(const std::vector<std::vector<int64_t>>& inputs,
                                          const std::vector<int64_t>& out);
// The same without requiring `out` to be exactly the inputs' broadcast: each input only has
// to broadcast to it (a step of variadic Max/Min, whose other inputs widen the output).
Result<BroadcastPlan> make_broadcast_plan_to(const std::vector<std::vector<int64_t>>& inputs,
                                             const std::vector<int64_t>& out);

// Output 0's dims equal input 0's (unary ops); invalid_model naming both otherwise.
Status check_same_shape(const KernelConfig& cfg);

}  // namespace amp::kernels
