// Shape & dtype inference for the neural-network ops: Conv, ConvTranspose, MaxPool,
// AveragePool, GlobalAveragePool, MatMul, Gemm, BatchNormalization (inference form),
// InstanceNormalization, LayerNormalization, Softmax, LogSoftmax.
//
// Window ops (conv and pools) share one reader for kernel_shape/strides/dilations/pads/
// auto_pad and one output-size formula (ONNX Operators.md); spatial dims that are
// symbolic give unnamed symbolic outputs.
#include <algorithm>
#include <cstdint>
#include <string>

#include "graph/ops/infer_rules.h"
#include "graph/ops/infer_util.h"

namespace amp::graph {
namespace {

using Inputs = std::vector<const Value*>;
using Outputs = std::vector<OutputInfo>;

enum class AutoPad { kNotSet, kSameUpper, kSameLower, kValid };

struct Window {
  std::vector<int64_t> kernel;  // empty when it comes from a weight with symbolic dims
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> pads;  // [begin_0.., end_0..]
  AutoPad auto_pad = AutoPad::kNotSet;
  bool ceil_mode = false;
};

Result<bool> read_flag(const Node& node, const std::string& name, int64_t def) {
  AMP_ASSIGN_OR_RETURN(int64_t v, node.attrs.get_int(name, def));
  if (v != 0 && v != 1)
    return invalid_model("attribute '" + name + "' is " + std::to_string(v) + ", expected 0 or 1");
  return v == 1;
}

// An ints attribute of `size` entries, each >= `min`; `def` fills it when absent.
Result<std::vector<int64_t>> read_ints(const Node& node, const std::string& name, size_t size,
                                       int64_t def, int64_t min) {
  if (!node.attrs.has(name)) return std::vector<int64_t>(size, def);
  AMP_ASSIGN_OR_RETURN(std::vector<int64_t> v, node.attrs.get_ints(name));
  if (v.size() != size)
    return invalid_model("attribute '" + name + "' has " + std::to_string(v.size()) +
                         " entries, expected " + std::to_string(size));
  for (int64_t x : v)
    if (x < min)
      return invalid_model("attribute '" + name + "' " + ints_to_string(v) +
                           " has an entry below " + std::to_string(min));
  return v;
}

// Reads the window attributes for `n` spatial axes. `use_dilations` is false for ops
// without the attribute (treated as all 1s).
Result<Window> read_window(const Node& node, size_t n, bool use_dilations) {
  Window w;
  AMP_ASSIGN_OR_RETURN(w.strides, read_ints(node, "strides", n, 1, 1));
  if (use_dilations) {
    AMP_ASSIGN_OR_RETURN(w.dilations, read_ints(node, "dilations", n, 1, 1));
  } else {
    w.dilations.assign(n, 1);
  }
  AMP_ASSIGN_OR_RETURN(w.pads, read_ints(node, "pads", 2 * n, 0, 0));
  AMP_ASSIGN_OR_RETURN(std::string ap, node.attrs.get_string("auto_pad", "NOTSET"));
  if (ap == "NOTSET") {
    w.auto_pad = AutoPad::kNotSet;
  } else if (ap == "SAME_UPPER") {
    w.auto_pad = AutoPad::kSameUpper;
  } else if (ap == "SAME_LOWER") {
    w.auto_pad = AutoPad::kSameLower;
  } else if (ap == "VALID") {
    w.auto_pad = AutoPad::kValid;
  } else {
    return invalid_model("attribute 'auto_pad' is '" + ap +
                         "', expected NOTSET, SAME_UPPER, SAME_LOWER or VALID");
  }
  if (w.auto_pad != AutoPad::kNotSet) {
    // Explicit zero pads next to auto_pad are harmless and common in exported models.
    for (int64_t p : w.pads)
      if (p != 0) return invalid_model("attribute 'pads' cannot be used together with auto_pad");
  }
  return w;
}

Result<std::vector<int64_t>> read_kernel_attr(const Node& node, size_t n) {
  AMP_ASSIGN_OR_RETURN(std::vector<int64_t> k, node.attrs.get_ints("kernel_shape"));
  if (k.size() != n)
    return invalid_model("attribute 'kernel_shape' has " + std::to_string(k.size()) +
                         " entries for " + std::to_string(n) + " spatial axes");
  for (int64_t v : k)
    if (v <= 0)
      return invalid_model("attribute 'kernel_shape' " + ints_to_string(k) + " must be positive");
  return k;
}

// (k - 1) * dilation + 1: the extent the kernel covers.
Result<int64_t> dilated_kernel(int64_t k, int64_t dilation) {
  std::optional<int64_t> e = checked_mul(k - 1, dilation);
  if (e) e = checked_add(*e, 1);
  if (!e) return overflow_error("the dilated kernel size");
  return *e;
}

// One spatial output size of a convolution or pool (ONNX Operators.md, Conv/MaxPool).
// ceil_mode drops a last window that would start in the end padding, as PyTorch and
// ONNX Runtime do.
Result<Dim> window_output(const Dim& in, const Window& w, size_t i) {
  if (!in.is_static() || w.kernel.empty()) return Dim();
  const int64_t x = in.value;
  const int64_t s = w.strides[i];
  if (w.auto_pad == AutoPad::kSameUpper || w.auto_pad == AutoPad::kSameLower)
    return Dim(x / s + (x % s != 0 ? 1 : 0));  // ceil(x / s)
  AMP_ASSIGN_OR_RETURN(int64_t k, dilated_kernel(w.kernel[i], w.dilations[i]));
  const size_t n = w.kernel.size();
  const int64_t pad_begin = w.auto_pad == AutoPad::kValid ? 0 : w.pads[i];
  const int64_t pad_end = w.auto_pad == AutoPad::kValid ? 0 : w.pads[i + n];
  std::optional<int64_t> padded = checked_add(x, pad_begin);
  if (padded) padded = checked_add(*padded, pad_end);
  if (!padded) return overflow_error("the padded input size");
  if (*padded < k)
    return invalid_model("kernel extent " + std::to_string(k) +
                         " is larger than the padded input " + std::to_string(*padded) +
                         " on spatial axis " + std::to_string(i));
  const int64_t span = *padded - k;
  int64_t out = span / s + 1;
  if (w.ceil_mode && span % s != 0) {
    ++out;
    // The last window must start inside the input or the begin padding.
    std::optional<int64_t> last_start = checked_mul(out - 1, s);
    if (!last_start || *last_start >= x + pad_begin) --out;  // x + pad_begin <= padded
  }
  return Dim(out);
}

// Rank of a window op's output from whichever of X or W has a known shape.
std::optional<size_t> known_rank(const Value& x, const Value* w) {
  if (x.shape) return x.shape->rank();
  if (w != nullptr && w->shape) return w->shape->rank();
  return std::nullopt;
}

Status check_window_rank(const Value& x, size_t index) {
  if (x.shape && x.shape->rank() < 3)
    return invalid_model("input " + std::to_string(index) +
                         " must have rank >= 3 (N, C, spatial...), got " + x.shape->to_string());
  return Status::ok();
}

// The bias (or per-channel parameter) must be 1-D of `channels` entries.
Status check_channel_vector(const Value& v, size_t index, const Dim& channels) {
  if (!v.shape) return Status::ok();
  if (v.shape->rank() != 1 || !merge_dims(v.shape->dims[0], channels))
    return invalid_model("input " + std::to_string(index) + " has shape " + v.shape->to_string() +
                         ", expected " + Shape(std::vector<Dim>{channels}).to_string());
  return Status::ok();
}

// Shared by Conv and ConvTranspose: X, W, B dtypes and ranks, and group.
Result<int64_t> check_conv_inputs(const Node& node, const Inputs& in) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  AMP_RETURN_IF_ERROR(require_input(in, 1));
  AMP_RETURN_IF_ERROR(check_dtype(*in[0], 0, DTypeSet::kFloat));
  AMP_RETURN_IF_ERROR(check_same_dtype(*in[1], 1, *in[0], 0));
  if (const Value* b = optional_input(in, 2))
    AMP_RETURN_IF_ERROR(check_same_dtype(*b, 2, *in[0], 0));
  AMP_RETURN_IF_ERROR(check_window_rank(*in[0], 0));
  AMP_RETURN_IF_ERROR(check_window_rank(*in[1], 1));
  if (in[0]->shape && in[1]->shape && in[0]->shape->rank() != in[1]->shape->rank())
    return invalid_model("input 0 " + in[0]->shape->to_string() + " and weight " +
                         in[1]->shape->to_string() + " have different ranks");
  AMP_ASSIGN_OR_RETURN(int64_t group, node.attrs.get_int("group", 1));
  if (group <= 0) return invalid_model("attribute 'group' is " + std::to_string(group));
  return group;
}

// The kernel from kernel_shape, checked against W's spatial dims; or W's dims when
// static; empty when unknown.
Result<std::vector<int64_t>> conv_kernel(const Node& node, const Shape& w, size_t n) {
  std::vector<int64_t> from_w;
  bool w_static = true;
  for (size_t i = 0; i < n; ++i) {
    const Dim& d = w.dims[i + 2];
    w_static = w_static && d.is_static();
    from_w.push_back(d.value);
  }
  if (!node.attrs.has("kernel_shape")) {
    if (!w_static) return std::vector<int64_t>();
    for (int64_t k : from_w)
      if (k <= 0) return invalid_model("weight " + w.to_string() + " has an empty kernel");
    return from_w;
  }
  AMP_ASSIGN_OR_RETURN(std::vector<int64_t> k, read_kernel_attr(node, n));
  for (size_t i = 0; i < n; ++i)
    if (w.dims[i + 2].is_static() && w.dims[i + 2].value != k[i])
      return invalid_model("attribute 'kernel_shape' " + ints_to_string(k) +
                           " differs from the weight " + w.to_string());
  return k;
}

}  // namespace

// Conv(X [N, C, D...], W [M, C/group, k...], B [M]) -> [N, M, out...].
Status infer_conv(const Node& node, const Inputs& in, Outputs& out) {
  AMP_ASSIGN_OR_RETURN(int64_t group, check_conv_inputs(node, in));
  const Value& x = *in[0];
  const Value& w = *in[1];
  if (!x.shape || !w.shape) {
    std::optional<size_t> r = known_rank(x, &w);
    std::optional<Shape> s;
    if (r) {
      s = unknown_dims(*r);
      if (x.shape) s->dims[0] = x.shape->dims[0];
      if (w.shape) s->dims[1] = w.shape->dims[0];
    }
    set_output(out, 0, x.dtype, std::move(s));
    return Status::ok();
  }
  const size_t n = x.shape->rank() - 2;
  const Dim& c = x.shape->dims[1];
  const Dim& m = w.shape->dims[0];
  const Dim& c_per_group = w.shape->dims[1];
  if (c.is_static() && c_per_group.is_static()) {
    std::optional<int64_t> expect = checked_mul(c_per_group.value, group);
    if (!expect || *expect != c.value)
      return invalid_model("input has " + std::to_string(c.value) + " channels but the weight " +
                           w.shape->to_string() + " with group " + std::to_string(group) +
                           " expects " + std::to_string(c_per_group.value) + " x " +
                           std::to_string(group));
  }
  if (m.is_static() && m.value % group != 0)
    return invalid_model("output channels " + std::to_string(m.value) +
                         " are not a multiple of group " + std::to_string(group));
  if (const Value* b = optional_input(in, 2)) AMP_RETURN_IF_ERROR(check_channel_vector(*b, 2, m));

  AMP_ASSIGN_OR_RETURN(Window win, read_window(node, n, /*use_dilations=*/true));
  AMP_ASSIGN_OR_RETURN(win.kernel, conv_kernel(node, *w.shape, n));
  Shape result;
  result.dims.push_back(x.shape->dims[0]);
  result.dims.push_back(m);
  for (size_t i = 0; i < n; ++i) {
    AMP_ASSIGN_OR_RETURN(Dim d, window_output(x.shape->dims[i + 2], win, i));
    result.dims.push_back(d);
  }
  set_output(out, 0, x.dtype, std::move(result));
  return Status::ok();
}

// ConvTranspose(X [N, C, D...], W [C, M/group, k...], B [M]) -> [N, M, out...] with
// out = stride * (in - 1) + output_padding + dilated kernel - pads, or in * stride for
// SAME_*, or output_shape when given.
Status infer_conv_transpose(const Node& node, const Inputs& in, Outputs& out) {
  AMP_ASSIGN_OR_RETURN(int64_t group, check_conv_inputs(node, in));
  const Value& x = *in[0];
  const Value& w = *in[1];
  Dim m;  // output channels: W[1] * group
  if (w.shape && w.shape->dims[1].is_static()) {
    std::optional<int64_t> v = checked_mul(w.shape->dims[1].value, group);
    if (!v) return overflow_error("output channels");
    m = Dim(*v);
  } else if (w.shape && group == 1) {
    m = w.shape->dims[1];
  }
  if (!x.shape || !w.shape) {
    std::optional<size_t> r = known_rank(x, &w);
    std::optional<Shape> s;
    if (r) {
      s = unknown_dims(*r);
      if (x.shape) s->dims[0] = x.shape->dims[0];
      s->dims[1] = m;
    }
    set_output(out, 0, x.dtype, std::move(s));
    return Status::ok();
  }
  const size_t n = x.shape->rank() - 2;
  const Dim& c = x.shape->dims[1];
  const Dim& wc = w.shape->dims[0];
  if (c.is_static() && wc.is_static() && c.value != wc.value)
    return invalid_model("input has " + std::to_string(c.value) + " channels but the weight " +
                         w.shape->to_string() + " expects " + std::to_string(wc.value));
  if (c.is_static() && c.value % group != 0)
    return invalid_model("input channels " + std::to_string(c.value) +
                         " are not a multiple of group " + std::to_string(group));
  if (const Value* b = optional_input(in, 2)) AMP_RETURN_IF_ERROR(check_channel_vector(*b, 2, m));

  AMP_ASSIGN_OR_RETURN(Window win, read_window(node, n, /*use_dilations=*/true));
  AMP_ASSIGN_OR_RETURN(win.kernel, conv_kernel(node, *w.shape, n));
  AMP_ASSIGN_OR_RETURN(std::vector<int64_t> out_pad, read_ints(node, "output_padding", n, 0, 0));
  for (size_t i = 0; i < n; ++i) {
    // A larger output_padding would add rows no input reaches (PyTorch rejects it too).
    if (out_pad[i] >= std::max(win.strides[i], win.dilations[i]))
      return invalid_model("attribute 'output_padding' " + ints_to_string(out_pad) +
                           " must be smaller than the stride or the dilation");
  }
  Shape result;
  result.dims.push_back(x.shape->dims[0]);
  result.dims.push_back(m);
  if (node.attrs.has("output_shape")) {
    // The pads are derived from it; only the spatial dims are given.
    AMP_ASSIGN_OR_RETURN(std::vector<int64_t> os, read_ints(node, "output_shape", n, 1, 1));
    for (int64_t v : os) result.dims.emplace_back(v);
    set_output(out, 0, x.dtype, std::move(result));
    return Status::ok();
  }
  for (size_t i = 0; i < n; ++i) {
    const Dim& d = x.shape->dims[i + 2];
    if (!d.is_static() || win.kernel.empty()) {
      result.dims.emplace_back();
      continue;
    }
    const int64_t s = win.strides[i];
    std::optional<int64_t> v;
    if (win.auto_pad == AutoPad::kSameUpper || win.auto_pad == AutoPad::kSameLower) {
      v = checked_mul(d.value, s);
    } else {
      AMP_ASSIGN_OR_RETURN(int64_t k, dilated_kernel(win.kernel[i], win.dilations[i]));
      const bool valid = win.auto_pad == AutoPad::kValid;
      v = checked_mul(s, d.value - 1);
      if (v) v = checked_add(*v, out_pad[i]);
      if (v) v = checked_add(*v, k);
      if (v && !valid) v = checked_sub(*v, win.pads[i]);
      if (v && !valid) v = checked_sub(*v, win.pads[i + n]);
    }
    if (!v) return overflow_error("the output size");
    if (*v < 0)
      return invalid_model("pads " + ints_to_string(win.pads) +
                           " exceed the output on spatial axis " + std::to_string(i));
    result.dims.emplace_back(*v);
  }
  set_output(out, 0, x.dtype, std::move(result));
  return Status::ok();
}

namespace {

// MaxPool and AveragePool: kernel_shape is required and sets the rank.
Status pool(const Node& node, const Inputs& in, Outputs& out, bool is_max) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, is_max ? DTypeSet::kFloatOr8Bit : DTypeSet::kFloat));
  AMP_RETURN_IF_ERROR(check_window_rank(x, 0));
  if (!node.attrs.has("kernel_shape")) return invalid_model("attribute 'kernel_shape' is required");
  AMP_ASSIGN_OR_RETURN(std::vector<int64_t> ks, node.attrs.get_ints("kernel_shape"));
  const size_t n = x.shape ? x.shape->rank() - 2 : ks.size();
  if (n == 0) return invalid_model("attribute 'kernel_shape' is empty");
  // AveragePool has dilations from opset 19; MaxPool from opset 10.
  const bool dilations = is_max ? node.op_version >= 10 : node.op_version >= 19;
  AMP_ASSIGN_OR_RETURN(Window win, read_window(node, n, dilations));
  AMP_ASSIGN_OR_RETURN(win.kernel, read_kernel_attr(node, n));
  AMP_ASSIGN_OR_RETURN(win.ceil_mode, read_flag(node, "ceil_mode", 0));
  if (is_max) {
    AMP_ASSIGN_OR_RETURN(bool order, read_flag(node, "storage_order", 0));
    (void)order;  // validated only: it changes Indices' values, not shapes
  } else {
    AMP_ASSIGN_OR_RETURN(bool include_pad, read_flag(node, "count_include_pad", 0));
    (void)include_pad;
  }
  std::optional<Shape> result;
  if (!x.shape) {
    result = unknown_dims(n + 2);
  } else {
    result = Shape({x.shape->dims[0], x.shape->dims[1]});
    for (size_t i = 0; i < n; ++i) {
      AMP_ASSIGN_OR_RETURN(Dim d, window_output(x.shape->dims[i + 2], win, i));
      result->dims.push_back(d);
    }
  }
  set_output(out, 0, x.dtype, result);
  if (is_max) set_output(out, 1, DType::kI64, result);  // Indices
  return Status::ok();
}

}  // namespace

Status infer_max_pool(const Node& node, const Inputs& in, Outputs& out) {
  return pool(node, in, out, /*is_max=*/true);
}
Status infer_average_pool(const Node& node, const Inputs& in, Outputs& out) {
  return pool(node, in, out, /*is_max=*/false);
}

// GlobalAveragePool: [N, C, D...] -> [N, C, 1...].
Status infer_global_average_pool(const Node&, const Inputs& in, Outputs& out) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kFloat));
  AMP_RETURN_IF_ERROR(check_window_rank(x, 0));
  if (!x.shape) {
    set_output(out, 0, x.dtype, std::nullopt);
    return Status::ok();
  }
  Shape result = *x.shape;
  for (size_t i = 2; i < result.rank(); ++i) result.dims[i] = Dim(1);
  set_output(out, 0, x.dtype, std::move(result));
  return Status::ok();
}

// MatMul with numpy semantics: a 1-D A is [1, K] and a 1-D B is [K, 1], the added dim
// removed again from the result; batch dims broadcast.
Status infer_mat_mul(const Node&, const Inputs& in, Outputs& out) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  AMP_RETURN_IF_ERROR(require_input(in, 1));
  const Value& a = *in[0];
  const Value& b = *in[1];
  AMP_RETURN_IF_ERROR(check_dtype(a, 0, DTypeSet::kFloatOrI32I64));
  AMP_RETURN_IF_ERROR(check_same_dtype(b, 1, a, 0));
  if (!a.shape || !b.shape) {
    set_output(out, 0, a.dtype, std::nullopt);
    return Status::ok();
  }
  if (a.shape->rank() == 0 || b.shape->rank() == 0)
    return invalid_model("MatMul inputs must have rank >= 1, got " + a.shape->to_string() +
                         " and " + b.shape->to_string());
  const bool a_vec = a.shape->rank() == 1;
  const bool b_vec = b.shape->rank() == 1;
  std::vector<Dim> da = a.shape->dims;
  std::vector<Dim> db = b.shape->dims;
  if (a_vec) da.insert(da.begin(), Dim(1));
  if (b_vec) db.push_back(Dim(1));
  const Dim& ka = da[da.size() - 1];
  const Dim& kb = db[db.size() - 2];
  if (!merge_dims(ka, kb))
    return invalid_model("inner dims differ: " + a.shape->to_string() + " x " +
                         b.shape->to_string());
  const Shape batch_a(std::vector<Dim>(da.begin(), da.end() - 2));
  const Shape batch_b(std::vector<Dim>(db.begin(), db.end() - 2));
  AMP_ASSIGN_OR_RETURN(Shape result, broadcast_shapes(batch_a, batch_b));
  if (!a_vec) result.dims.push_back(da[da.size() - 2]);
  if (!b_vec) result.dims.push_back(db[db.size() - 1]);
  set_output(out, 0, a.dtype, std::move(result));
  return Status::ok();
}

// Gemm(A, B, C?): op(A) [M, K] x op(B) [K, N] (+ C broadcast to [M, N]).
Status infer_gemm(const Node& node, const Inputs& in, Outputs& out) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  AMP_RETURN_IF_ERROR(require_input(in, 1));
  const Value& a = *in[0];
  const Value& b = *in[1];
  AMP_RETURN_IF_ERROR(check_dtype(a, 0, DTypeSet::kFloatOrI32I64));
  AMP_RETURN_IF_ERROR(check_same_dtype(b, 1, a, 0));
  const Value* c = optional_input(in, 2);
  if (c != nullptr) AMP_RETURN_IF_ERROR(check_same_dtype(*c, 2, a, 0));
  AMP_ASSIGN_OR_RETURN(bool trans_a, read_flag(node, "transA", 0));
  AMP_ASSIGN_OR_RETURN(bool trans_b, read_flag(node, "transB", 0));
  for (size_t i = 0; i < 2; ++i) {
    const Value& v = *in[i];
    if (v.shape && v.shape->rank() != 2)
      return invalid_model("input " + std::to_string(i) + " must be 2-D, got " +
                           v.shape->to_string());
  }
  Dim m, ka, kb, n;
  if (a.shape) {
    m = a.shape->dims[trans_a ? 1 : 0];
    ka = a.shape->dims[trans_a ? 0 : 1];
  }
  if (b.shape) {
    kb = b.shape->dims[trans_b ? 1 : 0];
    n = b.shape->dims[trans_b ? 0 : 1];
  }
  if (a.shape && b.shape && !merge_dims(ka, kb))
    return invalid_model("inner dims differ: " + a.shape->to_string() + (trans_a ? "^T" : "") +
                         " x " + b.shape->to_string() + (trans_b ? "^T" : ""));
  // C broadcasts one way only, to [M, N].
  if (c != nullptr && c->shape) {
    const Shape& cs = *c->shape;
    if (cs.rank() > 2) return invalid_model("input 2 must have rank <= 2, got " + cs.to_string());
    const Dim target[2] = {m, n};
    for (size_t i = 0; i < cs.rank(); ++i) {
      const Dim& d = cs.dims[i];
      const Dim& t = target[2 - cs.rank() + i];
      if (d.is_static() && t.is_static() && d.value != 1 && d.value != t.value)
        return invalid_model("input 2 " + cs.to_string() + " does not broadcast to " +
                             Shape(std::vector<Dim>{m, n}).to_string());
    }
  }
  set_output(out, 0, a.dtype, Shape({m, n}));
  return Status::ok();
}

// BatchNormalization, inference form only: Y = scale * (X - mean) / sqrt(var + eps) + B.
Status infer_batch_normalization(const Node& node, const Inputs& in, Outputs& out) {
  for (size_t i = 0; i < 5; ++i) AMP_RETURN_IF_ERROR(require_input(in, i));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kFloat));
  // scale/B and mean/var may each have their own float dtype (opset 15 T1, T2).
  for (size_t i = 1; i < 5; ++i) AMP_RETURN_IF_ERROR(check_dtype(*in[i], i, DTypeSet::kFloat));
  if (node.op_version >= 14) {
    AMP_ASSIGN_OR_RETURN(bool training, read_flag(node, "training_mode", 0));
    if (training)
      return unsupported(
          "BatchNormalization with training_mode=1 is not supported "
          "(export the model in inference mode)");
  }
  for (size_t k = 1; k < node.outputs.size(); ++k) {
    if (node.outputs[k] != kNoValue)
      return unsupported(
          "BatchNormalization with running mean/var outputs (training mode) "
          "is not supported; only output Y is");
  }
  if (x.shape && x.shape->rank() < 2)
    return invalid_model("input 0 must have rank >= 2 (N, C, ...), got " + x.shape->to_string());
  const Dim channels = x.shape ? x.shape->dims[1] : Dim();
  for (size_t i = 1; i < 5; ++i) AMP_RETURN_IF_ERROR(check_channel_vector(*in[i], i, channels));
  set_output(out, 0, x.dtype, x.shape);
  return Status::ok();
}

// InstanceNormalization(input [N, C, D...], scale [C], B [C]).
Status infer_instance_normalization(const Node&, const Inputs& in, Outputs& out) {
  for (size_t i = 0; i < 3; ++i) AMP_RETURN_IF_ERROR(require_input(in, i));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kFloat));
  AMP_RETURN_IF_ERROR(check_same_dtype(*in[1], 1, x, 0));
  AMP_RETURN_IF_ERROR(check_same_dtype(*in[2], 2, x, 0));
  AMP_RETURN_IF_ERROR(check_window_rank(x, 0));
  const Dim channels = x.shape ? x.shape->dims[1] : Dim();
  for (size_t i = 1; i < 3; ++i) AMP_RETURN_IF_ERROR(check_channel_vector(*in[i], i, channels));
  set_output(out, 0, x.dtype, x.shape);
  return Status::ok();
}

// LayerNormalization(X, Scale, B?; axis): normalizes over X.shape[axis:]. The optional
// Mean and InvStdDev outputs keep X.shape[:axis] with 1s after, in the stash_type dtype.
Status infer_layer_normalization(const Node& node, const Inputs& in, Outputs& out) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  AMP_RETURN_IF_ERROR(require_input(in, 1));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kFloat));
  AMP_RETURN_IF_ERROR(check_same_dtype(*in[1], 1, x, 0));
  const Value* bias = optional_input(in, 2);
  if (bias != nullptr) AMP_RETURN_IF_ERROR(check_same_dtype(*bias, 2, x, 0));
  AMP_ASSIGN_OR_RETURN(int64_t axis, node.attrs.get_int("axis", -1));
  AMP_ASSIGN_OR_RETURN(int64_t stash, node.attrs.get_int("stash_type", 1));
  std::optional<DType> stash_dtype;
  if (stash > 0 && stash <= INT32_MAX) stash_dtype = dtype_from_onnx(static_cast<int32_t>(stash));
  if (!stash_dtype || !is_float(*stash_dtype))
    return invalid_model("attribute 'stash_type' is " + std::to_string(stash) +
                         ", expected an ONNX float dtype");
  if (!x.shape) {
    set_output(out, 0, x.dtype, std::nullopt);
    set_output(out, 1, *stash_dtype, std::nullopt);
    set_output(out, 2, *stash_dtype, std::nullopt);
    return Status::ok();
  }
  const int64_t r = static_cast<int64_t>(x.shape->rank());
  AMP_ASSIGN_OR_RETURN(int64_t a, normalize_axis(axis, r));
  const Shape normalized(std::vector<Dim>(x.shape->dims.begin() + a, x.shape->dims.end()));
  // Scale and B broadcast one way, to the normalized shape.
  for (size_t i = 1; i < 3; ++i) {
    const Value* v = optional_input(in, i);
    if (v == nullptr || !v->shape) continue;
    const Shape& s = *v->shape;
    bool ok = s.rank() <= normalized.rank();
    for (size_t j = 0; ok && j < s.rank(); ++j) {
      const Dim& d = s.dims[j];
      const Dim& t = normalized.dims[normalized.rank() - s.rank() + j];
      ok = !(d.is_static() && t.is_static() && d.value != 1 && d.value != t.value);
    }
    if (!ok)
      return invalid_model("input " + std::to_string(i) + " " + s.to_string() +
                           " does not broadcast to the normalized shape " + normalized.to_string());
  }
  Shape stats = *x.shape;
  for (int64_t k = a; k < r; ++k) stats.dims[static_cast<size_t>(k)] = Dim(1);
  set_output(out, 0, x.dtype, x.shape);
  set_output(out, 1, *stash_dtype, stats);
  set_output(out, 2, *stash_dtype, stats);
  return Status::ok();
}

namespace {

// Softmax and LogSoftmax: shape unchanged; axis defaults to -1 from opset 13, 1 before.
Status softmax(const Node& node, const Inputs& in, Outputs& out) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kFloat));
  AMP_ASSIGN_OR_RETURN(int64_t axis, node.attrs.get_int("axis", node.op_version >= 13 ? -1 : 1));
  if (x.shape) {
    const int64_t r = static_cast<int64_t>(x.shape->rank());
    // Opset < 13 coerces to 2-D at `axis`, which may equal the rank (all in one row).
    if (node.op_version < 13 && axis == r && r > 0) {
      // accepted
    } else {
      AMP_RETURN_IF_ERROR(normalize_axis(axis, r).status());
    }
  }
  set_output(out, 0, x.dtype, x.shape);
  return Status::ok();
}

}  // namespace

Status infer_softmax(const Node& node, const Inputs& in, Outputs& out) {
  return softmax(node, in, out);
}
Status infer_log_softmax(const Node& node, const Inputs& in, Outputs& out) {
  return softmax(node, in, out);
}

}  // namespace amp::graph
