#include "kernels/common/pad_plan.h"

#include "kernels/common/kernel_checks.h"

namespace amp::kernels {

Result<PadSetup> check_pad_io(const KernelConfig& cfg) {
  AMP_RETURN_IF_ERROR(check_same_rank_io(cfg, kPadMaxRank));
  AMP_ASSIGN_OR_RETURN(const graph::PadAttrs* rec, resolved_attrs<graph::PadAttrs>(cfg));
  const TensorDesc& in = cfg.inputs[0];
  const TensorDesc& out = cfg.outputs[0];
  PadSetup setup;
  PadStatic& p = setup.p;
  p.mode = rec->mode;
  p.rank = static_cast<int>(in.rank());
  for (int a = 0; a < p.rank; ++a) {
    p.in_dims[a] = in.dims[static_cast<size_t>(a)];
    p.out_dims[a] = out.dims[static_cast<size_t>(a)];
  }
  setup.elem_size = dtype_size(in.dtype);
  setup.numel = out.numel();
  if (cfg.inputs.size() < 2 || !cfg.inputs[1].present) return invalid_model("Pad: needs pads");
  const TensorDesc& pads = cfg.inputs[1];
  if (pads.dtype != DType::kI64 && pads.dtype != DType::kI32)
    return invalid_model("Pad: pads must be i64");
  p.pads_dtype = pads.dtype;
  p.has_axes = cfg.inputs.size() > 3 && cfg.inputs[3].present;
  int64_t n_axes = p.rank;
  if (p.has_axes) {
    const TensorDesc& axes = cfg.inputs[3];
    if (axes.dtype != DType::kI64 && axes.dtype != DType::kI32)
      return invalid_model("Pad: axes must be i32 or i64");
    n_axes = axes.numel();
    p.axes_dtype = axes.dtype;
  }
  if (n_axes > p.rank || pads.numel() != 2 * n_axes)
    return invalid_model("Pad: pads has " + std::to_string(pads.numel()) + " entries for " +
                         std::to_string(n_axes) + " axes of a rank-" + std::to_string(p.rank) +
                         " input");
  p.n_axes = static_cast<int>(n_axes);
  if (cfg.inputs.size() > 2 && cfg.inputs[2].present) {
    const TensorDesc& cv = cfg.inputs[2];
    if (cv.dtype != in.dtype)
      return invalid_model("Pad: constant_value dtype " + std::string(dtype_name(cv.dtype)) +
                           " differs from the data's " + std::string(dtype_name(in.dtype)));
    if (cv.numel() > 1) return invalid_model("Pad: constant_value must be a scalar");
    setup.has_value = cv.numel() == 1;
  }
  setup.pads_constant =
      pads.constant_data != nullptr && (!p.has_axes || cfg.inputs[3].constant_data != nullptr);
  return setup;
}

Status resolve_constant_pads(const KernelConfig& cfg, const PadStatic& p, int64_t* begin,
                             int64_t* end) {
  const int bad = pad_resolve(p, cfg.inputs[1].constant_data,
                              p.has_axes ? cfg.inputs[3].constant_data : nullptr, begin, end);
  if (bad >= 0) return invalid_model(describe_pad_error(p, bad, begin, end));
  return Status::ok();
}

std::string describe_pad_error(const PadStatic& p, int bad, const int64_t* begin,
                               const int64_t* end) {
  if (bad >= p.rank)
    return "Pad: axes entry " + std::to_string(bad - p.rank) +
           " is out of range or repeated for rank " + std::to_string(p.rank);
  if (p.in_dims[bad] + begin[bad] + end[bad] != p.out_dims[bad])
    return "Pad: axis " + std::to_string(bad) + " of size " + std::to_string(p.in_dims[bad]) +
           " padded by (" + std::to_string(begin[bad]) + ", " + std::to_string(end[bad]) +
           ") does not give the output's " + std::to_string(p.out_dims[bad]);
  return "Pad: cannot pad the empty axis " + std::to_string(bad) + " in a non-constant mode";
}

}  // namespace amp::kernels
