#include "kernels/common/reduction_io.h"

#include <string>

#include "kernels/common/kernel_params.h"

namespace amp::kernels {

Result<ArgReduceShape> check_arg_reduce_io(const KernelConfig& cfg, DType t) {
  AMP_RETURN_IF_ERROR(check_io(cfg, t, DType::kI64));
  AMP_ASSIGN_OR_RETURN(const graph::ArgReduceAttrs* a, resolved_attrs<graph::ArgReduceAttrs>(cfg));
  ArgReduceShape s;
  s.outer = a->geometry.outer;
  s.len = a->geometry.len;
  s.inner = a->geometry.inner;
  s.select_last_index = a->select_last_index;
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

}  // namespace amp::kernels
