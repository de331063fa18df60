#include "kernels/common/resize_plan.h"

#include "kernels/common/kernel_checks.h"

namespace amp::kernels {

Result<ResizeStatic> check_resize_io(const KernelConfig& cfg) {
  AMP_RETURN_IF_ERROR(check_same_rank_io(cfg, kResizeMaxRank));
  AMP_ASSIGN_OR_RETURN(const graph::ResizeAttrs* rec, resolved_attrs<graph::ResizeAttrs>(cfg));
  const TensorDesc& x = cfg.inputs[0];
  const TensorDesc& out = cfg.outputs[0];
  ResizeStatic st;
  st.at = *rec;
  if (st.at.mode != graph::ResizeSampling::kNearest && !is_float(x.dtype))
    return unsupported("Resize: mode linear/cubic on " + std::string(dtype_name(x.dtype)) +
                       " (only nearest runs on integer tensors)");
  st.rank = static_cast<int>(x.rank());
  for (int a = 0; a < st.rank; ++a) {
    st.in_dims[a] = x.dims[static_cast<size_t>(a)];
    st.out_dims[a] = out.dims[static_cast<size_t>(a)];
    st.axis_pos[a] = rec->axes.empty() ? a : -1;
  }
  // Which axes the scales/sizes/roi entries address (normalized and distinct by inference).
  for (size_t i = 0; i < rec->axes.size(); ++i) {
    const int64_t a = rec->axes[i];
    if (a < 0 || a >= st.rank) return internal_error("Resize: a recorded axis exceeds the rank");
    st.axis_pos[a] = static_cast<int>(i);
  }
  st.n_axes = rec->axes.empty() ? st.rank : static_cast<int>(rec->axes.size());
  for (int a = 0; a < st.rank; ++a)
    if (st.axis_pos[a] < 0 && st.in_dims[a] != st.out_dims[a])
      return invalid_model("Resize: axis " + std::to_string(a) +
                           " is not resized but the output changes its size");

  // The optional inputs, "given" when present and non-empty.
  const auto given = [&](size_t i) {
    return cfg.inputs.size() > i && cfg.inputs[i].present && cfg.inputs[i].numel() > 0;
  };
  st.has_roi = given(1);
  st.has_scales = given(2);
  st.has_sizes = given(3);
  if (st.has_scales == st.has_sizes)
    return invalid_model("Resize: exactly one of scales (input 2) and sizes (input 3) is needed");
  bool all_const = true;
  if (st.has_roi) {
    st.roi_dtype = cfg.inputs[1].dtype;
    if (!is_float(st.roi_dtype) || cfg.inputs[1].numel() != 2 * st.n_axes)
      return invalid_model("Resize: roi must be float with " + std::to_string(2 * st.n_axes) +
                           " entries");
    all_const = cfg.inputs[1].constant_data != nullptr;
  } else if (st.at.coord == graph::ResizeSampling::kTfCropAndResize) {
    return invalid_model("Resize: tf_crop_and_resize needs roi (input 1)");
  }
  const TensorDesc& param = cfg.inputs[static_cast<size_t>(st.param_index())];
  st.param_dtype = param.dtype;
  if (param.numel() != st.n_axes)
    return invalid_model("Resize: " + std::string(st.has_scales ? "scales" : "sizes") + " has " +
                         std::to_string(param.numel()) + " entries for " +
                         std::to_string(st.n_axes) + " axes");
  if (st.has_scales ? !is_float(st.param_dtype)
                    : (st.param_dtype != DType::kI64 && st.param_dtype != DType::kI32))
    return invalid_model("Resize: scales must be float, sizes i64");
  st.all_const = all_const && param.constant_data != nullptr;
  return st;
}

Status resolve_constant_specs(const KernelConfig& cfg, const ResizeStatic& st, AxisSpec* specs) {
  const void* roi = st.has_roi ? cfg.inputs[1].constant_data : nullptr;
  const void* param = cfg.inputs[static_cast<size_t>(st.param_index())].constant_data;
  for (int a = 0; a < st.rank; ++a)
    if (!resolve_spec(st, roi, param, a, &specs[a]))
      return invalid_model(describe_resize_error(st, a));
  return Status::ok();
}

std::string describe_resize_error(const ResizeStatic& st, int a) {
  const int i = st.axis_pos[a];
  if (st.has_scales) return "Resize: scales entry " + std::to_string(i) + " must be positive";
  return "Resize: sizes entry " + std::to_string(i) + " does not give the output's " +
         std::to_string(st.out_dims[a]) + " on axis " + std::to_string(a);
}

}  // namespace amp::kernels
