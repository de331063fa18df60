// prepare()-time checks of the normalization kernels, alike on every backend, against the
// node's record (graph/ops/op_attrs.h, NormAttrs):
//   channel norms (BatchNormalization: scale, B, mean, var; InstanceNormalization: scale,
//   B) read X [N, C, D...] as N*C planes of the spatial size, with per-channel float
//   parameters of any float dtype;
//   LayerNormalization reads X as [outer, n] rows and may write the float statistics
//   Mean / InvStdDev (outputs 1, 2) of `outer` elements each.
//
//   AMP_ASSIGN_OR_RETURN(const ChannelNormShape s, check_channel_norm_io(cfg, dtype_of<T>(), 4));
#pragma once

#include <cstdint>
#include <vector>

#include "amp/dtype.h"
#include "kernels/kernel_registry.h"
#include "runtime/common/status.h"

namespace amp::kernels {

struct ChannelNormShape {
  float epsilon = 0.0f;
  int64_t channels = 0, planes = 0, spatial = 0;
  DType param_dtype[4] = {};  // of inputs 1..num_params
};

// Input 0 / output 0 of dtype `t` and one shape; inputs 1..num_params present, each a
// float tensor of C elements.
Result<ChannelNormShape> check_channel_norm_io(const KernelConfig& cfg, DType t, size_t num_params);

// The two channel norms' checks, for CheckedKernel (checked_kernel.h).
inline Result<ChannelNormShape> check_batch_norm_io(const KernelConfig& cfg, DType t) {
  return check_channel_norm_io(cfg, t, 4);  // scale, B, mean, var
}
inline Result<ChannelNormShape> check_instance_norm_io(const KernelConfig& cfg, DType t) {
  return check_channel_norm_io(cfg, t, 2);  // scale, B
}

struct LayerNormShape {
  float epsilon = 0.0f;
  int64_t outer = 1, n = 1;
  std::vector<int64_t> norm_dims;  // dims[axis:]
  DType stat_dtype[2] = {};        // Mean, InvStdDev; kUndefined when absent
  bool rms = false;                // RMSNormalization: no mean subtracted, no B
};

// LayerNormalization and RMSNormalization: input 0 / output 0 of dtype `t` and one shape,
// Scale present, float statistics outputs of `outer` elements; stash_type other than 1
// (float) is unsupported.
Result<LayerNormShape> check_layer_norm_io(const KernelConfig& cfg, DType t);

}  // namespace amp::kernels
