// Buffer checks of the window ops (Conv, ConvTranspose, MaxPool, AveragePool) that every
// backend's prepare() makes alike, against the node's record (graph/ops/op_attrs.h: the
// attributes and the geometry shape inference resolved once): arity, one dtype across X,
// W, B and Y, ranks 3-5 (1-D to 3-D windows), and output dims [N, M or C, out...].
// The backends then add their own dtype support and library layout.
//
//   AMP_ASSIGN_OR_RETURN(const graph::ConvAttrs* a, check_conv_io(cfg));
//   AMP_ASSIGN_OR_RETURN(pool_, check_pool_io(cfg));  // PoolSetup
#pragma once

#include "graph/ops/op_attrs.h"
#include "kernels/common/pool_geometry.h"
#include "kernels/kernel_registry.h"
#include "runtime/common/status.h"

namespace amp::kernels {

Result<const graph::ConvAttrs*> check_conv_io(const KernelConfig& cfg);
// What both backends' pool kernels start from: the record, X's dtype and the walk of every
// window (pool_geometry.h).
struct PoolSetup {
  graph::PoolAttrs attrs;
  DType dtype = DType::kUndefined;
  PoolGeometry geom;
};
Result<PoolSetup> check_pool_io(const KernelConfig& cfg);

}  // namespace amp::kernels
