#include "kernels/common/reduction_io.h"

#include <string>

#include "kernels/common/kernel_checks.h"

namespace amp::kernels {

Result<ArgReduceShape> check_arg_reduce_io(const KernelConfig& cfg, DType t) {
  AMP_RETURN_IF_ERROR(check_io(cfg, t, DType::kI64));
  AMP_ASSIGN_OR_RETURN(const graph::ArgReduceAttrs* a, resolved_attrs<graph::ArgReduceAttrs>(cfg));
  ArgReduceShape s;
  s.outer = a->geometry.outer;
  s.len = a->geometry.len;
  s.inner = a->geometry.inner;
  s.select_last_index = a->select_last_index;
  s.smallest = cfg.node->op == graph::OpType::kArgMin;
  if (cfg.outputs[0].numel() != s.outer * s.inner)
    return invalid_model("output has " + std::to_string(cfg.outputs[0].numel()) +
                         " elements, expected " + std::to_string(s.outer * s.inner));
  if (s.len == 0 && s.outer * s.inner > 0)
    return invalid_model(op_label(cfg) + " over an empty axis has no answer");
  return s;
}

Result<graph::AxisGeometry> check_softmax_io(const KernelConfig& cfg, DType t) {
  AMP_RETURN_IF_ERROR(check_io(cfg, t));
  AMP_ASSIGN_OR_RETURN(const graph::SoftmaxAttrs* s, same_shape_attrs<graph::SoftmaxAttrs>(cfg));
  return s->geometry;
}

Result<GlobalPoolShape> check_global_pool_io(const KernelConfig& cfg, DType t) {
  AMP_RETURN_IF_ERROR(check_io(cfg, t));
  const std::vector<int64_t>& dims = cfg.inputs[0].dims;
  if (dims.size() < 2) return invalid_model(op_label(cfg) + " needs an input [N, C, ...]");
  GlobalPoolShape g;
  g.max = cfg.node->op == graph::OpType::kGlobalMaxPool;
  g.planes = dims[0] * dims[1];
  g.spatial = dims_product(dims, 2, dims.size());
  if (cfg.outputs[0].numel() != g.planes)
    return invalid_model("output has " + std::to_string(cfg.outputs[0].numel()) +
                         " elements, expected N*C = " + std::to_string(g.planes));
  return g;
}

Result<ReduceAxesShape> check_reduce_axes_io(const KernelConfig& cfg, DType t) {
  AMP_RETURN_IF_ERROR(check_io(cfg, t));
  AMP_ASSIGN_OR_RETURN(const graph::ReduceAttrs* rec, resolved_attrs<graph::ReduceAttrs>(cfg));
  ReduceAxesShape s;
  s.keepdims = rec->keepdims;
  s.noop_empty = rec->noop_with_empty_axes;
  s.in_dims = cfg.inputs[0].dims;
  s.out_dims = cfg.outputs[0].dims;
  s.rank = static_cast<int>(s.in_dims.size());
  s.in_numel = cfg.inputs[0].numel();
  if (cfg.inputs.size() > 1 && cfg.inputs[1].present) {
    const TensorDesc& ad = cfg.inputs[1];
    if (ad.dtype != DType::kI64)
      return invalid_model("axes (input 1) must be i64, got " + std::string(dtype_name(ad.dtype)));
    if (ad.rank() > 1) return invalid_model("axes (input 1) must be 1-D");
    s.axes_len = ad.numel();
    s.runtime_axes = ad.constant_data == nullptr && s.axes_len != 0;
    s.const_axes = static_cast<const int64_t*>(ad.constant_data);
  }
  return s;
}

Status reduce_axes_flags(const int64_t* axes, int64_t n, int rank, bool* flags) {
  for (int i = 0; i < rank; ++i) flags[i] = false;
  for (int64_t i = 0; i < n; ++i) {
    int64_t a = axes[i];
    if (a < -rank || a >= rank)
      return invalid_input("axis " + std::to_string(a) + " is out of range for rank " +
                           std::to_string(rank));
    if (a < 0) a += rank;
    if (flags[a]) return invalid_input("axis " + std::to_string(axes[i]) + " is repeated");
    flags[a] = true;
  }
  return Status::ok();
}

Status check_reduced_shape(const ReduceAxesShape& s, const bool* flags) {
  size_t j = 0;
  bool ok = true;
  for (int i = 0; i < s.rank && ok; ++i) {
    if (flags[i] && !s.keepdims) continue;
    const int64_t d = flags[i] ? 1 : s.in_dims[static_cast<size_t>(i)];
    ok = j < s.out_dims.size() && s.out_dims[j] == d;
    ++j;
  }
  if (!ok || j != s.out_dims.size())
    return invalid_input("the axes give an output shape other than the planned one");
  return Status::ok();
}

Result<ReducePlan> plan_constant_axes(const ReduceAxesShape& s, bool* copy) {
  bool flags[kReduceMaxRank];
  *copy = false;
  if (s.axes_len == 0) {
    *copy = s.noop_empty;
    for (int i = 0; i < s.rank; ++i) flags[i] = !s.noop_empty;
  } else {
    const Status st = reduce_axes_flags(s.const_axes, s.axes_len, s.rank, flags);
    if (!st.is_ok()) return invalid_model(st.message());
  }
  const Status st = check_reduced_shape(s, flags);
  if (!st.is_ok()) return invalid_model(st.message());
  return make_reduce_plan(s.in_dims.data(), flags, s.rank);
}

}  // namespace amp::kernels
