// Shape & dtype inference for reductions: ReduceMean/Max/Min/Sum (axes as optional
// input 1, keepdims, noop_with_empty_axes) and ArgMax (axis, keepdims; i64 output).
#include <string>

#include "graph/ops/infer_rules.h"
#include "graph/ops/infer_util.h"

namespace amp::graph {
namespace {

using Inputs = std::vector<const Value*>;
using Outputs = std::vector<OutputInfo>;

// The input shape with `reduced` axes set to 1 (keepdims) or removed.
Shape reduce_shape(const Shape& in, const std::vector<char>& reduced, bool keepdims) {
  Shape out;
  for (size_t i = 0; i < in.rank(); ++i) {
    if (!reduced[i])
      out.dims.push_back(in.dims[i]);
    else if (keepdims)
      out.dims.emplace_back(1);
  }
  return out;
}

Status reduce(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs, DTypeSet set) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, set));
  AMP_ASSIGN_OR_RETURN(bool keepdims, read_flag(node, "keepdims", 1));
  AMP_ASSIGN_OR_RETURN(bool noop_empty, read_flag(node, "noop_with_empty_axes", 0));
  attrs = ReduceAttrs{keepdims, noop_empty};

  // Axes: absent or empty means "all axes", or "none" with noop_with_empty_axes.
  std::optional<std::vector<int64_t>> axes = std::vector<int64_t>();
  const Value* axes_v = optional_input(in, 1);
  if (axes_v != nullptr) {
    AMP_RETURN_IF_ERROR(check_dtype(*axes_v, 1, DTypeSet::kI64));
    AMP_RETURN_IF_ERROR(check_1d(*axes_v, 1));
    AMP_ASSIGN_OR_RETURN(axes, const_ints(*axes_v, 1));
    if (!axes) {
      std::optional<int64_t> len = static_length(*axes_v);
      if (len && *len == 0) axes = std::vector<int64_t>();
    }
  }
  if (!x.shape) {
    set_output(out, 0, x.dtype, std::nullopt);
    return Status::ok();
  }
  const size_t r = x.shape->rank();
  if (!axes) {
    // Which axes is a run-time matter. With keepdims the rank stays; without it the rank
    // drops by the axes' length when that is known.
    std::optional<int64_t> len = static_length(*axes_v);
    if (keepdims) {
      Shape s = *x.shape;
      for (Dim& d : s.dims)
        if (!(d.is_static() && d.value == 1)) d = Dim();
      set_output(out, 0, x.dtype, std::move(s));
    } else if (len && *len <= static_cast<int64_t>(r)) {
      set_output(out, 0, x.dtype, unknown_dims(r - static_cast<size_t>(*len)));
    } else {
      set_output(out, 0, x.dtype, std::nullopt);
    }
    return Status::ok();
  }
  std::vector<char> reduced(r, 0);
  if (axes->empty()) {
    if (noop_empty) {
      set_output(out, 0, x.dtype, x.shape);
      return Status::ok();
    }
    for (char& c : reduced) c = 1;
  } else {
    AMP_ASSIGN_OR_RETURN(std::vector<int64_t> norm, normalize_axes(*axes, static_cast<int64_t>(r)));
    for (int64_t a : norm) reduced[static_cast<size_t>(a)] = 1;
  }
  set_output(out, 0, x.dtype, reduce_shape(*x.shape, reduced, keepdims));
  return Status::ok();
}

}  // namespace

// ReduceSum, ReduceMean and the other sums over axes.
Status infer_reduce_numeric(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  return reduce(node, in, out, attrs, DTypeSet::kNumeric);
}
// ReduceMax and ReduceMin accept bool since opset 20.
Status infer_reduce_numeric_or_bool(const Node& node, const Inputs& in, Outputs& out,
                                    OpAttrs& attrs) {
  return reduce(node, in, out, attrs, DTypeSet::kNumericOrBool);
}

// ArgMax, ArgMin: the index (i64) of the extreme along one axis.
Status infer_arg_reduce(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kNumeric));
  AMP_ASSIGN_OR_RETURN(int64_t axis, node.attrs.get_int("axis", 0));
  ArgReduceAttrs rec;
  AMP_ASSIGN_OR_RETURN(rec.keepdims, read_flag(node, "keepdims", 1));
  AMP_ASSIGN_OR_RETURN(rec.select_last_index, read_flag(node, "select_last_index", 0));
  if (!x.shape) {
    set_output(out, 0, DType::kI64, std::nullopt);
    return Status::ok();
  }
  const size_t r = x.shape->rank();
  // ONNX leaves rank 0 undefined: there is no axis to index.
  if (r == 0) return invalid_model("input 0 must have rank >= 1");
  AMP_ASSIGN_OR_RETURN(int64_t a, normalize_axis(axis, static_cast<int64_t>(r)));
  std::vector<char> reduced(r, 0);
  reduced[static_cast<size_t>(a)] = 1;
  set_output(out, 0, DType::kI64, reduce_shape(*x.shape, reduced, rec.keepdims));
  rec.axis = a;
  if (std::optional<AxisGeometry> g = axis_geometry(*x.shape, a)) rec.geometry = *g;
  attrs = rec;
  return Status::ok();
}

// CumSum(x, axis): x's shape and dtype. The axis (an i32/i64 scalar) may be fed at run
// time; a constant one is checked here.
Status infer_cum_sum(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  AMP_RETURN_IF_ERROR(require_input(in, 1));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kNumeric));
  AMP_RETURN_IF_ERROR(check_dtype(*in[1], 1, DTypeSet::kIndex));
  AMP_RETURN_IF_ERROR(check_scalar(*in[1], 1, /*allow_1=*/true));
  if (x.shape && x.shape->rank() == 0) return invalid_model("input 0 must have rank >= 1");
  AMP_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> axis, const_ints(*in[1], 1));
  if (axis && x.shape) {
    if (axis->size() != 1) return invalid_model("axis (input 1) must hold one value");
    AMP_RETURN_IF_ERROR(normalize_axis((*axis)[0], static_cast<int64_t>(x.shape->rank())).status());
  }
  CumSumAttrs rec;
  AMP_ASSIGN_OR_RETURN(rec.exclusive, read_flag(node, "exclusive", 0));
  AMP_ASSIGN_OR_RETURN(rec.reverse, read_flag(node, "reverse", 0));
  attrs = rec;
  set_output(out, 0, x.dtype, x.shape);
  return Status::ok();
}

// TopK(X, K [1]; axis, largest, sorted): values (X's dtype) and i64 indices, X's shape with
// K on the axis. K fed at run time leaves that dim unknown until the runtime binds it.
Status infer_top_k(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  AMP_RETURN_IF_ERROR(require_input(in, 1));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kNumeric));
  AMP_RETURN_IF_ERROR(check_dtype(*in[1], 1, DTypeSet::kI64));
  AMP_RETURN_IF_ERROR(check_scalar(*in[1], 1, /*allow_1=*/true));
  AMP_ASSIGN_OR_RETURN(int64_t axis, node.attrs.get_int("axis", -1));
  TopKAttrs rec;
  if (node.op_version == 0 || node.op_version >= 11) {
    AMP_ASSIGN_OR_RETURN(rec.largest, read_flag(node, "largest", 1));
    AMP_ASSIGN_OR_RETURN(rec.sorted, read_flag(node, "sorted", 1));
  }
  if (!x.shape) {
    set_output(out, 0, x.dtype, std::nullopt);
    set_output(out, 1, DType::kI64, std::nullopt);
    attrs = rec;
    return Status::ok();
  }
  const int64_t r = static_cast<int64_t>(x.shape->rank());
  if (r == 0) return invalid_model("input 0 must have rank >= 1");
  AMP_ASSIGN_OR_RETURN(rec.axis, normalize_axis(axis, r));
  const Dim& len = x.shape->dims[static_cast<size_t>(rec.axis)];
  Dim k;
  AMP_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> kv, const_ints(*in[1], 1));
  if (kv) {
    if (kv->size() != 1 || (*kv)[0] < 0)
      return invalid_model("K (input 1) must be one non-negative value");
    if (len.is_static() && (*kv)[0] > len.value)
      return invalid_model("K " + std::to_string((*kv)[0]) + " exceeds axis " +
                           std::to_string(rec.axis) + " of size " + std::to_string(len.value));
    k = Dim((*kv)[0]);
  }
  Shape result = *x.shape;
  result.dims[static_cast<size_t>(rec.axis)] = k;
  if (std::optional<AxisGeometry> g = axis_geometry(*x.shape, rec.axis)) rec.geometry = *g;
  attrs = rec;
  set_output(out, 0, x.dtype, result);
  set_output(out, 1, DType::kI64, result);
  return Status::ok();
}

}  // namespace amp::graph
