#include "kernels/common/conv_params.h"

#include "kernels/common/fused_activation.h"

namespace amp::kernels {

Result<ConvParams> read_conv_params(const KernelConfig& cfg, bool transpose,
                                    const std::string& op) {
  const graph::Node& node = *cfg.node;
  if (cfg.inputs.size() < 2 || cfg.inputs.size() > 3 || cfg.outputs.size() != 1 ||
      !cfg.inputs[0].present || !cfg.inputs[1].present || !cfg.outputs[0].present)
    return invalid_model(op + ": expects inputs (X, W[, B]) and one output");
  const TensorDesc& x = cfg.inputs[0];
  const TensorDesc& w = cfg.inputs[1];
  ConvParams p;
  const DType dtype = x.dtype;
  p.has_bias = cfg.inputs.size() == 3 && cfg.inputs[2].present;
  if (w.dtype != dtype || (p.has_bias && cfg.inputs[2].dtype != dtype) ||
      cfg.outputs[0].dtype != dtype)
    return invalid_model(op + ": X, W, B and Y must share one dtype");
  const size_t rank = x.rank();
  if (rank < 3 || rank > 5)
    return unsupported(op + ": input rank " + std::to_string(rank) +
                       " (1-D to 3-D convolutions are supported)");
  if (w.rank() != rank)
    return invalid_model(op + ": W rank " + std::to_string(w.rank()) + " differs from X rank " +
                         std::to_string(rank));
  const size_t sp = rank - 2;
  AMP_ASSIGN_OR_RETURN(p.group, node.attrs.get_int("group", 1));
  AMP_ASSIGN_OR_RETURN(p.act, read_fused_activation(node));
  p.n = x.dims[0];
  p.c = x.dims[1];
  p.in_spatial.assign(x.dims.begin() + 2, x.dims.end());
  if (p.group < 1 || p.c % p.group != 0)
    return invalid_model(op + ": group " + std::to_string(p.group) +
                         " must be positive and divide the input channels " + std::to_string(p.c));
  if (!transpose) {
    p.m = w.dims[0];
    if (w.dims[1] * p.group != p.c || p.m % p.group != 0)
      return invalid_model(op + ": W dims " + dims_string(w.dims) + " do not fit " +
                           std::to_string(p.c) + " input channels in " + std::to_string(p.group) +
                           " groups");
  } else {
    p.m = w.dims[1] * p.group;
    if (w.dims[0] != p.c)
      return invalid_model(op + ": W dims " + dims_string(w.dims) + " do not fit " +
                           std::to_string(p.c) + " input channels");
  }
  if (p.has_bias && cfg.inputs[2].dims != std::vector<int64_t>{p.m})
    return invalid_model(op + ": B dims " + dims_string(cfg.inputs[2].dims) + " should be [" +
                         std::to_string(p.m) + "]");
  p.kernel.assign(w.dims.begin() + 2, w.dims.end());
  AMP_ASSIGN_OR_RETURN(p.window, read_window(node, op, sp, p.kernel));
  return p;
}

}  // namespace amp::kernels
