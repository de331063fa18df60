#include "kernels/common/pool_params.h"

namespace amp::kernels {

Result<PoolParams> read_pool_params(const KernelConfig& cfg, bool is_max, const std::string& op) {
  const graph::Node& node = *cfg.node;
  const size_t max_outputs = is_max ? 2 : 1;
  if (cfg.inputs.size() != 1 || !cfg.inputs[0].present || cfg.outputs.empty() ||
      cfg.outputs.size() > max_outputs || !cfg.outputs[0].present)
    return invalid_model(op + ": expects one input and " +
                         (is_max ? "outputs (Y[, Indices])" : "one output"));
  const TensorDesc& x = cfg.inputs[0];
  PoolParams p;
  p.dtype = x.dtype;
  const bool float_type =
      p.dtype == DType::kF32 || p.dtype == DType::kF16 || p.dtype == DType::kBF16;
  const bool int8_type = p.dtype == DType::kI8 || p.dtype == DType::kU8;
  if (!float_type && !(is_max && int8_type))
    return unsupported(op + ": dtype " + std::string(dtype_name(p.dtype)));
  if (cfg.outputs[0].dtype != p.dtype) return invalid_model(op + ": Y dtype differs from X's");
  p.with_indices = cfg.outputs.size() == 2 && cfg.outputs[1].present;
  if (p.with_indices && cfg.outputs[1].dtype != DType::kI64)
    return invalid_model(op + ": Indices must be i64");
  const size_t rank = x.rank();
  if (rank < 3 || rank > 5)
    return unsupported(op + ": input rank " + std::to_string(rank) +
                       " (1-D to 3-D pooling is supported)");
  const size_t sp = rank - 2;
  AMP_ASSIGN_OR_RETURN(p.window, read_window(node, op, sp, {}));
  AMP_ASSIGN_OR_RETURN(const int64_t ceil_mode, node.attrs.get_int("ceil_mode", 0));
  AMP_ASSIGN_OR_RETURN(const int64_t include_pad, node.attrs.get_int("count_include_pad", 0));
  AMP_ASSIGN_OR_RETURN(const int64_t storage_order, node.attrs.get_int("storage_order", 0));
  p.include_pad = !is_max && include_pad != 0;
  p.col_major_indices = storage_order != 0;
  p.in_spatial.assign(x.dims.begin() + 2, x.dims.end());
  AMP_ASSIGN_OR_RETURN(p.out_spatial, resolve_forward(p.window, p.in_spatial, ceil_mode != 0, op));
  p.y_dims = {x.dims[0], x.dims[1]};
  p.y_dims.insert(p.y_dims.end(), p.out_spatial.begin(), p.out_spatial.end());
  const std::vector<int64_t>& y_dims = p.y_dims;
  if (cfg.outputs[0].dims != y_dims)
    return invalid_model(op + ": output dims " + dims_string(cfg.outputs[0].dims) +
                         " disagree with the attributes, which give " + dims_string(y_dims));
  if (p.with_indices && cfg.outputs[1].dims != y_dims)
    return invalid_model(op + ": Indices dims " + dims_string(cfg.outputs[1].dims) + " should be " +
                         dims_string(y_dims));
  return p;
}

}  // namespace amp::kernels
