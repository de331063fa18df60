#include "kernels/common/slice_plan.h"

#include "kernels/common/kernel_checks.h"

namespace amp::kernels {

Result<SliceSetup> check_slice_io(const KernelConfig& cfg) {
  if (cfg.inputs.size() < 3) return invalid_model("Slice: needs data, starts and ends");
  AMP_RETURN_IF_ERROR(check_same_rank_io(cfg, kSliceMaxRank));
  const TensorDesc& in = cfg.inputs[0];
  const TensorDesc& out = cfg.outputs[0];
  SliceSetup setup;
  SliceStatic& s = setup.s;
  s.rank = static_cast<int>(in.rank());
  for (int a = 0; a < s.rank; ++a) {
    s.in_dims[a] = in.dims[static_cast<size_t>(a)];
    s.out_dims[a] = out.dims[static_cast<size_t>(a)];
  }
  setup.elem_size = dtype_size(in.dtype);
  setup.numel = out.numel();
  const int64_t n = cfg.inputs[1].numel();
  if (!cfg.inputs[1].present || !cfg.inputs[2].present || cfg.inputs[1].rank() != 1 ||
      cfg.inputs[2].rank() != 1 || cfg.inputs[2].numel() != n)
    return invalid_model("Slice: starts and ends must be 1-D of one length");
  if (n > s.rank)
    return invalid_model("Slice: " + std::to_string(n) + " starts for rank " +
                         std::to_string(s.rank));
  s.n = static_cast<int>(n);
  bool all_constant = true;
  for (size_t i = 1; i < 5; ++i) {
    const bool given = i < cfg.inputs.size() && cfg.inputs[i].present;
    if (i >= 3 && !given) continue;
    const TensorDesc& t = cfg.inputs[i];
    if (t.dtype != DType::kI64 && t.dtype != DType::kI32)
      return invalid_model("Slice: input " + std::to_string(i) + " must be i32 or i64");
    if (t.rank() != 1 || t.numel() != n)
      return invalid_model("Slice: input " + std::to_string(i) + " has shape " +
                           dims_to_string(t.dims) + ", expected [" + std::to_string(n) + "]");
    s.dtypes[i] = t.dtype;
    all_constant = all_constant && t.constant_data != nullptr;
  }
  s.has_axes = cfg.inputs.size() > 3 && cfg.inputs[3].present;
  s.has_steps = cfg.inputs.size() > 4 && cfg.inputs[4].present;
  setup.all_constant = all_constant;
  return setup;
}

Result<SliceView> resolve_constant_slice(const KernelConfig& cfg, const SliceStatic& s) {
  SliceView v;
  int bad_axis = 0;
  const int err = slice_resolve(s, cfg.inputs[1].constant_data, cfg.inputs[2].constant_data,
                                s.has_axes ? cfg.inputs[3].constant_data : nullptr,
                                s.has_steps ? cfg.inputs[4].constant_data : nullptr, &v.base,
                                v.strides, &bad_axis);
  if (err != kSliceOk) return invalid_model(describe_slice_error(s, err, bad_axis));
  return v;
}

std::string describe_slice_error(const SliceStatic& s, int err, int axis) {
  switch (err) {
    case kSliceBadAxis:
      return "Slice: axes entry " + std::to_string(axis) +
             " is out of range or repeated for rank " + std::to_string(s.rank);
    case kSliceZeroStep:
      return "Slice: steps entries must be non-zero";
    case kSliceCountMismatch:
      return "Slice: axis " + std::to_string(axis) + " does not give the output shape " +
             dims_to_string(s.rank, s.out_dims);
    case kSliceUnslicedAxis:
      return "Slice: unsliced axis " + std::to_string(axis) + " changes size";
    default:
      return "Slice: invalid parameters";
  }
}

}  // namespace amp::kernels
