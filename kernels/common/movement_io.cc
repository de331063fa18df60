#include "kernels/common/movement_io.h"

#include <string>

#include "kernels/common/kernel_checks.h"

namespace amp::kernels {

Status check_data_and_output(const KernelConfig& cfg) {
  if (cfg.inputs.empty() || !cfg.inputs[0].present || cfg.outputs.empty() ||
      !cfg.outputs[0].present)
    return invalid_model(op_label(cfg) + ": needs a data input and an output");
  if (cfg.outputs[0].dtype != cfg.inputs[0].dtype)
    return invalid_model(
        op_label(cfg) + ": output dtype " + std::string(dtype_name(cfg.outputs[0].dtype)) +
        " differs from input dtype " + std::string(dtype_name(cfg.inputs[0].dtype)));
  return Status::ok();
}

namespace {

// Dims equal except on `axis`.
bool same_except(const std::vector<int64_t>& a, const std::vector<int64_t>& b, size_t axis) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (i != axis && a[i] != b[i]) return false;
  return true;
}

PartsLayout parts_layout(const std::vector<int64_t>& whole, size_t axis, std::vector<int64_t> sizes,
                         DType dtype) {
  PartsLayout l;
  l.axis = axis;
  l.whole_dims = whole;
  l.outer = dims_product(whole, 0, axis);
  l.inner = dims_product(whole, axis + 1, whole.size());
  l.part_sizes = std::move(sizes);
  l.elem_size = dtype_size(dtype);
  return l;
}

}  // namespace

Result<PartsLayout> check_concat_io(const KernelConfig& cfg) {
  if (cfg.inputs.empty()) return invalid_model("Concat: needs at least one input");
  if (cfg.outputs.empty() || !cfg.outputs[0].present)
    return invalid_model("Concat: needs an output");
  AMP_ASSIGN_OR_RETURN(const graph::AxisAttrs* rec, resolved_attrs<graph::AxisAttrs>(cfg));
  const TensorDesc& out = cfg.outputs[0];
  const size_t a = static_cast<size_t>(rec->axis);
  if (a >= out.rank()) return internal_error("Concat: the recorded axis exceeds the output rank");
  std::vector<int64_t> sizes;
  int64_t total = 0;
  for (size_t i = 0; i < cfg.inputs.size(); ++i) {
    const TensorDesc& t = cfg.inputs[i];
    if (!t.present) return invalid_model("Concat: input " + std::to_string(i) + " is absent");
    if (t.dtype != out.dtype || !same_except(t.dims, out.dims, a))
      return invalid_model("Concat: input " + std::to_string(i) + " " +
                           std::string(dtype_name(t.dtype)) + dims_to_string(t.dims) +
                           " does not match output " + dims_to_string(out.dims) + " outside axis " +
                           std::to_string(a));
    total += t.dims[a];
    sizes.push_back(t.dims[a]);
  }
  if (total != out.dims[a])
    return invalid_model("Concat: the inputs sum to " + std::to_string(total) + " on axis " +
                         std::to_string(a) + ", the output has " + std::to_string(out.dims[a]));
  return parts_layout(out.dims, a, std::move(sizes), out.dtype);
}

Result<PartsLayout> check_split_io(const KernelConfig& cfg) {
  if (cfg.inputs.empty() || !cfg.inputs[0].present)
    return invalid_model("Split: needs a data input");
  AMP_ASSIGN_OR_RETURN(const graph::AxisAttrs* rec, resolved_attrs<graph::AxisAttrs>(cfg));
  const TensorDesc& in = cfg.inputs[0];
  const size_t ax = static_cast<size_t>(rec->axis);
  if (ax >= in.rank()) return internal_error("Split: the recorded axis exceeds the input rank");
  AMP_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, split_part_sizes(cfg, ax));
  int64_t total = 0;
  for (size_t k = 0; k < cfg.outputs.size(); ++k) {
    std::vector<int64_t> expect = in.dims;
    expect[ax] = sizes[k];
    const TensorDesc& o = cfg.outputs[k];
    if (o.present && (o.dtype != in.dtype || o.dims != expect))
      return invalid_model("Split: output " + std::to_string(k) + " is " +
                           std::string(dtype_name(o.dtype)) + dims_to_string(o.dims) +
                           ", expected " + dims_to_string(expect));
    total += sizes[k];
  }
  if (total != in.dims[ax])
    return invalid_model("Split: the parts sum to " + std::to_string(total) + ", axis " +
                         std::to_string(ax) + " has size " + std::to_string(in.dims[ax]));
  return parts_layout(in.dims, ax, std::move(sizes), in.dtype);
}

Result<GatherLayout> check_gather_io(const KernelConfig& cfg) {
  if (cfg.inputs.size() < 2 || !cfg.inputs[0].present || !cfg.inputs[1].present ||
      cfg.outputs.empty() || !cfg.outputs[0].present)
    return invalid_model("Gather: needs data, indices and an output");
  AMP_ASSIGN_OR_RETURN(const graph::AxisAttrs* rec, resolved_attrs<graph::AxisAttrs>(cfg));
  const TensorDesc& data = cfg.inputs[0];
  const TensorDesc& ind = cfg.inputs[1];
  const TensorDesc& out = cfg.outputs[0];
  if (ind.dtype != DType::kI64 && ind.dtype != DType::kI32)
    return invalid_model("Gather: indices must be i32 or i64, not " +
                         std::string(dtype_name(ind.dtype)));
  const size_t a = static_cast<size_t>(rec->axis);
  if (a >= data.rank()) return internal_error("Gather: the recorded axis exceeds the data rank");
  std::vector<int64_t> expect(data.dims.begin(), data.dims.begin() + static_cast<ptrdiff_t>(a));
  expect.insert(expect.end(), ind.dims.begin(), ind.dims.end());
  expect.insert(expect.end(), data.dims.begin() + static_cast<ptrdiff_t>(a) + 1, data.dims.end());
  if (out.dims != expect || out.dtype != data.dtype)
    return invalid_model("Gather: output " + dims_to_string(out.dims) + ", expected " +
                         dims_to_string(expect));
  GatherLayout l;
  l.outer = dims_product(data.dims, 0, a);
  l.inner = dims_product(data.dims, a + 1, data.dims.size());
  l.dim = data.dims[a];
  l.n_idx = ind.numel();
  l.elem_size = dtype_size(data.dtype);
  l.idx_dtype = ind.dtype;
  return l;
}

Result<RangeShape> check_range_io(const KernelConfig& cfg) {
  for (size_t i = 0; i < 3; ++i)
    if (cfg.inputs.size() <= i || !cfg.inputs[i].present || cfg.inputs[i].numel() != 1)
      return invalid_model("Range: input " + std::to_string(i) + " must be a scalar");
  if (cfg.outputs.empty() || !cfg.outputs[0].present || cfg.outputs[0].rank() != 1)
    return invalid_model("Range: output must be 1-D");
  const DType dtype = cfg.outputs[0].dtype;
  if (cfg.inputs[0].dtype != dtype || cfg.inputs[2].dtype != dtype)
    return invalid_model("Range: start and delta must have the output's dtype " +
                         std::string(dtype_name(dtype)));
  return RangeShape{cfg.outputs[0].numel(), dtype};
}

Result<TriluShape> check_trilu_io(const KernelConfig& cfg) {
  AMP_RETURN_IF_ERROR(check_data_and_output(cfg));
  AMP_ASSIGN_OR_RETURN(const graph::TriluAttrs* a, resolved_attrs<graph::TriluAttrs>(cfg));
  const TensorDesc& x = cfg.inputs[0];
  if (x.rank() < 2) return invalid_model(op_label(cfg) + ": input 0 must have rank >= 2");
  if (cfg.outputs[0].dims != x.dims)
    return invalid_model(op_label(cfg) + ": the output must have the input's shape");
  TriluShape s;
  s.rows = x.dims[x.rank() - 2];
  s.cols = x.dims[x.rank() - 1];
  s.batch = s.rows * s.cols == 0 ? 0 : x.numel() / (s.rows * s.cols);
  s.elem_size = dtype_size(x.dtype);
  s.upper = a->upper;
  if (cfg.inputs.size() > 1 && cfg.inputs[1].present) {
    const TensorDesc& k = cfg.inputs[1];
    if (k.dtype != DType::kI64 || k.numel() != 1)
      return invalid_model(op_label(cfg) + ": k (input 1) must be an i64 scalar");
    if (k.constant_data != nullptr)
      s.k = *static_cast<const int64_t*>(k.constant_data);
    else
      s.k_runtime = true;
  }
  return s;
}

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
