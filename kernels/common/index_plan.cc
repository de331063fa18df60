#include "kernels/common/index_plan.h"

#include <string>

#include "kernels/common/kernel_checks.h"

namespace amp::kernels {
namespace {

Status check_rank_cap(const KernelConfig& cfg, size_t rank) {
  if (rank > static_cast<size_t>(kIndexMaxRank))
    return unsupported(op_label(cfg) + ": rank " + std::to_string(rank) + " exceeds " +
                       std::to_string(kIndexMaxRank));
  return Status::ok();
}

bool is_index_dtype(DType t) {
  return t == DType::kI32 || t == DType::kI64;
}

Result<ElementsPlan> elements_plan(const KernelConfig& cfg, bool scatter) {
  AMP_RETURN_IF_ERROR(check_arity(cfg, scatter ? 3 : 2, scatter ? 3 : 2));
  AMP_ASSIGN_OR_RETURN(const graph::IndexAttrs* a, resolved_attrs<graph::IndexAttrs>(cfg));
  const TensorDesc& data = cfg.inputs[0];
  const TensorDesc& idx = cfg.inputs[1];
  const std::string op = op_label(cfg);
  if (!is_index_dtype(idx.dtype)) return invalid_model(op + ": indices must be i32 or i64");
  if (idx.rank() != data.rank() || data.rank() == 0)
    return invalid_model(op + ": indices " + dims_to_string(idx.dims) + " and data " +
                         dims_to_string(data.dims) + " must have one rank >= 1");
  AMP_RETURN_IF_ERROR(check_rank_cap(cfg, data.rank()));
  if (a->axis < 0 || a->axis >= static_cast<int64_t>(data.rank()))
    return internal_error(op + ": axis not normalized");
  for (size_t k = 0; k < data.rank(); ++k)
    if (static_cast<int64_t>(k) != a->axis && idx.dims[k] > data.dims[k])
      return invalid_model(op + ": indices " + dims_to_string(idx.dims) + " exceed data " +
                           dims_to_string(data.dims));
  const TensorDesc& out = cfg.outputs[0];
  if (out.dtype != data.dtype) return invalid_model(op + ": output dtype differs from data's");
  if (out.dims != (scatter ? data.dims : idx.dims))
    return invalid_model(op + ": output shape " + dims_to_string(out.dims) + " is wrong");
  if (scatter && (cfg.inputs[2].dtype != data.dtype || cfg.inputs[2].dims != idx.dims))
    return invalid_model(op + ": updates must have the indices' shape and the data's dtype");
  ElementsPlan p;
  p.rank = static_cast<int>(data.rank());
  p.axis = static_cast<int>(a->axis);
  p.n = idx.numel();
  p.axis_len = data.dims[static_cast<size_t>(a->axis)];
  p.data_numel = data.numel();
  const std::vector<int64_t> strides = contiguous_strides(data.dims);
  for (int k = 0; k < p.rank; ++k) {
    p.idx_dims[k] = idx.dims[static_cast<size_t>(k)];
    p.data_strides[k] = strides[static_cast<size_t>(k)];
  }
  p.dtype = data.dtype;
  p.idx_dtype = idx.dtype;
  p.elem_size = dtype_size(data.dtype);
  p.reduction = scatter ? a->reduction : graph::IndexAttrs::kNone;
  return p;
}

Result<NdPlan> nd_plan(const KernelConfig& cfg, bool scatter) {
  AMP_RETURN_IF_ERROR(check_arity(cfg, scatter ? 3 : 2, scatter ? 3 : 2));
  AMP_ASSIGN_OR_RETURN(const graph::IndexAttrs* a, resolved_attrs<graph::IndexAttrs>(cfg));
  const TensorDesc& data = cfg.inputs[0];
  const TensorDesc& idx = cfg.inputs[1];
  const std::string op = op_label(cfg);
  if (idx.dtype != DType::kI64) return invalid_model(op + ": indices must be i64");
  const size_t r = data.rank(), q = idx.rank();
  const size_t b = static_cast<size_t>(a->batch_dims);
  if (r < 1 || q < 1 || b >= std::min(q, r))
    return invalid_model(op + ": data " + dims_to_string(data.dims) + " and indices " +
                         dims_to_string(idx.dims) + " do not fit batch_dims " + std::to_string(b));
  const int64_t k = idx.dims.back();
  if (k < 1 || static_cast<size_t>(k) > r - b)
    return invalid_model(op + ": index tuples of length " + std::to_string(k) + " for data " +
                         dims_to_string(data.dims));
  AMP_RETURN_IF_ERROR(check_rank_cap(cfg, std::max(r, q)));
  const TensorDesc& out = cfg.outputs[0];
  if (out.dtype != data.dtype) return invalid_model(op + ": output dtype differs from data's");
  std::vector<int64_t> tail_dims(idx.dims.begin(), idx.dims.end() - 1);
  for (size_t d = b + static_cast<size_t>(k); d < r; ++d) tail_dims.push_back(data.dims[d]);
  if (scatter) {
    if (out.dims != data.dims) return invalid_model(op + ": output shape must be data's");
    const TensorDesc& upd = cfg.inputs[2];
    if (upd.dtype != data.dtype || upd.dims != tail_dims)
      return invalid_model(op + ": updates " + dims_to_string(upd.dims) + " must be " +
                           dims_to_string(tail_dims) + " of the data's dtype");
  } else if (out.dims != tail_dims) {
    return invalid_model(op + ": output shape " + dims_to_string(out.dims) + " must be " +
                         dims_to_string(tail_dims));
  }
  NdPlan p;
  p.k = static_cast<int>(k);
  p.batches = dims_product(data.dims, 0, b);
  p.tuples = dims_product(idx.dims, b, q - 1);
  p.slice = dims_product(data.dims, b + static_cast<size_t>(k), r);
  p.batch_stride = dims_product(data.dims, b, r);
  p.data_numel = data.numel();
  const std::vector<int64_t> strides = contiguous_strides(data.dims);
  for (int i = 0; i < p.k; ++i) {
    p.dims[i] = data.dims[b + static_cast<size_t>(i)];
    p.strides[i] = strides[b + static_cast<size_t>(i)];
  }
  p.dtype = data.dtype;
  p.elem_size = dtype_size(data.dtype);
  p.reduction = scatter ? a->reduction : graph::IndexAttrs::kNone;
  return p;
}

}  // namespace

Result<ElementsPlan> check_gather_elements_io(const KernelConfig& cfg) {
  return elements_plan(cfg, false);
}
Result<ElementsPlan> check_scatter_elements_io(const KernelConfig& cfg) {
  return elements_plan(cfg, true);
}
Result<NdPlan> check_gather_nd_io(const KernelConfig& cfg) {
  return nd_plan(cfg, false);
}
Result<NdPlan> check_scatter_nd_io(const KernelConfig& cfg) {
  return nd_plan(cfg, true);
}

Result<OneHotPlan> check_one_hot_io(const KernelConfig& cfg) {
  AMP_RETURN_IF_ERROR(check_arity(cfg, 3, 3));
  AMP_ASSIGN_OR_RETURN(const graph::AxisAttrs* a, resolved_attrs<graph::AxisAttrs>(cfg));
  const std::string op = op_label(cfg);
  const TensorDesc& idx = cfg.inputs[0];
  const TensorDesc& values = cfg.inputs[2];
  const TensorDesc& out = cfg.outputs[0];
  if (values.numel() != 2 || out.dtype != values.dtype)
    return invalid_model(op + ": values must hold [off, on] in the output's dtype");
  if (out.rank() != idx.rank() + 1 || a->axis < 0 || a->axis >= static_cast<int64_t>(out.rank()))
    return invalid_model(op + ": output rank must be the indices' + 1");
  const size_t ax = static_cast<size_t>(a->axis);
  OneHotPlan p;
  p.outer = dims_product(out.dims, 0, ax);
  p.depth = out.dims[ax];
  p.inner = dims_product(out.dims, ax + 1, out.rank());
  if (p.outer * p.inner != idx.numel())
    return invalid_model(op + ": output " + dims_to_string(out.dims) + " does not fit indices " +
                         dims_to_string(idx.dims));
  p.idx_dtype = idx.dtype;
  p.elem_size = dtype_size(values.dtype);
  return p;
}

Result<ReversePlan> check_reverse_sequence_io(const KernelConfig& cfg) {
  AMP_RETURN_IF_ERROR(check_arity(cfg, 2, 2));
  AMP_ASSIGN_OR_RETURN(const graph::ReverseSequenceAttrs* a,
                       resolved_attrs<graph::ReverseSequenceAttrs>(cfg));
  const std::string op = op_label(cfg);
  const TensorDesc& x = cfg.inputs[0];
  if (x.rank() < 2 || cfg.outputs[0].dims != x.dims || cfg.outputs[0].dtype != x.dtype)
    return invalid_model(op + ": input of rank >= 2 and an output of its shape expected");
  ReversePlan p;
  p.batch_major = a->batch_axis == 0;
  p.batch = x.dims[static_cast<size_t>(a->batch_axis)];
  p.time = x.dims[static_cast<size_t>(a->time_axis)];
  p.inner = dims_product(x.dims, 2, x.rank());
  if (cfg.inputs[1].dtype != DType::kI64 || cfg.inputs[1].numel() != p.batch)
    return invalid_model(op + ": sequence_lens must be " + std::to_string(p.batch) + " i64 values");
  p.elem_size = dtype_size(x.dtype);
  return p;
}

}  // namespace amp::kernels
