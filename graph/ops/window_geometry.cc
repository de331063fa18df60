#include "graph/ops/window_geometry.h"

#include "graph/ops/infer_util.h"

namespace amp::graph {
namespace {

// (k - 1) * dilation + 1: the extent the kernel covers.
Result<int64_t> dilated_kernel(int64_t k, int64_t dilation) {
  std::optional<int64_t> e = checked_mul(k - 1, dilation);
  if (e) e = checked_add(*e, 1);
  if (!e) return overflow_error("the dilated kernel size");
  return *e;
}

// floor(t / 2), also for negative t.
int64_t floor_half(int64_t t) {
  return t >= 0 ? t / 2 : -((-t + 1) / 2);
}

}  // namespace

Result<Window> read_window(const Node& node, size_t spatial, bool use_dilations) {
  Window w;
  AMP_ASSIGN_OR_RETURN(w.strides, read_int_list(node, "strides", spatial, 1, 1));
  if (use_dilations) {
    AMP_ASSIGN_OR_RETURN(w.dilations, read_int_list(node, "dilations", spatial, 1, 1));
  } else {
    w.dilations.assign(spatial, 1);
  }
  AMP_ASSIGN_OR_RETURN(std::vector<int64_t> pads, read_int_list(node, "pads", 2 * spatial, 0, 0));
  const auto mid = pads.begin() + static_cast<std::ptrdiff_t>(spatial);
  w.pad_begin.assign(pads.begin(), mid);
  w.pad_end.assign(mid, pads.end());
  AMP_ASSIGN_OR_RETURN(std::string ap, node.attrs.get_string("auto_pad", "NOTSET"));
  if (ap == "NOTSET" || ap.empty()) {
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
    for (int64_t p : pads)
      if (p != 0) return invalid_model("attribute 'pads' cannot be used together with auto_pad");
  }
  return w;
}

Result<std::vector<int64_t>> read_kernel_shape(const Node& node, size_t spatial) {
  AMP_ASSIGN_OR_RETURN(std::vector<int64_t> k, node.attrs.get_ints("kernel_shape"));
  if (k.size() != spatial)
    return invalid_model("attribute 'kernel_shape' has " + std::to_string(k.size()) +
                         " entries for " + std::to_string(spatial) + " spatial axes");
  for (int64_t v : k)
    if (v <= 0)
      return invalid_model("attribute 'kernel_shape' " + ints_to_string(k) + " must be positive");
  return k;
}

Result<int64_t> resolve_forward_axis(Window& w, size_t i, int64_t in) {
  const int64_t s = w.strides[i];
  AMP_ASSIGN_OR_RETURN(const int64_t e, dilated_kernel(w.kernel[i], w.dilations[i]));
  if (w.auto_pad == AutoPad::kSameUpper || w.auto_pad == AutoPad::kSameLower) {
    const int64_t out = in / s + (in % s != 0 ? 1 : 0);  // ceil(in / s)
    std::optional<int64_t> span = checked_mul(out - 1, s);
    if (span) span = checked_add(*span, e);
    if (!span) return overflow_error("the padded input size");
    const int64_t total = std::max<int64_t>(0, *span - in);
    const int64_t small = total / 2, large = total - small;
    w.pad_begin[i] = w.auto_pad == AutoPad::kSameUpper ? small : large;
    w.pad_end[i] = w.auto_pad == AutoPad::kSameUpper ? large : small;
    if (out < 1) return invalid_model("spatial axis " + std::to_string(i) + " is empty");
    return out;
  }
  if (w.auto_pad == AutoPad::kValid) w.pad_begin[i] = w.pad_end[i] = 0;
  const int64_t pad_begin = w.pad_begin[i];
  std::optional<int64_t> padded = checked_add(in, pad_begin);
  if (padded) padded = checked_add(*padded, w.pad_end[i]);
  if (!padded) return overflow_error("the padded input size");
  if (*padded < e)
    return invalid_model("kernel extent " + std::to_string(e) +
                         " is larger than the padded input " + std::to_string(*padded) +
                         " on spatial axis " + std::to_string(i));
  const int64_t span = *padded - e;
  int64_t out = span / s + 1;
  if (w.ceil_mode && span % s != 0) {
    ++out;
    // The last window must start inside the input or the begin padding.
    std::optional<int64_t> last_start = checked_mul(out - 1, s);
    if (!last_start || *last_start >= in + pad_begin) --out;  // in + pad_begin <= padded
  }
  return out;
}

Result<int64_t> resolve_transposed_axis(Window& w, size_t i, int64_t in, int64_t output_padding,
                                        std::optional<int64_t> output_shape) {
  const int64_t s = w.strides[i];
  AMP_ASSIGN_OR_RETURN(const int64_t e, dilated_kernel(w.kernel[i], w.dilations[i]));
  std::optional<int64_t> natural = checked_mul(s, in - 1);
  if (natural) natural = checked_add(*natural, e);
  if (natural) natural = checked_add(*natural, output_padding);  // + output_padding from here
  if (!natural) return overflow_error("the output size");
  const bool same = w.auto_pad == AutoPad::kSameUpper || w.auto_pad == AutoPad::kSameLower;
  int64_t out = 0;
  if (output_shape || same) {
    if (output_shape) {
      out = *output_shape;
    } else {
      std::optional<int64_t> v = checked_mul(in, s);
      if (!v) return overflow_error("the output size");
      out = *v;
    }
    const int64_t total = *natural - out;
    w.pad_begin[i] =
        w.auto_pad == AutoPad::kSameUpper ? floor_half(total) : total - floor_half(total);
    w.pad_end[i] = total - w.pad_begin[i];
  } else {
    if (w.auto_pad == AutoPad::kValid) w.pad_begin[i] = w.pad_end[i] = 0;
    std::optional<int64_t> v = checked_sub(*natural, w.pad_begin[i]);
    if (v) v = checked_sub(*v, w.pad_end[i]);
    if (!v) return overflow_error("the output size");
    out = *v;
  }
  if (out < 0)
    return invalid_model("pads [" + std::to_string(w.pad_begin[i]) + ", " +
                         std::to_string(w.pad_end[i]) + "] exceed the output on spatial axis " +
                         std::to_string(i));
  return out;
}

bool conv_transpose_tiles_output(const ConvAttrs& conv) {
  const Window& win = conv.window;
  if (conv.group != 1 || !win.resolved() || win.in_spatial.size() != win.rank() ||
      win.kernel.size() != win.rank())
    return false;
  for (size_t i = 0; i < win.rank(); ++i) {
    if (win.kernel[i] != win.strides[i] || win.dilations[i] != 1 || win.pad_begin[i] != 0 ||
        win.pad_end[i] != 0 || win.out_spatial[i] != win.in_spatial[i] * win.strides[i])
      return false;
  }
  return true;
}

}  // namespace amp::graph
