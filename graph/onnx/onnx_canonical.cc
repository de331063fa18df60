#include "graph/onnx/onnx_canonical.h"

#include <string>
#include <utility>

#include "runtime/common/half.h"

namespace amp::graph::onnx_import {
namespace {

std::string label(const Node& n) {
  return "node '" + n.name + "' (" + std::string(op_name(n.op)) + ", opset " +
         std::to_string(n.op_version) + ")";
}

ValueId add_constant(CanonContext& ctx, const Node& n, const std::string& what, TensorData data) {
  Value v;
  v.name = ctx.names.fresh(n.name + "_" + what);
  v.dtype = data.dtype();
  v.shape = Shape::from_static(data.dims());
  v.constant = std::move(data);
  return ctx.graph.add_value(std::move(v));
}

Status set_input(Node& n, size_t index, ValueId v, const std::string& attr) {
  if (index < n.inputs.size() && n.inputs[index] != kNoValue)
    return invalid_model(label(n) + ": has both attribute '" + attr + "' and input " +
                         std::to_string(index));
  if (n.inputs.size() <= index) n.inputs.resize(index + 1, kNoValue);
  n.inputs[index] = v;
  return Status::ok();
}

// INTS attribute -> 1-D i64 constant input (the form later opsets take it in).
Status ints_attr_to_input(Node& n, CanonContext& ctx, const std::string& attr, size_t index,
                          bool required) {
  if (!n.attrs.has(attr)) {
    if (!required) return Status::ok();
    return invalid_model(label(n) + ": missing required attribute '" + attr + "'");
  }
  auto values = n.attrs.get_ints(attr);
  if (!values.is_ok()) return values.status().with_context(label(n));
  n.attrs.erase(attr);
  return set_input(n, index, add_constant(ctx, n, attr, TensorData::vector_i64(*values)), attr);
}

// A scalar in input 0's dtype when that is a known float type, else f32: later opsets
// require Clip's min/max and Pad's constant_value to match the data's dtype. Inputs whose
// dtype is unknown at import (intermediates without value_info) get f32.
TensorData float_scalar_like(const Graph& g, const Node& n, float v) {
  const DType dt =
      n.inputs.empty() || n.inputs[0] == kNoValue ? DType::kF32 : g.value(n.inputs[0]).dtype;
  switch (dt) {
    case DType::kF16:
      return TensorData::from_vector<uint16_t>(DType::kF16, {}, {float_to_half_bits(v)});
    case DType::kBF16:
      return TensorData::from_vector<uint16_t>(DType::kBF16, {}, {float_to_bf16_bits(v)});
    case DType::kF64:
      return TensorData::from_vector<double>(DType::kF64, {}, {static_cast<double>(v)});
    case DType::kF32:
    case DType::kUndefined:
    case DType::kU8:
    case DType::kI8:
    case DType::kI16:
    case DType::kI32:
    case DType::kI64:
    case DType::kBool:
      break;
  }
  return TensorData::scalar_f32(v);
}

// FLOAT attribute -> scalar constant input.
Status float_attr_to_input(Node& n, CanonContext& ctx, const std::string& attr, size_t index) {
  if (!n.attrs.has(attr)) return Status::ok();
  auto value = n.attrs.get_float(attr, 0.0f);
  if (!value.is_ok()) return value.status().with_context(label(n));
  n.attrs.erase(attr);
  return set_input(n, index, add_constant(ctx, n, attr, float_scalar_like(ctx.graph, n, *value)),
                   attr);
}

Status canonicalize_slice(Node& n, CanonContext& ctx) {
  if (n.op_version >= 10) return Status::ok();
  AMP_RETURN_IF_ERROR(ints_attr_to_input(n, ctx, "starts", 1, true));
  AMP_RETURN_IF_ERROR(ints_attr_to_input(n, ctx, "ends", 2, true));
  return ints_attr_to_input(n, ctx, "axes", 3, false);
}

Status canonicalize_clip(Node& n, CanonContext& ctx) {
  if (n.op_version >= 11) return Status::ok();
  AMP_RETURN_IF_ERROR(float_attr_to_input(n, ctx, "min", 1));
  return float_attr_to_input(n, ctx, "max", 2);
}

Status canonicalize_pad(Node& n, CanonContext& ctx) {
  if (n.op_version >= 11) return Status::ok();
  AMP_RETURN_IF_ERROR(ints_attr_to_input(n, ctx, "pads", 1, true));
  return float_attr_to_input(n, ctx, "value", 2);
}

bool is_empty_constant(const Graph& g, ValueId v) {
  return v != kNoValue && g.value(v).is_constant() && g.value(v).constant->numel() == 0;
}

Status canonicalize_resize(Node& n, CanonContext& ctx) {
  if (n.op_version < 11) {
    // Resize-10 (and Upsample-9, imported as it) is (X, scales) with asymmetric coordinates;
    // its nearest mode rounds down (what ONNX's own Resize 10->11 version converter writes).
    // Stated explicitly so the newer defaults (half_pixel, round_prefer_floor) never apply.
    // Upsample-7 takes the scales as an attribute.
    if (n.inputs.size() == 1 && n.attrs.has("scales")) {
      auto scales = n.attrs.get_floats("scales");
      if (!scales.is_ok()) return scales.status().with_context(label(n));
      const int64_t count = static_cast<int64_t>(scales->size());
      n.attrs.erase("scales");
      n.inputs.push_back(add_constant(
          ctx, n, "scales", TensorData::from_vector<float>(DType::kF32, {count}, *scales)));
    }
    if (n.inputs.size() != 2)
      return invalid_model(label(n) + ": takes 2 inputs (X, scales), has " +
                           std::to_string(n.inputs.size()));
    n.inputs = {n.inputs[0], kNoValue, n.inputs[1]};
    auto mode = n.attrs.get_string("mode", "nearest");
    if (!mode.is_ok()) return mode.status().with_context(label(n));
    n.attrs.set("coordinate_transformation_mode", std::string("asymmetric"));
    if (*mode == "nearest") n.attrs.set("nearest_mode", std::string("floor"));
    return Status::ok();
  }
  if (n.op_version < 13) {
    auto ctm = n.attrs.get_string("coordinate_transformation_mode", "half_pixel");
    if (!ctm.is_ok()) return ctm.status().with_context(label(n));
    if (*ctm == "tf_half_pixel_for_nn")
      return unsupported(label(n) +
                         ": coordinate_transformation_mode 'tf_half_pixel_for_nn' (removed in "
                         "opset 13)");
  }
  // Opsets 11-12 require roi (and scales next to sizes) as inputs and pass empty tensors
  // for "not given"; the canonical form leaves them absent.
  for (size_t k = 1; k <= 2 && k < n.inputs.size(); ++k)
    if (is_empty_constant(ctx.graph, n.inputs[k])) n.inputs[k] = kNoValue;
  return Status::ok();
}

Status canonicalize_batchnorm(Node& n, CanonContext& ctx) {
  // Bookkeeping attributes of old versions with no effect on inference.
  n.attrs.erase("consumed_inputs");
  n.attrs.erase("is_test");
  auto spatial = n.attrs.get_int("spatial", 1);
  if (!spatial.is_ok()) return spatial.status().with_context(label(n));
  if (*spatial == 0) return unsupported(label(n) + ": spatial=0 (per-activation statistics)");
  n.attrs.erase("spatial");
  auto training = n.attrs.get_int("training_mode", 0);
  if (!training.is_ok()) return training.status().with_context(label(n));
  if (*training != 0) return unsupported(label(n) + ": training_mode=1");
  if (n.op_version >= 14) return Status::ok();
  // Before opset 14 the extra outputs (mean, var, saved mean/var) exist only in training.
  for (size_t k = 1; k < n.outputs.size(); ++k) {
    const ValueId v = n.outputs[k];
    if (v != kNoValue && ctx.used[static_cast<size_t>(v)])
      return unsupported(label(n) + ": training-mode output '" + ctx.graph.value(v).name +
                         "' is used");
  }
  n.outputs.resize(1);
  return Status::ok();
}

Status check_cast(Node& n, CanonContext&) {
  auto to = n.attrs.get_int("to", 0);
  if (!to.is_ok()) return to.status().with_context(label(n));
  if (*to == 0) return invalid_model(label(n) + ": missing attribute 'to'");
  if (*to < 0 || *to > INT32_MAX || !dtype_from_onnx(static_cast<int32_t>(*to)))
    return unsupported(label(n) + ": cast to " +
                       onnx_dtype_name(static_cast<int32_t>(*to > INT32_MAX ? -1 : *to)));
  return Status::ok();
}

// The ops whose older versions differ from the newest in more than a moved attribute.
struct Rewrite {
  OpType op;
  Status (*fn)(Node&, CanonContext&);
};
constexpr Rewrite kRewrites[] = {
    {OpType::kBatchNormalization, canonicalize_batchnorm},
    {OpType::kCast, check_cast},
    {OpType::kClip, canonicalize_clip},
    {OpType::kPad, canonicalize_pad},
    {OpType::kResize, canonicalize_resize},
    {OpType::kSlice, canonicalize_slice},
};

// Every other op has one form across opsets 7..28 but for the attribute its op table row
// says older opsets took instead of an input (differences are new optional attributes or
// inputs whose defaults reproduce the old behaviour, or semantics read from op_version; see
// README.md).
Status canonicalize_by_op(Node& n, CanonContext& ctx) {
  const MovedAttribute moved = moved_attribute(n.op);
  if (moved.name != nullptr && n.op_version < moved.before_opset)
    AMP_RETURN_IF_ERROR(
        ints_attr_to_input(n, ctx, moved.name, static_cast<size_t>(moved.input), moved.required));
  for (const Rewrite& r : kRewrites)
    if (r.op == n.op) return r.fn(n, ctx);
  return Status::ok();
}

}  // namespace

Status canonicalize_node(Node& n, CanonContext& ctx) {
  AMP_RETURN_IF_ERROR(canonicalize_by_op(n, ctx));
  // ONNX allows trailing "" inputs; one form means none.
  while (!n.inputs.empty() && n.inputs.back() == kNoValue) n.inputs.pop_back();
  return Status::ok();
}

}  // namespace amp::graph::onnx_import
