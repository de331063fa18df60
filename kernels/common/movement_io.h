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
#include "runtime/common/host_device.h"
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

// Concat and Split: the whole tensor seen as [outer, axis, inner]; each part (a Concat
// input, a Split output) owns one contiguous block of part_sizes[k] * inner elements per
// outer index. Split's sizes come from a constant 'split' input, else from the outputs'
// static shapes (shape inference applied the opset's rules), so a run-time 'split' input
// needs no reading.
struct PartsLayout {
  size_t axis = 0;
  int64_t outer = 1, inner = 1;
  std::vector<int64_t> whole_dims;
  std::vector<int64_t> part_sizes;  // along the axis
  size_t elem_size = 0;
};
Result<PartsLayout> check_concat_io(const KernelConfig& cfg);
Result<PartsLayout> check_split_io(const KernelConfig& cfg);

// Gather: data seen as [outer, dim, inner], one inner block copied per (outer, index); the
// indices (i32 or i64, checked against dim at run) and the output data.shape[:axis] +
// indices.shape + data.shape[axis+1:] of data's dtype.
struct GatherLayout {
  int64_t outer = 1, dim = 0, inner = 1, n_idx = 0;
  size_t elem_size = 0;
  DType idx_dtype = DType::kI64;
};
Result<GatherLayout> check_gather_io(const KernelConfig& cfg);

// Range: start, limit and delta scalars, start and delta of the output's dtype, a 1-D
// output whose static length is the element count.
struct RangeShape {
  int64_t n = 0;
  DType dtype = DType::kUndefined;
};
Result<RangeShape> check_range_io(const KernelConfig& cfg);

// Input 0 and output 0 present, of one dtype (the movement ops' first check).
Status check_data_and_output(const KernelConfig& cfg);

// Trilu: `batch` matrices of rows x cols elements of `elem_size` bytes; element (i, j) is
// kept where j - i >= k (upper) or j - i <= k (lower), else zeroed. k is a constant read
// here, or a run-time i64 scalar (input 1, `k_runtime`), or 0 when absent.
struct TriluShape {
  int64_t batch = 0, rows = 0, cols = 0;
  size_t elem_size = 0;
  bool upper = true;
  bool k_runtime = false;
  int64_t k = 0;
};
Result<TriluShape> check_trilu_io(const KernelConfig& cfg);

// Whether Trilu keeps element (i, j).
AMP_HOST_DEVICE bool trilu_keeps(int64_t i, int64_t j, int64_t k, bool upper) {
  return upper ? j - i >= k : j - i <= k;
}

}  // namespace amp::kernels
