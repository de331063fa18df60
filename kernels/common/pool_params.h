// What a MaxPool / AveragePool node says, read and checked the same way by every backend:
// one input X (f32/f16/bf16; MaxPool also i8/u8) of rank 3-5, outputs Y[, Indices (i64,
// MaxPool only)], the sliding window with auto_pad and ceil_mode resolved, and output dims
// that agree with it. Backends then pick their library path or their own kernel.
//
//   AMP_ASSIGN_OR_RETURN(PoolParams p, read_pool_params(cfg, /*is_max=*/true, "MaxPool"));
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/common/window_geometry.h"
#include "kernels/kernel_registry.h"
#include "runtime/common/status.h"

namespace amp::kernels {

struct PoolParams {
  DType dtype = DType::kUndefined;
  bool with_indices = false;       // MaxPool's Indices output is present
  bool include_pad = false;        // AveragePool count_include_pad
  bool col_major_indices = false;  // MaxPool storage_order = 1
  Window window;                   // pads resolved (auto_pad, ceil_mode)
  std::vector<int64_t> in_spatial, out_spatial;
  std::vector<int64_t> y_dims;
};

Result<PoolParams> read_pool_params(const KernelConfig& cfg, bool is_max, const std::string& op);

}  // namespace amp::kernels
