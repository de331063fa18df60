// prepare()-time checks and geometry of the movement ops that both backends share, from
// the node's record (graph/ops/op_attrs.h) and the static dims. Each backend then builds
// its own copy plan (the CPU's StridedView, CUDA's CopyPlan) with its own rank cap.
//
//   AMP_ASSIGN_OR_RETURN(const PermutedCopy p, check_permute_io(cfg));
//   view_ = make_strided_view(p.rank(), p.dims.data(), p.strides.data(), 0);
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/kernel_registry.h"
#include "runtime/common/status.h"

namespace amp::kernels {

// Transpose and DepthToSpace (PermuteAttrs): a strided read of the input, output axis i
// spanning dims[i] elements `strides[i]` apart in the input.
struct PermutedCopy {
  std::vector<int64_t> dims, strides;
  int rank() const { return static_cast<int>(dims.size()); }
};
Result<PermutedCopy> check_permute_io(const KernelConfig& cfg);

// Tile: input and output of one rank and dtype, each output dim a whole repeat of the
// input's (and, when the repeats input is a constant, exactly that repeat).
struct TileShape {
  std::vector<int64_t> in_dims, out_dims;
  int rank() const { return static_cast<int>(in_dims.size()); }
};
Result<TileShape> check_tile_io(const KernelConfig& cfg);

}  // namespace amp::kernels
