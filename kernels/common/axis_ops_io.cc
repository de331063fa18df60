#include "kernels/common/axis_ops_io.h"

#include <string>

#include "kernels/common/kernel_checks.h"

namespace amp::kernels {

Result<CumSumShape> check_cum_sum_io(const KernelConfig& cfg, DType t) {
  AMP_RETURN_IF_ERROR(check_arity(cfg, 2, 2));
  AMP_RETURN_IF_ERROR(check_io(cfg, t));
  AMP_ASSIGN_OR_RETURN(const graph::CumSumAttrs* a, same_shape_attrs<graph::CumSumAttrs>(cfg));
  const TensorDesc& x = cfg.inputs[0];
  const TensorDesc& axis = cfg.inputs[1];
  if (x.rank() == 0 || x.rank() > static_cast<size_t>(kIndexMaxRank))
    return unsupported("CumSum: rank " + std::to_string(x.rank()) + " (1.." +
                       std::to_string(kIndexMaxRank) + " supported)");
  if ((axis.dtype != DType::kI32 && axis.dtype != DType::kI64) || axis.numel() != 1)
    return invalid_model("CumSum: axis (input 1) must be one i32 or i64 value");
  CumSumShape s;
  s.rank = static_cast<int>(x.rank());
  for (int k = 0; k < s.rank; ++k) s.dims[k] = x.dims[static_cast<size_t>(k)];
  s.axis_dtype = axis.dtype;
  s.exclusive = a->exclusive;
  s.reverse = a->reverse;
  if (axis.constant_data != nullptr) {
    int64_t v = 0;
    read_int_param(axis.constant_data, axis.dtype, 1, &v);
    s.axis = cum_sum_axis(v, s.rank);
    if (s.axis < 0)
      return invalid_model("CumSum: axis " + std::to_string(v) + " is out of range for rank " +
                           std::to_string(s.rank));
  }
  return s;
}

Result<TopKShape> check_top_k_io(const KernelConfig& cfg, DType t) {
  AMP_RETURN_IF_ERROR(check_arity(cfg, 2, 2));
  AMP_RETURN_IF_ERROR(check_io(cfg, t));
  AMP_ASSIGN_OR_RETURN(const graph::TopKAttrs* a, resolved_attrs<graph::TopKAttrs>(cfg));
  const TensorDesc& x = cfg.inputs[0];
  if (cfg.outputs.size() != 2 || !cfg.outputs[1].present || cfg.outputs[1].dtype != DType::kI64)
    return invalid_model("TopK: outputs Values and Indices (i64) expected");
  const size_t ax = static_cast<size_t>(a->axis);
  if (ax >= x.rank()) return internal_error("TopK: axis not resolved");
  TopKShape s;
  s.outer = dims_product(x.dims, 0, ax);
  s.len = x.dims[ax];
  s.inner = dims_product(x.dims, ax + 1, x.rank());
  s.largest = a->largest;
  const std::vector<int64_t>& out = cfg.outputs[0].dims;
  if (out.size() != x.rank() || cfg.outputs[1].dims != out)
    return invalid_model("TopK: outputs must have the input's rank and one shape");
  s.k = out[ax];
  for (size_t d = 0; d < x.rank(); ++d)
    if (d != ax && out[d] != x.dims[d])
      return invalid_model("TopK: output " + dims_to_string(out) + " does not fit input " +
                           dims_to_string(x.dims));
  if (s.k > s.len)
    return invalid_input("TopK: K " + std::to_string(s.k) + " exceeds the axis size " +
                         std::to_string(s.len));
  return s;
}

Result<LpNormShape> check_lp_norm_io(const KernelConfig& cfg, DType t) {
  AMP_RETURN_IF_ERROR(check_io(cfg, t));
  AMP_ASSIGN_OR_RETURN(const graph::LpNormAttrs* a, same_shape_attrs<graph::LpNormAttrs>(cfg));
  LpNormShape s;
  s.outer = a->geometry.outer;
  s.len = a->geometry.len;
  s.inner = a->geometry.inner;
  s.p = a->p;
  return s;
}

}  // namespace amp::kernels
