// Shape & dtype inference for the indexed copies: GatherElements, ScatterElements, GatherND,
// ScatterND, OneHot and ReverseSequence, and the data-dependent selections NonZero, Compress
// and NonMaxSuppression (their counted dim stays unknown: graph/ops/data_dependent.h). Constant
// indices are range-checked here, so an out-of-range index in a file is a malformed model; indices
// fed at run time are checked by the kernels.
#include <string>

#include "graph/ops/infer_rules.h"
#include "graph/ops/infer_util.h"

namespace amp::graph {
namespace {

using Inputs = std::vector<const Value*>;
using Outputs = std::vector<OutputInfo>;

// The scatters' `reduction` attribute: none, add and mul from opset 16, max and min from 18
// (op_version 0, a node built without an opset, counts as new).
Result<int> read_reduction(const Node& node) {
  // A plain Result: GCC 12 warns falsely on AMP_ASSIGN_OR_RETURN into a std::string.
  Result<std::string> attr = node.attrs.get_string("reduction", "none");
  if (!attr.is_ok()) return attr.status();
  const std::string& r = *attr;
  const int32_t v = node.op_version;
  const bool has_add = v == 0 || v >= 16, has_max = v == 0 || v >= 18;
  if (r == "none") return static_cast<int>(IndexAttrs::kNone);
  if (r == "add" && has_add) return static_cast<int>(IndexAttrs::kAdd);
  if (r == "mul" && has_add) return static_cast<int>(IndexAttrs::kMul);
  if (r == "max" && has_max) return static_cast<int>(IndexAttrs::kMax);
  if (r == "min" && has_max) return static_cast<int>(IndexAttrs::kMin);
  return invalid_model("attribute 'reduction' is '" + r + "', not a reduction of opset " +
                       std::to_string(v));
}

// Every constant index within [-size, size).
Status check_const_indices(const Value& idx, size_t index, int64_t size, const std::string& what) {
  AMP_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> values, const_ints(idx, index));
  if (!values) return Status::ok();
  for (int64_t v : *values)
    if (v < -size || v >= size)
      return invalid_model("index " + std::to_string(v) + " is out of range for " + what +
                           " of size " + std::to_string(size));
  return Status::ok();
}

// GatherElements and ScatterElements: indices of data's rank, each dim but the axis's at
// most data's (the positions it names must exist).
Result<int64_t> elements_axis(const Node& node, const Value& data, const Value& idx) {
  AMP_ASSIGN_OR_RETURN(int64_t axis, node.attrs.get_int("axis", 0));
  if (!data.shape) return axis;
  const int64_t r = static_cast<int64_t>(data.shape->rank());
  if (r == 0) return invalid_model("input 0 must have rank >= 1");
  AMP_ASSIGN_OR_RETURN(int64_t a, normalize_axis(axis, r));
  if (!idx.shape) return a;
  if (idx.shape->rank() != data.shape->rank())
    return invalid_model("input 1 " + idx.shape->to_string() + " must have the rank of input 0 " +
                         data.shape->to_string());
  for (int64_t k = 0; k < r; ++k) {
    const Dim& d = data.shape->dims[static_cast<size_t>(k)];
    const Dim& i = idx.shape->dims[static_cast<size_t>(k)];
    if (k != a && d.is_static() && i.is_static() && i.value > d.value)
      return invalid_model("input 1 " + idx.shape->to_string() + " exceeds input 0 " +
                           data.shape->to_string() + " on axis " + std::to_string(k));
  }
  const Dim& len = data.shape->dims[static_cast<size_t>(a)];
  if (len.is_static())
    AMP_RETURN_IF_ERROR(check_const_indices(idx, 1, len.value, "axis " + std::to_string(a)));
  return a;
}

// GatherND's and ScatterND's index tuples: indices [..., k] with a static k in [1, r - b].
Result<std::optional<int64_t>> tuple_length(const Value& data, const Value& idx, int64_t b) {
  if (!data.shape || !idx.shape) return std::optional<int64_t>();
  const int64_t r = static_cast<int64_t>(data.shape->rank());
  const int64_t q = static_cast<int64_t>(idx.shape->rank());
  if (r < 1 || q < 1) return invalid_model("inputs 0 and 1 must have rank >= 1");
  if (b < 0 || b >= std::min(q, r))
    return invalid_model("attribute 'batch_dims' is " + std::to_string(b) +
                         ", expected [0, min(rank(data), rank(indices)))");
  const Dim& last = idx.shape->dims.back();
  if (!last.is_static()) return std::optional<int64_t>();
  if (last.value < 1 || last.value > r - b)
    return invalid_model("the last dim of input 1 is " + std::to_string(last.value) +
                         ", expected 1.." + std::to_string(r - b));
  for (int64_t k = 0; k < b; ++k) {
    const Dim& d = data.shape->dims[static_cast<size_t>(k)];
    const Dim& i = idx.shape->dims[static_cast<size_t>(k)];
    if (d.is_static() && i.is_static() && d.value != i.value)
      return invalid_model("batch dim " + std::to_string(k) + " differs: " +
                           data.shape->to_string() + " vs " + idx.shape->to_string());
  }
  return std::optional<int64_t>(last.value);
}

}  // namespace

// GatherElements(data, indices; axis): output[i...] = data[i... with indices[i...] on axis].
Status infer_gather_elements(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  AMP_RETURN_IF_ERROR(require_input(in, 1));
  const Value& data = *in[0];
  const Value& idx = *in[1];
  AMP_RETURN_IF_ERROR(check_dtype(data, 0, DTypeSet::kAny));
  AMP_RETURN_IF_ERROR(check_dtype(idx, 1, DTypeSet::kIndex));
  AMP_ASSIGN_OR_RETURN(int64_t axis, elements_axis(node, data, idx));
  IndexAttrs rec;
  rec.axis = axis;
  attrs = rec;
  set_output(out, 0, data.dtype, idx.shape);
  return Status::ok();
}

// ScatterElements(data, indices, updates; axis, reduction): data with updates written (or
// reduced) at the positions GatherElements would read.
Status infer_scatter_elements(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  for (size_t i = 0; i < 3; ++i) AMP_RETURN_IF_ERROR(require_input(in, i));
  const Value& data = *in[0];
  const Value& idx = *in[1];
  AMP_RETURN_IF_ERROR(check_dtype(data, 0, DTypeSet::kAny));
  AMP_RETURN_IF_ERROR(check_dtype(idx, 1, DTypeSet::kIndex));
  AMP_RETURN_IF_ERROR(check_same_dtype(*in[2], 2, data, 0));
  // Updates and indices must have one shape; a dim only one of them knows (PyTorch's
  // exports leave the indices' dims unknown where the updates' are static) agrees.
  if (idx.shape && in[2]->shape) {
    bool same = idx.shape->rank() == in[2]->shape->rank();
    for (size_t d = 0; same && d < idx.shape->rank(); ++d)
      same = merge_dims(idx.shape->dims[d], in[2]->shape->dims[d]).has_value();
    if (!same)
      return invalid_model("input 2 " + in[2]->shape->to_string() +
                           " must have the shape of input 1 " + idx.shape->to_string());
  }
  AMP_ASSIGN_OR_RETURN(int64_t axis, elements_axis(node, data, idx));
  IndexAttrs rec;
  rec.axis = axis;
  AMP_ASSIGN_OR_RETURN(rec.reduction, read_reduction(node));
  if (rec.reduction != IndexAttrs::kNone && data.dtype == DType::kBool)
    return invalid_model("reduction on bool data");
  attrs = rec;
  set_output(out, 0, data.dtype, data.shape);
  return Status::ok();
}

// GatherND(data, indices [..., k]; batch_dims b): indices.shape[:-1] + data.shape[b + k:].
Status infer_gather_nd(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  AMP_RETURN_IF_ERROR(require_input(in, 1));
  const Value& data = *in[0];
  const Value& idx = *in[1];
  AMP_RETURN_IF_ERROR(check_dtype(data, 0, DTypeSet::kAny));
  AMP_RETURN_IF_ERROR(check_dtype(idx, 1, DTypeSet::kI64));
  IndexAttrs rec;
  if (node.op_version == 0 || node.op_version >= 12) {
    AMP_ASSIGN_OR_RETURN(rec.batch_dims, node.attrs.get_int("batch_dims", 0));
  }
  attrs = rec;
  AMP_ASSIGN_OR_RETURN(std::optional<int64_t> k, tuple_length(data, idx, rec.batch_dims));
  if (!k) {
    set_output(out, 0, data.dtype, std::nullopt);
    return Status::ok();
  }
  Shape result(std::vector<Dim>(idx.shape->dims.begin(), idx.shape->dims.end() - 1));
  for (size_t d = static_cast<size_t>(rec.batch_dims + *k); d < data.shape->rank(); ++d)
    result.dims.push_back(data.shape->dims[d]);
  set_output(out, 0, data.dtype, std::move(result));
  return Status::ok();
}

// ScatterND(data, indices [..., k], updates; reduction): updates must be indices.shape[:-1] +
// data.shape[k:]; the output is data's.
Status infer_scatter_nd(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  for (size_t i = 0; i < 3; ++i) AMP_RETURN_IF_ERROR(require_input(in, i));
  const Value& data = *in[0];
  const Value& idx = *in[1];
  const Value& upd = *in[2];
  AMP_RETURN_IF_ERROR(check_dtype(data, 0, DTypeSet::kAny));
  AMP_RETURN_IF_ERROR(check_dtype(idx, 1, DTypeSet::kI64));
  AMP_RETURN_IF_ERROR(check_same_dtype(upd, 2, data, 0));
  IndexAttrs rec;
  AMP_ASSIGN_OR_RETURN(rec.reduction, read_reduction(node));
  if (rec.reduction != IndexAttrs::kNone && data.dtype == DType::kBool)
    return invalid_model("reduction on bool data");
  attrs = rec;
  AMP_ASSIGN_OR_RETURN(std::optional<int64_t> k, tuple_length(data, idx, 0));
  if (k && upd.shape) {
    Shape expect(std::vector<Dim>(idx.shape->dims.begin(), idx.shape->dims.end() - 1));
    for (size_t d = static_cast<size_t>(*k); d < data.shape->rank(); ++d)
      expect.dims.push_back(data.shape->dims[d]);
    bool ok = expect.rank() == upd.shape->rank();
    for (size_t d = 0; ok && d < expect.rank(); ++d)
      ok = merge_dims(expect.dims[d], upd.shape->dims[d]).has_value();
    if (!ok)
      return invalid_model("input 2 " + upd.shape->to_string() + " must be " + expect.to_string());
  }
  set_output(out, 0, data.dtype, data.shape);
  return Status::ok();
}

// OneHot(indices, depth, values [off, on]; axis): indices' shape with a new axis of `depth`
// at `axis`, in values' dtype. Indices count from the end when negative (opset 11); others
// outside [-depth, depth) give an all-`off` line.
Status infer_one_hot(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  for (size_t i = 0; i < 3; ++i) AMP_RETURN_IF_ERROR(require_input(in, i));
  const Value& idx = *in[0];
  const Value& depth = *in[1];
  const Value& values = *in[2];
  AMP_RETURN_IF_ERROR(check_dtype(idx, 0, DTypeSet::kNumeric));
  AMP_RETURN_IF_ERROR(check_dtype(depth, 1, DTypeSet::kNumeric));
  AMP_RETURN_IF_ERROR(check_scalar(depth, 1, /*allow_1=*/true));
  AMP_RETURN_IF_ERROR(check_dtype(values, 2, DTypeSet::kAny));
  AMP_RETURN_IF_ERROR(check_1d(values, 2));
  if (std::optional<int64_t> n = static_length(values); n && *n != 2)
    return invalid_model("input 2 must hold two values [off, on], got " + std::to_string(*n));
  AMP_ASSIGN_OR_RETURN(int64_t axis, node.attrs.get_int("axis", -1));
  Dim d;
  if (depth.is_constant()) {
    const std::vector<double> v = depth.constant->to_f64_vector();
    if (v.size() != 1 || !(v[0] >= 1) || v[0] > 1e15)
      return invalid_model("depth (input 1) must be a positive scalar, got " +
                           (v.empty() ? std::string("nothing") : std::to_string(v[0])));
    d = Dim(static_cast<int64_t>(v[0]));
  }
  if (!idx.shape) {
    set_output(out, 0, values.dtype, std::nullopt);
    return Status::ok();
  }
  const int64_t r = static_cast<int64_t>(idx.shape->rank()) + 1;
  AMP_ASSIGN_OR_RETURN(int64_t a, normalize_axis(axis, r));
  Shape result = *idx.shape;
  result.dims.insert(result.dims.begin() + a, d);
  attrs = AxisAttrs{a};
  set_output(out, 0, values.dtype, std::move(result));
  return Status::ok();
}

// ReverseSequence(input, sequence_lens [batch]; batch_axis, time_axis): each batch entry's
// first sequence_lens[b] time steps reversed, the rest copied.
Status infer_reverse_sequence(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  AMP_RETURN_IF_ERROR(require_input(in, 1));
  const Value& x = *in[0];
  const Value& lens = *in[1];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kAny));
  AMP_RETURN_IF_ERROR(check_dtype(lens, 1, DTypeSet::kI64));
  AMP_RETURN_IF_ERROR(check_1d(lens, 1));
  ReverseSequenceAttrs rec;
  AMP_ASSIGN_OR_RETURN(rec.batch_axis, node.attrs.get_int("batch_axis", 1));
  AMP_ASSIGN_OR_RETURN(rec.time_axis, node.attrs.get_int("time_axis", 0));
  const bool axes_ok =
      (rec.batch_axis == 0 && rec.time_axis == 1) || (rec.batch_axis == 1 && rec.time_axis == 0);
  if (!axes_ok)
    return invalid_model("attributes batch_axis " + std::to_string(rec.batch_axis) +
                         " and time_axis " + std::to_string(rec.time_axis) +
                         " must be 0 and 1 in some order");
  if (x.shape) {
    if (x.shape->rank() < 2)
      return invalid_model("input 0 must have rank >= 2, got " + x.shape->to_string());
    const Dim& batch = x.shape->dims[static_cast<size_t>(rec.batch_axis)];
    if (std::optional<int64_t> n = static_length(lens); n && batch.is_static() && *n != batch.value)
      return invalid_model("input 1 has " + std::to_string(*n) + " lengths for a batch of " +
                           std::to_string(batch.value));
  }
  attrs = rec;
  set_output(out, 0, x.dtype, x.shape);
  return Status::ok();
}

// NonZero(X) -> i64 [rank(X), count].
Status infer_non_zero(const Node&, const Inputs& in, Outputs& out, OpAttrs&) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kNumericOrBool));
  std::optional<Shape> result;
  if (x.shape) result = Shape(std::vector<Dim>{Dim(static_cast<int64_t>(x.shape->rank())), Dim()});
  set_output(out, 0, DType::kI64, result);
  return Status::ok();
}

// Compress(input, condition [n] bool; axis): input's shape with the axis dim counted (no
// axis: the selected elements of the flattened input, 1-D).
Status infer_compress(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  AMP_RETURN_IF_ERROR(require_input(in, 1));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kAny));
  AMP_RETURN_IF_ERROR(check_dtype(*in[1], 1, DTypeSet::kBool));
  AMP_RETURN_IF_ERROR(check_1d(*in[1], 1));
  CompressAttrs rec;
  std::optional<Shape> result;
  if (node.attrs.has("axis")) {
    AMP_ASSIGN_OR_RETURN(int64_t axis, node.attrs.get_int("axis", 0));
    if (x.shape) {
      AMP_ASSIGN_OR_RETURN(rec.axis, normalize_axis(axis, static_cast<int64_t>(x.shape->rank())));
      result = *x.shape;
      result->dims[static_cast<size_t>(rec.axis)] = Dim();
    } else if (axis >= 0) {
      rec.axis = axis;
    } else {
      return unsupported("Compress with a negative axis on an input of unknown rank");
    }
  } else {
    result = Shape(std::vector<Dim>{Dim()});
  }
  attrs = rec;
  set_output(out, 0, x.dtype, result);
  return Status::ok();
}

// NonMaxSuppression(boxes [B, S, 4], scores [B, C, S], max_output_boxes_per_class,
// iou_threshold, score_threshold; center_point_box) -> i64 [count, 3] of (batch, class, box).
Status infer_non_max_suppression(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  AMP_RETURN_IF_ERROR(require_input(in, 1));
  const Value& boxes = *in[0];
  const Value& scores = *in[1];
  AMP_RETURN_IF_ERROR(check_dtype(boxes, 0, DTypeSet::kFloat));
  AMP_RETURN_IF_ERROR(check_same_dtype(scores, 1, boxes, 0));
  if (const Value* m = optional_input(in, 2)) {
    AMP_RETURN_IF_ERROR(check_dtype(*m, 2, DTypeSet::kI64));
    AMP_RETURN_IF_ERROR(check_scalar(*m, 2, /*allow_1=*/true));
  }
  for (size_t i = 3; i < 5; ++i) {
    if (const Value* t = optional_input(in, i)) {
      AMP_RETURN_IF_ERROR(check_dtype(*t, i, DTypeSet::kFloat));
      AMP_RETURN_IF_ERROR(check_scalar(*t, i, /*allow_1=*/true));
    }
  }
  NmsAttrs rec;
  AMP_ASSIGN_OR_RETURN(rec.center_point_box, read_flag(node, "center_point_box", 0));
  if (boxes.shape && (boxes.shape->rank() != 3 || !merge_dims(boxes.shape->dims[2], Dim(4))))
    return invalid_model("input 0 must be [batches, boxes, 4], got " + boxes.shape->to_string());
  if (scores.shape && scores.shape->rank() != 3)
    return invalid_model("input 1 must be [batches, classes, boxes], got " +
                         scores.shape->to_string());
  if (boxes.shape && scores.shape &&
      (!merge_dims(boxes.shape->dims[0], scores.shape->dims[0]) ||
       !merge_dims(boxes.shape->dims[1], scores.shape->dims[2])))
    return invalid_model("scores " + scores.shape->to_string() + " do not fit boxes " +
                         boxes.shape->to_string());
  attrs = rec;
  set_output(out, 0, DType::kI64, Shape(std::vector<Dim>{Dim(), Dim(3)}));
  return Status::ok();
}

}  // namespace amp::graph
