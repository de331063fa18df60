// Shape & dtype inference for the shape and source ops: Shape, Size, Constant,
// ConstantOfShape, Range. Their outputs' shapes depend on attributes or on the values
// of constant inputs rather than on input shapes.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "graph/ops/infer_rules.h"
#include "graph/ops/infer_util.h"
#include "graph/ops/sym_values.h"

namespace amp::graph {
namespace {

using Inputs = std::vector<const Value*>;
using Outputs = std::vector<OutputInfo>;

// Shape's start/end: negative counts from the end, then clamp to [0, rank].
int64_t clamp_shape_index(int64_t v, int64_t r) {
  if (v < 0) v += r;  // v < 0 <= r: no overflow
  return std::clamp<int64_t>(v, 0, r);
}

}  // namespace

// Shape(data; start, end from opset 15) -> 1-D i64 of the selected dims.
Status infer_shape(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kAny));
  int64_t start = 0;
  std::optional<int64_t> end;
  if (node.op_version >= 15) {
    AMP_ASSIGN_OR_RETURN(start, node.attrs.get_int("start", 0));
    if (node.attrs.has("end")) {
      AMP_ASSIGN_OR_RETURN(int64_t e, node.attrs.get_int("end", 0));
      end = e;
    }
  }
  if (!x.shape) {
    set_output(out, 0, DType::kI64, unknown_dims(1));
    return Status::ok();
  }
  const int64_t r = static_cast<int64_t>(x.shape->rank());
  const int64_t s = clamp_shape_index(start, r);
  const int64_t e = std::max(end ? clamp_shape_index(*end, r) : r, s);
  set_output(out, 0, DType::kI64, Shape({e - s}));
  attrs = ShapeAttrs{s, e};
  return Status::ok();
}

// Size(data) -> i64 scalar.
Status infer_size(const Node&, const Inputs& in, Outputs& out, OpAttrs&) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  AMP_RETURN_IF_ERROR(check_dtype(*in[0], 0, DTypeSet::kAny));
  set_output(out, 0, DType::kI64, Shape());
  return Status::ok();
}

// Constant: the importer folds these into constant values, but a node that survives
// (or comes from elsewhere) is inferred from its one value attribute.
Status infer_constant(const Node& node, const Inputs&, Outputs& out, OpAttrs& attrs) {
  static const char* const kUnsupported[] = {"sparse_value", "value_string", "value_strings"};
  for (const char* name : kUnsupported)
    if (node.attrs.has(name))
      return unsupported(std::string("Constant with attribute '") + name + "' is not supported");
  static const char* const kKinds[] = {"value", "value_float", "value_floats", "value_int",
                                       "value_ints"};
  int present = 0;
  for (const char* name : kKinds) present += node.attrs.has(name) ? 1 : 0;
  if (present != 1)
    return invalid_model(
        "Constant needs exactly one of the attributes value, value_float, "
        "value_floats, value_int, value_ints; it has " +
        std::to_string(present));
  ConstantAttrs rec;
  if (node.attrs.has("value")) {
    AMP_ASSIGN_OR_RETURN(std::optional<TensorData> t, node.attrs.get_tensor("value"));
    if (!t || t->dtype() == DType::kUndefined)
      return invalid_model("attribute 'value' has no dtype");
    rec.value = *t;
  } else if (node.attrs.has("value_float")) {
    AMP_ASSIGN_OR_RETURN(const float v, node.attrs.get_float("value_float", 0.0f));
    rec.value = TensorData::scalar_f32(v);
  } else if (node.attrs.has("value_int")) {
    AMP_ASSIGN_OR_RETURN(const int64_t v, node.attrs.get_int("value_int", 0));
    rec.value = TensorData::scalar_i64(v);
  } else if (node.attrs.has("value_floats")) {
    AMP_ASSIGN_OR_RETURN(const std::vector<float> v, node.attrs.get_floats("value_floats"));
    rec.value = TensorData::from_vector<float>(DType::kF32, {static_cast<int64_t>(v.size())}, v);
  } else {
    AMP_ASSIGN_OR_RETURN(const std::vector<int64_t> v, node.attrs.get_ints("value_ints"));
    rec.value = TensorData::vector_i64(v);
  }
  set_output(out, 0, rec.value.dtype(), Shape::from_static(rec.value.dims()));
  attrs = std::move(rec);
  return Status::ok();
}

// ConstantOfShape(shape) filled with the one-element 'value' tensor (default f32 0).
Status infer_constant_of_shape(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  const Value& shape_v = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(shape_v, 0, DTypeSet::kI64));
  AMP_RETURN_IF_ERROR(check_1d(shape_v, 0));
  DType dtype = DType::kF32;
  AMP_ASSIGN_OR_RETURN(std::optional<TensorData> value, node.attrs.get_tensor("value"));
  if (value) {
    if (value->numel() != 1)
      return invalid_model("attribute 'value' must hold one element, it has " +
                           std::to_string(value->numel()));
    if (value->dtype() == DType::kUndefined) return invalid_model("attribute 'value' has no dtype");
    dtype = value->dtype();
  }
  FillAttrs fill;
  fill.dtype = dtype;
  if (value) std::memcpy(&fill.bits, value->bytes(), dtype_size(dtype));
  attrs = fill;
  AMP_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> dims, const_ints(shape_v, 0));
  if (!dims) {
    if (std::optional<std::vector<SymInt>> sym = sym_ints(shape_v)) {  // Shape(x) computed
      AMP_RETURN_IF_ERROR(check_rank_limit(static_cast<int64_t>(sym->size())));
      Shape s;
      for (const SymInt& v : *sym) s.dims.push_back(v.to_dim());
      set_output(out, 0, dtype, std::move(s));
      return Status::ok();
    }
    std::optional<int64_t> len = static_length(shape_v);
    if (len) AMP_RETURN_IF_ERROR(check_rank_limit(*len));
    set_output(out, 0, dtype,
               len ? std::optional<Shape>(unknown_dims(static_cast<size_t>(*len))) : std::nullopt);
    return Status::ok();
  }
  for (int64_t d : *dims)
    if (d < 0) return invalid_model("input 0 " + ints_to_string(*dims) + " has a negative dim");
  if (!checked_numel(*dims)) return overflow_error("the element count of " + ints_to_string(*dims));
  set_output(out, 0, dtype, Shape::from_static(*dims));
  return Status::ok();
}

namespace {

bool range_dtype(DType t) {
  return is_float(t) || t == DType::kI16 || t == DType::kI32 || t == DType::kI64;
}

// max(ceil((limit - start) / delta), 0) without overflow, for integer ranges.
Result<int64_t> int_range_length(int64_t start, int64_t limit, int64_t delta) {
  const __int128 diff = static_cast<__int128>(limit) - start;
  __int128 q = diff / delta;
  if (diff % delta != 0 && (diff > 0) == (delta > 0)) ++q;  // round toward +inf
  if (q < 0) q = 0;
  if (q > INT64_MAX) return overflow_error("the Range length");
  return static_cast<int64_t>(q);
}

// The float version, computed as ONNX Runtime does: limit - start in the input's
// precision, the division in double.
Result<int64_t> float_range_length(DType t, double start, double limit, double delta) {
  const double diff =
      t == DType::kF32 ? static_cast<double>(static_cast<float>(limit) - static_cast<float>(start))
                       : limit - start;
  const double n = std::ceil(diff / delta);
  if (std::isnan(n)) return invalid_model("Range length is not a number");
  if (n <= 0) return int64_t{0};
  if (!(n < 9.0e18)) return overflow_error("the Range length");
  return static_cast<int64_t>(n);
}

}  // namespace

// Range(start, limit, delta): scalars of one dtype; the length is known when all three
// are constants.
Status infer_range(const Node&, const Inputs& in, Outputs& out, OpAttrs&) {
  for (size_t i = 0; i < 3; ++i) AMP_RETURN_IF_ERROR(require_input(in, i));
  const DType t = in[0]->dtype;
  if (!range_dtype(t))
    return invalid_model("input 0 has dtype " + std::string(dtype_name(t)) +
                         ", expected a float type, i16, i32 or i64");
  for (size_t i = 0; i < 3; ++i) {
    AMP_RETURN_IF_ERROR(check_same_dtype(*in[i], i, *in[0], 0));
    AMP_RETURN_IF_ERROR(check_scalar(*in[i], i, /*allow_1=*/true));
  }
  if (!in[0]->is_constant() || !in[1]->is_constant() || !in[2]->is_constant()) {
    // Integer start and limit known symbolically with a delta of 1 (a position range
    // arange(past, past + s)): the length is limit - start.
    std::optional<std::vector<SymInt>> start = sym_ints(*in[0]), limit = sym_ints(*in[1]),
                                       delta = sym_ints(*in[2]);
    Dim n;
    if (!is_float(t) && start && limit && delta && start->size() == 1 && limit->size() == 1 &&
        delta->size() == 1 && (*delta)[0].constant_value() == 1)
      n = ((*limit)[0] - (*start)[0]).to_dim();
    set_output(out, 0, t, Shape({n}));
    return Status::ok();
  }
  for (size_t i = 0; i < 3; ++i)
    if (in[i]->constant->numel() != 1)
      return invalid_model("input " + std::to_string(i) + " must hold one element");
  int64_t n = 0;
  if (is_float(t)) {
    const double start = in[0]->constant->to_f64_vector()[0];
    const double limit = in[1]->constant->to_f64_vector()[0];
    const double delta = in[2]->constant->to_f64_vector()[0];
    if (delta == 0.0) return invalid_model("Range delta is 0");
    AMP_ASSIGN_OR_RETURN(n, float_range_length(t, start, limit, delta));
  } else {
    int64_t v[3];
    for (size_t i = 0; i < 3; ++i) {
      AMP_ASSIGN_OR_RETURN(std::vector<int64_t> data, in[i]->constant->to_i64_vector());
      v[i] = data[0];
    }
    if (v[2] == 0) return invalid_model("Range delta is 0");
    AMP_ASSIGN_OR_RETURN(n, int_range_length(v[0], v[1], v[2]));
  }
  set_output(out, 0, t, Shape({n}));
  return Status::ok();
}

}  // namespace amp::graph
