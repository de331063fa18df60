// prepare()-time checks of the reduction family alike on every backend, against the
// node's record (graph/ops/op_attrs.h).
//
//   AMP_ASSIGN_OR_RETURN(const ArgReduceShape s, check_arg_reduce_io(cfg, dtype_of<T>()));
#pragma once

#include <cstdint>

#include "amp/dtype.h"
#include "graph/ops/op_attrs.h"
#include "kernels/kernel_registry.h"
#include "runtime/common/status.h"

namespace amp::kernels {

// ArgMax / ArgMin: X [outer, len, inner] around the axis -> i64 [outer, inner].
struct ArgReduceShape {
  int64_t outer = 1, len = 1, inner = 1;
  bool select_last_index = false;
};

// Input 0 of dtype `t`, output 0 of i64 with outer * inner elements; an empty axis with a
// non-empty output has no answer.
Result<ArgReduceShape> check_arg_reduce_io(const KernelConfig& cfg, DType t);

// Softmax / LogSoftmax: input 0 / output 0 of dtype `t` and one shape; the [outer, len,
// inner] geometry shape inference resolved (SoftmaxAttrs).
Result<graph::AxisGeometry> check_softmax_io(const KernelConfig& cfg, DType t);

}  // namespace amp::kernels
