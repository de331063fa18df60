// Softmax and LogSoftmax read their input as [outer, len, inner] and normalize along len,
// for every backend:
//   opset >= 13 (and nodes without an opset, op_version 0): along `axis` (default -1);
//   opset < 13: the input viewed as 2-D [prod(dims[:axis]), prod(dims[axis:])], `axis`
//   default 1 (axis == rank allowed), each whole row normalized (inner = 1).
// A scalar is one row of length 1.
//
//   AMP_ASSIGN_OR_RETURN(SoftmaxGeometry g, softmax_geometry(cfg));
#pragma once

#include <cstdint>

#include "kernels/kernel.h"
#include "runtime/common/status.h"

namespace amp::kernels {

struct SoftmaxGeometry {
  int64_t outer = 1;
  int64_t len = 1;
  int64_t inner = 1;
};

// From the node's opset and `axis` and input 0's dims; invalid_model for an axis out of
// range or an output shape other than the input's.
Result<SoftmaxGeometry> softmax_geometry(const KernelConfig& cfg);

}  // namespace amp::kernels
