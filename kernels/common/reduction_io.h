// prepare()-time checks of the reduction family alike on every backend, against the
// node's record (graph/ops/op_attrs.h).
//
//   AMP_ASSIGN_OR_RETURN(const ArgReduceShape s, check_arg_reduce_io(cfg, dtype_of<T>()));
#pragma once

#include <cstdint>
#include <vector>

#include "amp/dtype.h"
#include "graph/ops/op_attrs.h"
#include "kernels/common/reduce_plan.h"
#include "kernels/kernel_registry.h"
#include "runtime/common/status.h"

namespace amp::kernels {

// ArgMax / ArgMin: X [outer, len, inner] around the axis -> i64 [outer, inner].
struct ArgReduceShape {
  int64_t outer = 1, len = 1, inner = 1;
  bool select_last_index = false;
  bool smallest = false;  // ArgMin
};

// Input 0 of dtype `t`, output 0 of i64 with outer * inner elements; an empty axis with a
// non-empty output has no answer.
Result<ArgReduceShape> check_arg_reduce_io(const KernelConfig& cfg, DType t);

// Softmax / LogSoftmax: input 0 / output 0 of dtype `t` and one shape; the [outer, len,
// inner] geometry shape inference resolved (SoftmaxAttrs).
Result<graph::AxisGeometry> check_softmax_io(const KernelConfig& cfg, DType t);

// Reduce* over a set of axes (reduction_family.def): input and output of the kernel's dtype
// and rank <= kReduceMaxRank, keepdims and noop_with_empty_axes from the node's record, the
// optional axes input (i64, 1-D; absent or empty: every axis, or none with noop).
struct ReduceAxesShape {
  std::vector<int64_t> in_dims, out_dims;
  int rank = 0;
  int64_t in_numel = 0;
  bool keepdims = true;
  bool noop_empty = false;
  int64_t axes_len = 0;
  bool runtime_axes = false;            // non-empty axes computed at run time
  const int64_t* const_axes = nullptr;  // constant axes (valid during prepare() only)
};
Result<ReduceAxesShape> check_reduce_axes_io(const KernelConfig& cfg, DType t);

// Marks `axes` (each in [-rank, rank), no repeats) in `flags`; invalid_input otherwise.
Status reduce_axes_flags(const int64_t* axes, int64_t n, int rank, bool* flags);

// invalid_input unless the output dims the flags imply are the planned ones.
Status check_reduced_shape(const ReduceAxesShape& s, const bool* flags);

// The plan of constant or absent axes; *copy when there is nothing to reduce
// (noop_with_empty_axes). invalid_model when the axes do not give the output shape.
Result<ReducePlan> plan_constant_axes(const ReduceAxesShape& s, bool* copy);

// GlobalAveragePool: [N, C, D1..Dk] -> N*C planes of `spatial` contiguous elements each.
struct GlobalPoolShape {
  int64_t planes = 0, spatial = 1;
  bool max = false;  // GlobalMaxPool, else the average
};
Result<GlobalPoolShape> check_global_pool_io(const KernelConfig& cfg, DType t);

}  // namespace amp::kernels
