// What a Conv / ConvTranspose node says, read and checked the same way by every backend:
// inputs (X, W[, B]) of one dtype, 1-D to 3-D, groups that divide the channels, W and B
// dims that fit, the fused activation and the sliding window. The backends add their own
// dtype support and the output geometry their library needs.
//
//   AMP_ASSIGN_OR_RETURN(ConvParams p, read_conv_params(cfg, /*transpose=*/false, "Conv"));
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/common/elementwise_functors.h"
#include "kernels/common/window_geometry.h"
#include "kernels/kernel_registry.h"
#include "runtime/common/status.h"

namespace amp::kernels {

struct ConvParams {
  bool has_bias = false;
  int64_t group = 1;
  int64_t n = 0;                    // batch
  int64_t c = 0;                    // input channels
  int64_t m = 0;                    // output channels
  std::vector<int64_t> in_spatial;  // X's spatial dims
  std::vector<int64_t> kernel;      // W's spatial dims
  ew::Activation act;
  Window window;
};

// invalid_model / unsupported naming `op` when the node does not fit the description above.
Result<ConvParams> read_conv_params(const KernelConfig& cfg, bool transpose, const std::string& op);

}  // namespace amp::kernels
