#include "kernels/common/fixed_output.h"

#include <cstring>
#include <string>

#include "kernels/common/kernel_checks.h"

namespace amp::kernels {
namespace {

Result<std::vector<uint8_t>> checked_bytes(const KernelConfig& cfg, DType dtype,
                                           const std::vector<int64_t>& dims, const void* data) {
  if (cfg.outputs.empty() || !cfg.outputs[0].present)
    return invalid_model(op_label(cfg) + ": needs an output");
  const TensorDesc& out = cfg.outputs[0];
  if (out.dtype != dtype || out.dims != dims)
    return invalid_model(op_label(cfg) + ": output is " + std::string(dtype_name(out.dtype)) +
                         dims_to_string(out.dims) + ", expected " + std::string(dtype_name(dtype)) +
                         dims_to_string(dims));
  std::vector<uint8_t> bytes(out.bytes());
  if (!bytes.empty()) std::memcpy(bytes.data(), data, bytes.size());
  return bytes;
}

}  // namespace

Result<std::vector<uint8_t>> fixed_output_bytes(const KernelConfig& cfg) {
  const graph::OpType op = cfg.node != nullptr ? cfg.node->op : graph::OpType::kIdentity;
  if (op == graph::OpType::kConstant) {
    AMP_ASSIGN_OR_RETURN(const graph::ConstantAttrs* a, resolved_attrs<graph::ConstantAttrs>(cfg));
    return checked_bytes(cfg, a->value.dtype(), a->value.dims(), a->value.bytes());
  }
  if (cfg.inputs.empty() || !cfg.inputs[0].present)
    return invalid_model(op_label(cfg) + ": needs an input");
  const std::vector<int64_t>& dims = cfg.inputs[0].dims;
  if (op == graph::OpType::kSize) {
    const int64_t n = cfg.inputs[0].numel();
    return checked_bytes(cfg, DType::kI64, {}, &n);
  }
  if (op != graph::OpType::kShape)
    return internal_error(op_label(cfg) + " has no output fixed at prepare()");
  AMP_ASSIGN_OR_RETURN(const graph::ShapeAttrs* a, resolved_attrs<graph::ShapeAttrs>(cfg));
  const int64_t rank = static_cast<int64_t>(dims.size());
  if (a->start < 0 || a->end < a->start || a->end > rank)
    return internal_error("Shape: the recorded range does not fit rank " + std::to_string(rank));
  const std::vector<int64_t> values(dims.begin() + a->start, dims.begin() + a->end);
  return checked_bytes(cfg, DType::kI64, {a->end - a->start}, values.data());
}

Result<FillElement> constant_of_shape_fill(const KernelConfig& cfg) {
  if (cfg.outputs.empty() || !cfg.outputs[0].present)
    return invalid_model("ConstantOfShape: needs an output");
  AMP_ASSIGN_OR_RETURN(const graph::FillAttrs* a, resolved_attrs<graph::FillAttrs>(cfg));
  const TensorDesc& out = cfg.outputs[0];
  if (out.dtype != a->dtype)
    return invalid_model("ConstantOfShape: output dtype " + std::string(dtype_name(out.dtype)) +
                         " differs from the value's " + std::string(dtype_name(a->dtype)));
  FillElement f;
  f.bits = a->bits;
  f.elem_size = dtype_size(a->dtype);
  f.numel = out.numel();
  return f;
}

}  // namespace amp::kernels
