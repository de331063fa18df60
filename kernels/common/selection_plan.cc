#include "kernels/common/selection_plan.h"

#include <string>

#include "kernels/common/element_access.h"
#include "kernels/common/kernel_checks.h"

namespace amp::kernels {

Status check_size_channel(const KernelArgs& a, const char* op) {
  if (a.dynamic_size == nullptr)
    return internal_error(std::string(op) + ": run without a dynamic_size channel");
  return Status::ok();
}

Result<NonZeroPlan> check_non_zero_io(const KernelConfig& cfg) {
  AMP_RETURN_IF_ERROR(check_arity(cfg, 1, 1));
  const TensorDesc& x = cfg.inputs[0];
  const TensorDesc& y = cfg.outputs[0];
  if (x.rank() > static_cast<size_t>(kSelectionMaxRank))
    return unsupported("NonZero: rank " + std::to_string(x.rank()));
  if (y.dtype != DType::kI64 || y.rank() != 2 || y.dims[0] != static_cast<int64_t>(x.rank()))
    return invalid_model("NonZero: output must be i64 [rank, count]");
  NonZeroPlan p;
  p.rank = static_cast<int>(x.rank());
  for (int k = 0; k < p.rank; ++k) p.dims[k] = x.dims[static_cast<size_t>(k)];
  p.numel = x.numel();
  p.capacity = y.dims[1];
  p.dtype = x.dtype;
  return p;
}

Result<CompressPlan> check_compress_io(const KernelConfig& cfg) {
  AMP_RETURN_IF_ERROR(check_arity(cfg, 2, 2));
  AMP_ASSIGN_OR_RETURN(const graph::CompressAttrs* a, resolved_attrs<graph::CompressAttrs>(cfg));
  const TensorDesc& x = cfg.inputs[0];
  const TensorDesc& y = cfg.outputs[0];
  if (cfg.inputs[1].dtype != DType::kBool || cfg.inputs[1].rank() != 1)
    return invalid_model("Compress: condition must be 1-D bool");
  if (y.dtype != x.dtype) return invalid_model("Compress: output dtype differs from input's");
  CompressPlan p;
  p.cond_len = cfg.inputs[1].numel();
  p.elem_size = dtype_size(x.dtype);
  if (a->axis < 0) {
    p.len = x.numel();
    if (y.rank() != 1) return invalid_model("Compress: a flattened selection is 1-D");
    p.capacity = y.dims[0];
  } else {
    const size_t ax = static_cast<size_t>(a->axis);
    if (ax >= x.rank() || y.rank() != x.rank())
      return invalid_model("Compress: output rank must be the input's");
    p.outer = dims_product(x.dims, 0, ax);
    p.len = x.dims[ax];
    p.inner = dims_product(x.dims, ax + 1, x.rank());
    p.capacity = y.dims[ax];
  }
  return p;
}

Result<NmsPlan> check_nms_io(const KernelConfig& cfg) {
  AMP_RETURN_IF_ERROR(check_arity(cfg, 2, 5));
  AMP_ASSIGN_OR_RETURN(const graph::NmsAttrs* a, resolved_attrs<graph::NmsAttrs>(cfg));
  const TensorDesc& boxes = cfg.inputs[0];
  const TensorDesc& scores = cfg.inputs[1];
  const TensorDesc& y = cfg.outputs[0];
  if (boxes.rank() != 3 || boxes.dims[2] != 4 || scores.rank() != 3 ||
      scores.dims[0] != boxes.dims[0] || scores.dims[2] != boxes.dims[1] ||
      scores.dtype != boxes.dtype)
    return invalid_model("NonMaxSuppression: boxes [B, S, 4] and scores [B, C, S] expected");
  if (y.dtype != DType::kI64 || y.rank() != 2 || y.dims[1] != 3)
    return invalid_model("NonMaxSuppression: output must be i64 [count, 3]");
  NmsPlan p;
  p.batches = boxes.dims[0];
  p.boxes = boxes.dims[1];
  p.classes = scores.dims[1];
  p.capacity = y.dims[0];
  p.dtype = boxes.dtype;
  p.center_point_box = a->center_point_box;
  auto present = [&](size_t i) { return i < cfg.inputs.size() && cfg.inputs[i].present; };
  p.has_max = present(2);
  if (p.has_max) {
    const TensorDesc& m = cfg.inputs[2];
    if (m.dtype != DType::kI64 || m.numel() != 1)
      return invalid_model("NonMaxSuppression: max_output_boxes_per_class must be one i64");
    if (m.constant_data != nullptr)
      p.max_per_class = *static_cast<const int64_t*>(m.constant_data);
    else
      p.max_runtime = true;
  }
  for (size_t i = 3; i < 5; ++i) {
    if (!present(i)) continue;
    const TensorDesc& t = cfg.inputs[i];
    if (t.numel() != 1 || !is_float(t.dtype))
      return invalid_model("NonMaxSuppression: input " + std::to_string(i) + " must be one float");
    const bool runtime = t.constant_data == nullptr;
    const double v = runtime ? 0.0 : load_as_double(t.constant_data, t.dtype, 0);
    if (i == 3) {
      p.has_iou = true, p.iou_dtype = t.dtype, p.iou_runtime = runtime, p.iou = v;
    } else {
      p.has_score = true, p.score_dtype = t.dtype, p.score_runtime = runtime, p.score = v;
    }
  }
  return p;
}

}  // namespace amp::kernels
