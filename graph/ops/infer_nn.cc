// Shape & dtype inference for the neural-network ops: Conv, ConvTranspose, MaxPool,
// AveragePool, GlobalAveragePool, MatMul, Gemm, BatchNormalization (inference form),
// InstanceNormalization, LayerNormalization, Softmax, LogSoftmax, and their typed records
// (op_attrs.h).
//
// Window ops (conv and pools) read and resolve their window through window_geometry.h;
// spatial dims that are symbolic give unnamed symbolic outputs.
#include <algorithm>
#include <cfloat>
#include <cstdint>
#include <string>

#include "graph/ops/infer_rules.h"
#include "graph/ops/infer_util.h"
#include "graph/ops/window_geometry.h"

namespace amp::graph {
namespace {

using Inputs = std::vector<const Value*>;
using Outputs = std::vector<OutputInfo>;

// The activation FuseActivation attached (fused_activation.h), ONNX defaults for absent
// parameters; unsupported for an unknown name.
Result<FusedActivation> read_fused_activation(const Node& node) {
  AMP_ASSIGN_OR_RETURN(const std::string name, node.attrs.get_string("fused_activation", ""));
  FusedActivation a;
  float def_alpha = 0.0f, def_beta = 0.0f;
  if (name.empty()) {
    return a;
  } else if (name == "Relu") {
    a.kind = ActivationKind::kRelu;
  } else if (name == "LeakyRelu") {
    a.kind = ActivationKind::kLeakyRelu;
    def_alpha = 0.01f;
  } else if (name == "Clip") {
    a.kind = ActivationKind::kClip;
    def_alpha = -FLT_MAX;
    def_beta = FLT_MAX;
  } else if (name == "Sigmoid") {
    a.kind = ActivationKind::kSigmoid;
  } else if (name == "Tanh") {
    a.kind = ActivationKind::kTanh;
  } else if (name == "HardSigmoid") {
    a.kind = ActivationKind::kHardSigmoid;
    def_alpha = 0.2f;
    def_beta = 0.5f;
  } else if (name == "HardSwish") {
    a.kind = ActivationKind::kHardSwish;
  } else if (name == "Gelu") {
    a.kind = ActivationKind::kGeluErf;
  } else if (name == "GeluTanh") {
    a.kind = ActivationKind::kGeluTanh;
  } else if (name == "Swish") {
    a.kind = ActivationKind::kSwish;
  } else {
    return unsupported("fused_activation '" + name + "' is not supported");
  }
  AMP_ASSIGN_OR_RETURN(a.alpha, node.attrs.get_float("fused_alpha", def_alpha));
  AMP_ASSIGN_OR_RETURN(a.beta, node.attrs.get_float("fused_beta", def_beta));
  return a;
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

// Shared by Conv and ConvTranspose: X, W, B dtypes and ranks, group and the fused
// activation, into a record whose window is still unread.
Result<ConvAttrs> check_conv_inputs(const Node& node, const Inputs& in) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  AMP_RETURN_IF_ERROR(require_input(in, 1));
  AMP_RETURN_IF_ERROR(check_dtype(*in[0], 0, DTypeSet::kFloat));
  AMP_RETURN_IF_ERROR(check_same_dtype(*in[1], 1, *in[0], 0));
  ConvAttrs a;
  if (const Value* b = optional_input(in, 2)) {
    AMP_RETURN_IF_ERROR(check_same_dtype(*b, 2, *in[0], 0));
    a.has_bias = true;
  }
  AMP_RETURN_IF_ERROR(check_window_rank(*in[0], 0));
  AMP_RETURN_IF_ERROR(check_window_rank(*in[1], 1));
  if (in[0]->shape && in[1]->shape && in[0]->shape->rank() != in[1]->shape->rank())
    return invalid_model("input 0 " + in[0]->shape->to_string() + " and weight " +
                         in[1]->shape->to_string() + " have different ranks");
  AMP_ASSIGN_OR_RETURN(a.group, node.attrs.get_int("group", 1));
  if (a.group <= 0) return invalid_model("attribute 'group' is " + std::to_string(a.group));
  AMP_ASSIGN_OR_RETURN(a.act, read_fused_activation(node));
  return a;
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
  AMP_ASSIGN_OR_RETURN(std::vector<int64_t> k, read_kernel_shape(node, n));
  for (size_t i = 0; i < n; ++i)
    if (w.dims[i + 2].is_static() && w.dims[i + 2].value != k[i])
      return invalid_model("attribute 'kernel_shape' " + ints_to_string(k) +
                           " differs from the weight " + w.to_string());
  return k;
}

// The output's batch/channel dims, then one spatial dim per axis from `resolve_axis(i,
// in)`, symbolic where the input's is (or the kernel is unknown). Records the window's
// in/out sizes once every axis is static.
template <typename ResolveAxis>
Result<Shape> window_output(const Shape& x, const Dim& channels, Window& w,
                            ResolveAxis resolve_axis) {
  Shape result({x.dims[0], channels});
  std::vector<int64_t> in_sp, out_sp;
  for (size_t i = 0; i < w.rank(); ++i) {
    const Dim& d = x.dims[i + 2];
    if (!d.is_static() || w.kernel.empty()) {
      result.dims.emplace_back();
      continue;
    }
    AMP_ASSIGN_OR_RETURN(int64_t o, resolve_axis(i, d.value));
    in_sp.push_back(d.value);
    out_sp.push_back(o);
    result.dims.emplace_back(o);
  }
  if (out_sp.size() == w.rank()) {
    w.in_spatial = std::move(in_sp);
    w.out_spatial = std::move(out_sp);
  }
  return result;
}

// A window op's output when X or W has no shape: the rank when either tells it.
std::optional<Shape> unknown_window_output(const Value& x, const Value& w, const Dim& m) {
  std::optional<size_t> r = known_rank(x, &w);
  if (!r) return std::nullopt;
  Shape s = unknown_dims(*r);
  if (x.shape) s.dims[0] = x.shape->dims[0];
  s.dims[1] = m;
  return s;
}

// Static batch / channel counts into the record (prepare-time consumers need them).
void record_channels(ConvAttrs& a, const Shape& x, const Dim& m) {
  if (x.dims[0].is_static()) a.n = x.dims[0].value;
  if (x.dims[1].is_static()) a.c = x.dims[1].value;
  if (m.is_static()) a.m = m.value;
}

}  // namespace

// Conv(X [N, C, D...], W [M, C/group, k...], B [M]) -> [N, M, out...].
Status infer_conv(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  AMP_ASSIGN_OR_RETURN(ConvAttrs a, check_conv_inputs(node, in));
  const Value& x = *in[0];
  const Value& w = *in[1];
  if (!x.shape || !w.shape) {
    set_output(out, 0, x.dtype, unknown_window_output(x, w, w.shape ? w.shape->dims[0] : Dim()));
    return Status::ok();
  }
  const int64_t group = a.group;
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

  AMP_ASSIGN_OR_RETURN(a.window, read_window(node, n, /*use_dilations=*/true));
  AMP_ASSIGN_OR_RETURN(a.window.kernel, conv_kernel(node, *w.shape, n));
  Window& win = a.window;
  AMP_ASSIGN_OR_RETURN(Shape result, window_output(*x.shape, m, win, [&](size_t i, int64_t size) {
                         return resolve_forward_axis(win, i, size);
                       }));
  record_channels(a, *x.shape, m);
  set_output(out, 0, x.dtype, std::move(result));
  attrs = std::move(a);
  return Status::ok();
}

// ConvTranspose(X [N, C, D...], W [C, M/group, k...], B [M]) -> [N, M, out...]
// (window_geometry.h has the output sizes and pads).
Status infer_conv_transpose(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  AMP_ASSIGN_OR_RETURN(ConvAttrs a, check_conv_inputs(node, in));
  const int64_t group = a.group;
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
    set_output(out, 0, x.dtype, unknown_window_output(x, w, m));
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

  AMP_ASSIGN_OR_RETURN(a.window, read_window(node, n, /*use_dilations=*/true));
  AMP_ASSIGN_OR_RETURN(a.window.kernel, conv_kernel(node, *w.shape, n));
  Window& win = a.window;
  AMP_ASSIGN_OR_RETURN(a.output_padding, read_int_list(node, "output_padding", n, 0, 0));
  for (size_t i = 0; i < n; ++i) {
    // A larger output_padding would add rows no input reaches (PyTorch rejects it too).
    if (a.output_padding[i] >= std::max(win.strides[i], win.dilations[i]))
      return invalid_model("attribute 'output_padding' " + ints_to_string(a.output_padding) +
                           " must be smaller than the stride or the dilation");
  }
  std::vector<int64_t> output_shape;
  if (node.attrs.has("output_shape")) {
    // Spatial dims only (the ONNX tests), or the whole [N, C, spatial...] shape that some
    // exporters write (ONNX Runtime takes both): the leading two are then ignored.
    AMP_ASSIGN_OR_RETURN(std::vector<int64_t> given, node.attrs.get_ints("output_shape"));
    const size_t skip = given.size() == n + 2 ? 2 : 0;
    if (given.size() != n + skip)
      return invalid_model("attribute 'output_shape' has " + std::to_string(given.size()) +
                           " entries, expected " + std::to_string(n) + " (spatial) or " +
                           std::to_string(n + 2));
    output_shape.assign(given.begin() + static_cast<std::ptrdiff_t>(skip), given.end());
    for (int64_t d : output_shape)
      if (d < 1)
        return invalid_model("attribute 'output_shape' " + ints_to_string(given) +
                             " has a spatial entry below 1");
  }
  AMP_ASSIGN_OR_RETURN(Shape result, window_output(*x.shape, m, win, [&](size_t i, int64_t size) {
                         std::optional<int64_t> given;
                         if (!output_shape.empty()) given = output_shape[i];
                         return resolve_transposed_axis(win, i, size, a.output_padding[i], given);
                       }));
  // output_shape fixes the spatial dims even where the input's are symbolic.
  for (size_t i = 0; i < output_shape.size(); ++i) result.dims[i + 2] = Dim(output_shape[i]);
  record_channels(a, *x.shape, m);
  set_output(out, 0, x.dtype, std::move(result));
  attrs = std::move(a);
  return Status::ok();
}

namespace {

// MaxPool and AveragePool: kernel_shape is required and sets the rank.
// LpPool (lp > 0) has AveragePool's window attributes, dilations from opset 18.
Status pool(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs, bool is_max,
            int64_t lp = 0) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, is_max ? DTypeSet::kFloatOr8Bit : DTypeSet::kFloat));
  AMP_RETURN_IF_ERROR(check_window_rank(x, 0));
  if (!node.attrs.has("kernel_shape")) return invalid_model("attribute 'kernel_shape' is required");
  AMP_ASSIGN_OR_RETURN(std::vector<int64_t> ks, node.attrs.get_ints("kernel_shape"));
  const size_t n = x.shape ? x.shape->rank() - 2 : ks.size();
  if (n == 0) return invalid_model("attribute 'kernel_shape' is empty");
  PoolAttrs a;
  a.is_max = is_max;
  a.with_indices = is_max && node.outputs.size() > 1 && node.outputs[1] != kNoValue;
  // AveragePool has dilations from opset 19; MaxPool from opset 10 (op_version 0, a node
  // built without an opset, counts as new).
  const int32_t v = node.op_version;
  const bool dilations = v == 0 || (is_max ? v >= 10 : v >= (lp > 0 ? 18 : 19));
  a.lp = lp;
  AMP_ASSIGN_OR_RETURN(a.window, read_window(node, n, dilations));
  Window& win = a.window;
  AMP_ASSIGN_OR_RETURN(win.kernel, read_kernel_shape(node, n));
  AMP_ASSIGN_OR_RETURN(win.ceil_mode, read_flag(node, "ceil_mode", 0));
  if (is_max) {
    AMP_ASSIGN_OR_RETURN(a.col_major_indices, read_flag(node, "storage_order", 0));
  } else if (lp == 0) {
    AMP_ASSIGN_OR_RETURN(a.count_include_pad, read_flag(node, "count_include_pad", 0));
  }
  std::optional<Shape> result;
  if (!x.shape) {
    result = unknown_dims(n + 2);
  } else {
    AMP_ASSIGN_OR_RETURN(
        result, window_output(*x.shape, x.shape->dims[1], win, [&](size_t i, int64_t size) {
          return resolve_forward_axis(win, i, size);
        }));
  }
  set_output(out, 0, x.dtype, result);
  if (is_max) set_output(out, 1, DType::kI64, result);  // Indices
  attrs = std::move(a);
  return Status::ok();
}

}  // namespace

Status infer_max_pool(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  return pool(node, in, out, attrs, /*is_max=*/true);
}
Status infer_average_pool(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  return pool(node, in, out, attrs, /*is_max=*/false);
}
// LpPool: (sum over the window of |x|^p)^(1/p), p an int >= 1 (default 2).
Status infer_lp_pool(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  AMP_ASSIGN_OR_RETURN(int64_t p, node.attrs.get_int("p", 2));
  if (p < 1) return invalid_model("attribute 'p' is " + std::to_string(p) + ", expected >= 1");
  return pool(node, in, out, attrs, /*is_max=*/false, p);
}

// GlobalAveragePool: [N, C, D...] -> [N, C, 1...].
// GlobalAveragePool, GlobalMaxPool: [N, C, D1..Dk] -> [N, C, 1..1].
Status infer_global_pool(const Node&, const Inputs& in, Outputs& out, OpAttrs&) {
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
Status infer_mat_mul(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  MatMulAttrs rec;
  AMP_ASSIGN_OR_RETURN(rec.act, read_fused_activation(node));
  attrs = rec;
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
Status infer_gemm(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  AMP_RETURN_IF_ERROR(require_input(in, 1));
  const Value& a = *in[0];
  const Value& b = *in[1];
  AMP_RETURN_IF_ERROR(check_dtype(a, 0, DTypeSet::kFloatOrI32I64));
  AMP_RETURN_IF_ERROR(check_same_dtype(b, 1, a, 0));
  const Value* c = optional_input(in, 2);
  if (c != nullptr) AMP_RETURN_IF_ERROR(check_same_dtype(*c, 2, a, 0));
  GemmAttrs rec;
  AMP_ASSIGN_OR_RETURN(rec.trans_a, read_flag(node, "transA", 0));
  AMP_ASSIGN_OR_RETURN(rec.trans_b, read_flag(node, "transB", 0));
  AMP_ASSIGN_OR_RETURN(rec.alpha, node.attrs.get_float("alpha", 1.0f));
  AMP_ASSIGN_OR_RETURN(rec.beta, node.attrs.get_float("beta", 1.0f));
  AMP_ASSIGN_OR_RETURN(rec.act, read_fused_activation(node));
  const bool trans_a = rec.trans_a, trans_b = rec.trans_b;
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
  attrs = rec;
  return Status::ok();
}

namespace {

// BatchNormalization's and InstanceNormalization's record: epsilon, split at the channels.
Result<NormAttrs> channel_norm_attrs(const Node& node, const Value& x) {
  NormAttrs rec;
  AMP_ASSIGN_OR_RETURN(rec.epsilon, node.attrs.get_float("epsilon", 1e-5f));
  if (x.shape) {
    if (std::optional<AxisGeometry> g = axis_geometry(*x.shape, 1)) rec.geometry = *g;
  }
  return rec;
}

}  // namespace

// BatchNormalization, inference form only: Y = scale * (X - mean) / sqrt(var + eps) + B.
Status infer_batch_normalization(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
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
  AMP_ASSIGN_OR_RETURN(NormAttrs rec, channel_norm_attrs(node, x));
  set_output(out, 0, x.dtype, x.shape);
  attrs = rec;
  return Status::ok();
}

// InstanceNormalization(input [N, C, D...], scale [C], B [C]).
Status infer_instance_normalization(const Node& node, const Inputs& in, Outputs& out,
                                    OpAttrs& attrs) {
  for (size_t i = 0; i < 3; ++i) AMP_RETURN_IF_ERROR(require_input(in, i));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kFloat));
  AMP_RETURN_IF_ERROR(check_same_dtype(*in[1], 1, x, 0));
  AMP_RETURN_IF_ERROR(check_same_dtype(*in[2], 2, x, 0));
  AMP_RETURN_IF_ERROR(check_window_rank(x, 0));
  const Dim channels = x.shape ? x.shape->dims[1] : Dim();
  for (size_t i = 1; i < 3; ++i) AMP_RETURN_IF_ERROR(check_channel_vector(*in[i], i, channels));
  AMP_ASSIGN_OR_RETURN(NormAttrs rec, channel_norm_attrs(node, x));
  set_output(out, 0, x.dtype, x.shape);
  attrs = rec;
  return Status::ok();
}

// LayerNormalization(X, Scale, B?; axis): normalizes over X.shape[axis:]. The optional
// Mean and InvStdDev outputs keep X.shape[:axis] with 1s after, in the stash_type dtype.
Status infer_layer_normalization(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  AMP_RETURN_IF_ERROR(require_input(in, 1));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kFloat));
  AMP_RETURN_IF_ERROR(check_same_dtype(*in[1], 1, x, 0));
  const Value* bias = optional_input(in, 2);
  if (bias != nullptr) AMP_RETURN_IF_ERROR(check_same_dtype(*bias, 2, x, 0));
  AMP_ASSIGN_OR_RETURN(int64_t axis, node.attrs.get_int("axis", -1));
  AMP_ASSIGN_OR_RETURN(int64_t stash, node.attrs.get_int("stash_type", 1));
  NormAttrs rec;
  AMP_ASSIGN_OR_RETURN(rec.epsilon, node.attrs.get_float("epsilon", 1e-5f));
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
  rec.axis = a;
  rec.stash_type = static_cast<int32_t>(stash);
  if (std::optional<AxisGeometry> g = axis_geometry(*x.shape, a, /*rows=*/true)) rec.geometry = *g;
  attrs = rec;
  return Status::ok();
}

// RMSNormalization (opset 23): LayerNormalization's attributes, inputs X and scale, output Y.
Status infer_rms_normalization(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  return infer_layer_normalization(node, in, out, attrs);
}

namespace {

// Softmax and LogSoftmax: shape unchanged; axis defaults to -1 from opset 13, 1 before
// (op_version 0, a node built without an opset, counts as new).
Status softmax(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kFloat));
  const bool rows = node.op_version > 0 && node.op_version < 13;
  AMP_ASSIGN_OR_RETURN(int64_t axis, node.attrs.get_int("axis", rows ? 1 : -1));
  SoftmaxAttrs rec;
  if (x.shape) {
    const int64_t r = static_cast<int64_t>(x.shape->rank());
    int64_t a = r;
    // Opset < 13 coerces to 2-D at `axis`, which may equal the rank (all in one row).
    if (!(rows && axis == r && r > 0)) {
      AMP_ASSIGN_OR_RETURN(a, normalize_axis(axis, r));
    }
    if (std::optional<AxisGeometry> g = axis_geometry(*x.shape, a, rows)) rec.geometry = *g;
  }
  set_output(out, 0, x.dtype, x.shape);
  attrs = rec;
  return Status::ok();
}

}  // namespace

Status infer_softmax(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  return softmax(node, in, out, attrs);
}
Status infer_log_softmax(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  return softmax(node, in, out, attrs);
}

// GroupNormalization(X [N, C, D...], scale, bias; num_groups, epsilon): the C channels in
// num_groups groups, each (n, group) normalized over its channels and positions, then scaled
// per channel (opset 21) or per group (opset 18, whose scale and bias are [num_groups]).
Status infer_group_normalization(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  for (size_t i = 0; i < 3; ++i) AMP_RETURN_IF_ERROR(require_input(in, i));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kFloat));
  AMP_RETURN_IF_ERROR(check_same_dtype(*in[1], 1, x, 0));
  AMP_RETURN_IF_ERROR(check_same_dtype(*in[2], 2, x, 0));
  AMP_RETURN_IF_ERROR(check_window_rank(x, 0));
  if (!node.attrs.has("num_groups")) return invalid_model("attribute 'num_groups' is required");
  GroupNormAttrs rec;
  AMP_ASSIGN_OR_RETURN(rec.groups, node.attrs.get_int("num_groups", 1));
  AMP_ASSIGN_OR_RETURN(rec.epsilon, node.attrs.get_float("epsilon", 1e-5f));
  rec.scale_per_group = node.op_version > 0 && node.op_version < 21;
  if (rec.groups < 1)
    return invalid_model("attribute 'num_groups' is " + std::to_string(rec.groups));
  const Dim channels = x.shape ? x.shape->dims[1] : Dim();
  if (channels.is_static() && channels.value % rec.groups != 0)
    return invalid_model("num_groups " + std::to_string(rec.groups) + " does not divide " +
                         std::to_string(channels.value) + " channels");
  const Dim per = rec.scale_per_group ? Dim(rec.groups) : channels;
  for (size_t i = 1; i < 3; ++i) AMP_RETURN_IF_ERROR(check_channel_vector(*in[i], i, per));
  attrs = rec;
  set_output(out, 0, x.dtype, x.shape);
  return Status::ok();
}

// MeanVarianceNormalization(X; axes = [0, 2, 3]): (X - mean) / (sqrt(var) + 1e-9) over axes.
Status infer_mean_variance_normalization(const Node& node, const Inputs& in, Outputs& out,
                                         OpAttrs& attrs) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kFloat));
  AMP_ASSIGN_OR_RETURN(std::vector<int64_t> axes, node.attrs.get_ints("axes", {0, 2, 3}));
  GroupNormAttrs rec;
  if (x.shape) {
    AMP_ASSIGN_OR_RETURN(rec.axes, normalize_axes(axes, static_cast<int64_t>(x.shape->rank())));
    std::sort(rec.axes.begin(), rec.axes.end());
  }
  attrs = rec;
  set_output(out, 0, x.dtype, x.shape);
  return Status::ok();
}

// LRN(X [N, C, D...]; alpha, beta, bias, size): normalized across `size` neighbouring channels.
Status infer_lrn(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kFloat));
  AMP_RETURN_IF_ERROR(check_window_rank(x, 0));
  if (!node.attrs.has("size")) return invalid_model("attribute 'size' is required");
  LrnAttrs rec;
  AMP_ASSIGN_OR_RETURN(rec.size, node.attrs.get_int("size", 1));
  AMP_ASSIGN_OR_RETURN(rec.alpha, node.attrs.get_float("alpha", 1e-4f));
  AMP_ASSIGN_OR_RETURN(rec.beta, node.attrs.get_float("beta", 0.75f));
  AMP_ASSIGN_OR_RETURN(rec.bias, node.attrs.get_float("bias", 1.0f));
  if (rec.size < 1) return invalid_model("attribute 'size' is " + std::to_string(rec.size));
  attrs = rec;
  set_output(out, 0, x.dtype, x.shape);
  return Status::ok();
}

// LpNormalization(X; axis = -1, p = 2): X / ||X||_p along the axis, p 1 or 2.
Status infer_lp_normalization(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kFloat));
  AMP_ASSIGN_OR_RETURN(int64_t axis, node.attrs.get_int("axis", -1));
  LpNormAttrs rec;
  AMP_ASSIGN_OR_RETURN(rec.p, node.attrs.get_int("p", 2));
  if (rec.p != 1 && rec.p != 2)
    return invalid_model("attribute 'p' is " + std::to_string(rec.p) + ", expected 1 or 2");
  if (x.shape) {
    const int64_t r = static_cast<int64_t>(x.shape->rank());
    if (r == 0) return invalid_model("input 0 must have rank >= 1");
    AMP_ASSIGN_OR_RETURN(int64_t a, normalize_axis(axis, r));
    if (std::optional<AxisGeometry> g = axis_geometry(*x.shape, a)) rec.geometry = *g;
  }
  attrs = rec;
  set_output(out, 0, x.dtype, x.shape);
  return Status::ok();
}

}  // namespace amp::graph
