#include "kernels/common/movement_io.h"

#include <string>

#include "kernels/common/kernel_params.h"

namespace amp::kernels {
namespace {

Status check_data_and_output(const KernelConfig& cfg) {
  if (cfg.inputs.empty() || !cfg.inputs[0].present || cfg.outputs.empty() ||
      !cfg.outputs[0].present)
    return invalid_model(op_label(cfg) + ": needs a data input and an output");
  if (cfg.outputs[0].dtype != cfg.inputs[0].dtype)
    return invalid_model(op_label(cfg) + ": output dtype differs from the input's");
  return Status::ok();
}

}  // namespace

Result<PermutedCopy> check_permute_io(const KernelConfig& cfg) {
  AMP_RETURN_IF_ERROR(check_data_and_output(cfg));
  AMP_ASSIGN_OR_RETURN(const graph::PermuteAttrs* a, resolved_attrs<graph::PermuteAttrs>(cfg));
  const TensorDesc& in = cfg.inputs[0];
  const TensorDesc& out = cfg.outputs[0];
  const size_t r = a->perm.size();
  int64_t view_numel = 1;
  for (int64_t d : a->view_dims) view_numel *= d;
  if (a->view_dims.size() != r || view_numel != in.numel())
    return internal_error(op_label(cfg) + ": the recorded view does not fit input " +
                          dims_to_string(in.dims));
  if (out.numel() != in.numel())
    return invalid_model(op_label(cfg) + ": output " + dims_to_string(out.dims) +
                         " does not hold the input " + dims_to_string(in.dims));
  const std::vector<int64_t> view_strides = contiguous_strides(a->view_dims);
  PermutedCopy p;
  for (size_t i = 0; i < r; ++i) {
    const size_t from = static_cast<size_t>(a->perm[i]);
    p.dims.push_back(a->view_dims[from]);
    p.strides.push_back(view_strides[from]);
  }
  return p;
}

Result<TileShape> check_tile_io(const KernelConfig& cfg) {
  AMP_RETURN_IF_ERROR(check_data_and_output(cfg));
  const TensorDesc& in = cfg.inputs[0];
  const TensorDesc& out = cfg.outputs[0];
  if (in.rank() != out.rank())
    return invalid_model("Tile: output " + dims_to_string(out.dims) +
                         " does not match the input's rank");
  TileShape t{in.dims, out.dims};
  for (size_t a = 0; a < in.rank(); ++a) {
    const int64_t i = in.dims[a], o = out.dims[a];
    if (i == 0 ? o != 0 : o % i != 0)
      return invalid_model("Tile: output " + dims_to_string(out.dims) +
                           " is not a whole repeat of input " + dims_to_string(in.dims));
  }
  // Cross-check a constant repeats input.
  const size_t r = in.rank();
  if (cfg.inputs.size() > 1 && cfg.inputs[1].present && cfg.inputs[1].constant_data &&
      cfg.inputs[1].numel() == static_cast<int64_t>(r)) {
    std::vector<int64_t> reps(r);
    if (read_int_param(cfg.inputs[1].constant_data, cfg.inputs[1].dtype, static_cast<int64_t>(r),
                       reps.data())) {
      for (size_t a = 0; a < r; ++a)
        if (reps[a] < 0 || in.dims[a] * reps[a] != out.dims[a])
          return invalid_model("Tile: repeats " + dims_to_string(reps) + " on input " +
                               dims_to_string(in.dims) + " do not give output " +
                               dims_to_string(out.dims));
    }
  }
  return t;
}

}  // namespace amp::kernels
