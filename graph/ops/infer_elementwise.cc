// Shape & dtype inference for elementwise ops: unary math, activations and predicates,
// binary arithmetic and comparisons with multidirectional broadcasting, variadic
// Max/Min/Sum/Mean, Where, Cast, CastLike and Clip. Dtype sets follow the ONNX type constraints of
// the newest opset.
#include <cstdint>
#include <string>

#include "graph/ops/infer_rules.h"
#include "graph/ops/infer_util.h"

namespace amp::graph {
namespace {

using Inputs = std::vector<const Value*>;
using Outputs = std::vector<OutputInfo>;

// Same dtype and shape as input 0, which must be in `set`.
Status unary(const Inputs& in, Outputs& out, DTypeSet set) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  AMP_RETURN_IF_ERROR(check_dtype(*in[0], 0, set));
  set_output(out, 0, in[0]->dtype, in[0]->shape);
  return Status::ok();
}

// Two inputs of one dtype in `set`, broadcast; output dtype `result` or the inputs'.
Status binary(const Inputs& in, Outputs& out, DTypeSet set, std::optional<DType> result) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  AMP_RETURN_IF_ERROR(require_input(in, 1));
  AMP_RETURN_IF_ERROR(check_dtype(*in[0], 0, set));
  AMP_RETURN_IF_ERROR(check_same_dtype(*in[1], 1, *in[0], 0));
  AMP_ASSIGN_OR_RETURN(std::optional<Shape> shape, broadcast_values({in[0], in[1]}));
  set_output(out, 0, result.value_or(in[0]->dtype), std::move(shape));
  return Status::ok();
}

// A float activation whose one float attribute is `name` (default `fallback`), kept as the
// record's alpha.
Status unary_with_alpha(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs,
                        const char* name, float fallback) {
  FunctorAttrs rec;
  AMP_ASSIGN_OR_RETURN(rec.alpha, node.attrs.get_float(name, fallback));
  attrs = rec;
  return unary(in, out, DTypeSet::kFloat);
}

// Max, Min (numeric), Sum, Mean (float): one or more inputs of one dtype, all broadcast
// together.
Status variadic(const Inputs& in, Outputs& out, DTypeSet set) {
  if (in.empty()) return invalid_model("takes at least 1 input, has 0");
  for (size_t i = 0; i < in.size(); ++i) {
    AMP_RETURN_IF_ERROR(require_input(in, i));
    if (i == 0)
      AMP_RETURN_IF_ERROR(check_dtype(*in[0], 0, set));
    else
      AMP_RETURN_IF_ERROR(check_same_dtype(*in[i], i, *in[0], 0));
  }
  AMP_ASSIGN_OR_RETURN(std::optional<Shape> shape, broadcast_values(in));
  set_output(out, 0, in[0]->dtype, std::move(shape));
  return Status::ok();
}

}  // namespace

Status infer_unary_numeric(const Node&, const Inputs& in, Outputs& out, OpAttrs&) {
  return unary(in, out, DTypeSet::kNumeric);
}
Status infer_unary_float(const Node&, const Inputs& in, Outputs& out, OpAttrs&) {
  return unary(in, out, DTypeSet::kFloat);
}
// Neg; Relu accepts signed integers since opset 14.
Status infer_unary_signed(const Node&, const Inputs& in, Outputs& out, OpAttrs&) {
  return unary(in, out, DTypeSet::kSignedNumeric);
}
Status infer_unary_bool(const Node&, const Inputs& in, Outputs& out, OpAttrs&) {
  return unary(in, out, DTypeSet::kBool);
}

Status infer_gelu(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  // The kernel picks the formula from 'approximate'; an unknown value is malformed. (A
  // plain Result rather than AMP_ASSIGN_OR_RETURN: GCC 12 warns spuriously about a
  // moved-from std::string there.)
  const Result<std::string> approx = node.attrs.get_string("approximate", "none");
  if (!approx.is_ok()) return approx.status();
  if (*approx != "none" && *approx != "tanh")
    return invalid_model("attribute 'approximate' is '" + *approx + "', expected none or tanh");
  FunctorAttrs rec;
  rec.gelu_tanh = *approx == "tanh";
  attrs = rec;
  return unary(in, out, DTypeSet::kFloat);
}

// LeakyRelu(alpha = 0.01).
Status infer_leaky_relu(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  FunctorAttrs rec;
  AMP_ASSIGN_OR_RETURN(rec.alpha, node.attrs.get_float("alpha", 0.01f));
  attrs = rec;
  return unary(in, out, DTypeSet::kFloat);
}

// HardSigmoid(alpha = 0.2, beta = 0.5): max(0, min(1, alpha * x + beta)).
Status infer_hard_sigmoid(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  FunctorAttrs rec;
  AMP_ASSIGN_OR_RETURN(rec.alpha, node.attrs.get_float("alpha", 0.2f));
  AMP_ASSIGN_OR_RETURN(rec.beta, node.attrs.get_float("beta", 0.5f));
  attrs = rec;
  return unary(in, out, DTypeSet::kFloat);
}

// Elu(alpha = 1): alpha (e^x - 1) below 0.
Status infer_elu(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  return unary_with_alpha(node, in, out, attrs, "alpha", 1.0f);
}
// Celu(alpha = 1): max(0, x) + min(0, alpha (e^(x / alpha) - 1)); alpha 0 divides by zero.
Status infer_celu(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  AMP_RETURN_IF_ERROR(unary_with_alpha(node, in, out, attrs, "alpha", 1.0f));
  if (std::get<FunctorAttrs>(attrs).alpha == 0.0f)
    return invalid_model("attribute 'alpha' must not be 0");
  return Status::ok();
}
// ThresholdedRelu(alpha = 1): x above alpha, else 0.
Status infer_thresholded_relu(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  return unary_with_alpha(node, in, out, attrs, "alpha", 1.0f);
}
// Selu(alpha = 1.67326..., gamma = 1.0507...): gamma x above 0, gamma alpha (e^x - 1) below.
Status infer_selu(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  FunctorAttrs rec;
  AMP_ASSIGN_OR_RETURN(rec.alpha, node.attrs.get_float("alpha", 1.67326319217681884765625f));
  AMP_ASSIGN_OR_RETURN(rec.beta, node.attrs.get_float("gamma", 1.05070102214813232421875f));
  attrs = rec;
  return unary(in, out, DTypeSet::kFloat);
}
// Shrink(bias = 0, lambd = 0.5), any numeric type.
Status infer_shrink(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  FunctorAttrs rec;
  AMP_ASSIGN_OR_RETURN(rec.alpha, node.attrs.get_float("lambd", 0.5f));
  AMP_ASSIGN_OR_RETURN(rec.beta, node.attrs.get_float("bias", 0.0f));
  attrs = rec;
  return unary(in, out, DTypeSet::kNumeric);
}
// IsNaN: a float tensor's NaN mask.
Status infer_is_nan(const Node&, const Inputs& in, Outputs& out, OpAttrs&) {
  AMP_RETURN_IF_ERROR(unary(in, out, DTypeSet::kFloat));
  out[0].dtype = DType::kBool;
  return Status::ok();
}
// IsInf(detect_negative = 1, detect_positive = 1): a float tensor's infinity mask.
Status infer_is_inf(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  AMP_ASSIGN_OR_RETURN(int64_t negative, node.attrs.get_int("detect_negative", 1));
  AMP_ASSIGN_OR_RETURN(int64_t positive, node.attrs.get_int("detect_positive", 1));
  FunctorAttrs rec;
  rec.detect_negative = negative != 0;
  rec.detect_positive = positive != 0;
  attrs = rec;
  AMP_RETURN_IF_ERROR(unary(in, out, DTypeSet::kFloat));
  out[0].dtype = DType::kBool;
  return Status::ok();
}

Status infer_binary_numeric(const Node&, const Inputs& in, Outputs& out, OpAttrs&) {
  return binary(in, out, DTypeSet::kNumeric, std::nullopt);
}
// Mod: integer remainder takes the divisor's sign (fmod=0, Python's %) or the dividend's
// (fmod=1, C's fmod); float inputs require fmod=1 (ONNX).
Status infer_mod(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  AMP_ASSIGN_OR_RETURN(int64_t fmod, node.attrs.get_int("fmod", 0));
  if (fmod != 0 && fmod != 1) return invalid_model("attribute 'fmod' must be 0 or 1");
  AMP_RETURN_IF_ERROR(binary(in, out, DTypeSet::kNumeric, std::nullopt));
  if (fmod == 0 && is_float(in[0]->dtype))
    return invalid_model("attribute 'fmod' must be 1 for float inputs");
  FunctorAttrs rec;
  rec.fmod = fmod == 1;
  attrs = rec;
  return Status::ok();
}
Status infer_compare_numeric(const Node&, const Inputs& in, Outputs& out, OpAttrs&) {
  return binary(in, out, DTypeSet::kNumeric, DType::kBool);
}
Status infer_compare_numeric_or_bool(const Node&, const Inputs& in, Outputs& out, OpAttrs&) {
  return binary(in, out, DTypeSet::kNumericOrBool, DType::kBool);
}
Status infer_logical_binary(const Node&, const Inputs& in, Outputs& out, OpAttrs&) {
  return binary(in, out, DTypeSet::kBool, DType::kBool);
}

// PRelu(X, slope): slope broadcasts to X (unidirectionally), so the output is X's shape.
Status infer_prelu(const Node&, const Inputs& in, Outputs& out, OpAttrs&) {
  AMP_RETURN_IF_ERROR(binary(in, out, DTypeSet::kFloat, std::nullopt));
  if (in[0]->shape && out[0].shape && *out[0].shape != *in[0]->shape)
    return invalid_model("slope " + in[1]->shape->to_string() + " does not broadcast to X " +
                         in[0]->shape->to_string());
  return Status::ok();
}

// Pow's exponent may have another numeric dtype than the base; the result is the base's.
Status infer_pow(const Node&, const Inputs& in, Outputs& out, OpAttrs&) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  AMP_RETURN_IF_ERROR(require_input(in, 1));
  AMP_RETURN_IF_ERROR(check_dtype(*in[0], 0, DTypeSet::kFloatOrI32I64));
  AMP_RETURN_IF_ERROR(check_dtype(*in[1], 1, DTypeSet::kNumeric));
  AMP_ASSIGN_OR_RETURN(std::optional<Shape> shape, broadcast_values({in[0], in[1]}));
  set_output(out, 0, in[0]->dtype, std::move(shape));
  return Status::ok();
}

Status infer_variadic_numeric(const Node&, const Inputs& in, Outputs& out, OpAttrs&) {
  return variadic(in, out, DTypeSet::kNumeric);
}
Status infer_variadic_float(const Node&, const Inputs& in, Outputs& out, OpAttrs&) {
  return variadic(in, out, DTypeSet::kFloat);
}

Status infer_where(const Node&, const Inputs& in, Outputs& out, OpAttrs&) {
  for (size_t i = 0; i < 3; ++i) AMP_RETURN_IF_ERROR(require_input(in, i));
  AMP_RETURN_IF_ERROR(check_dtype(*in[0], 0, DTypeSet::kBool));
  AMP_RETURN_IF_ERROR(check_dtype(*in[1], 1, DTypeSet::kAny));
  AMP_RETURN_IF_ERROR(check_same_dtype(*in[2], 2, *in[1], 1));
  AMP_ASSIGN_OR_RETURN(std::optional<Shape> shape, broadcast_values({in[0], in[1], in[2]}));
  set_output(out, 0, in[1]->dtype, std::move(shape));
  return Status::ok();
}

// Cast: the output dtype is attribute 'to', an ONNX TensorProto.DataType number.
Status infer_cast(const Node& node, const Inputs& in, Outputs& out, OpAttrs&) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  AMP_RETURN_IF_ERROR(check_dtype(*in[0], 0, DTypeSet::kAny));
  if (!node.attrs.has("to")) return invalid_model("attribute 'to' is required");
  AMP_ASSIGN_OR_RETURN(int64_t to, node.attrs.get_int("to", 0));
  if (to <= 0 || to > INT32_MAX)
    return invalid_model("attribute 'to' is " + std::to_string(to) + ", not an ONNX dtype");
  std::optional<DType> dtype = dtype_from_onnx(static_cast<int32_t>(to));
  if (!dtype) return unsupported("Cast to ONNX dtype " + std::to_string(to) + " is not supported");
  set_output(out, 0, *dtype, in[0]->shape);
  return Status::ok();
}

// CastLike(input, target_type): a Cast to target_type's dtype, whose values are not read.
Status infer_cast_like(const Node&, const Inputs& in, Outputs& out, OpAttrs&) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  AMP_RETURN_IF_ERROR(require_input(in, 1));
  AMP_RETURN_IF_ERROR(check_dtype(*in[0], 0, DTypeSet::kAny));
  AMP_RETURN_IF_ERROR(check_dtype(*in[1], 1, DTypeSet::kAny));
  set_output(out, 0, in[1]->dtype, in[0]->shape);
  return Status::ok();
}

// Clip(input, min, max): min and max are optional scalars of the input's dtype.
Status infer_clip(const Node&, const Inputs& in, Outputs& out, OpAttrs&) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  AMP_RETURN_IF_ERROR(check_dtype(*in[0], 0, DTypeSet::kNumeric));
  for (size_t i = 1; i < 3; ++i) {
    const Value* bound = optional_input(in, i);
    if (bound == nullptr) continue;
    AMP_RETURN_IF_ERROR(check_same_dtype(*bound, i, *in[0], 0));
    // ONNX says scalar; exporters sometimes write shape [1], which is just as clear.
    AMP_RETURN_IF_ERROR(check_scalar(*bound, i, /*allow_1=*/true));
  }
  set_output(out, 0, in[0]->dtype, in[0]->shape);
  return Status::ok();
}

}  // namespace amp::graph
