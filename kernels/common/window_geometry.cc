#include "kernels/common/window_geometry.h"

#include <algorithm>

namespace amp::kernels {

std::string dims_string(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

Result<Window> read_window(const graph::Node& node, const std::string& op, size_t spatial,
                           const std::vector<int64_t>& weight_kernel) {
  Window w;
  const std::vector<int64_t> ones(spatial, 1);
  AMP_ASSIGN_OR_RETURN(w.kernel, node.attrs.get_ints("kernel_shape", weight_kernel));
  if (w.kernel.size() != spatial)
    return invalid_model(op + ": kernel_shape " + dims_string(w.kernel) + " should have " +
                         std::to_string(spatial) + " values");
  if (!weight_kernel.empty() && w.kernel != weight_kernel)
    return invalid_model(op + ": kernel_shape " + dims_string(w.kernel) +
                         " disagrees with the weights' spatial dims " + dims_string(weight_kernel));
  AMP_ASSIGN_OR_RETURN(w.strides, node.attrs.get_ints("strides", ones));
  AMP_ASSIGN_OR_RETURN(w.dilations, node.attrs.get_ints("dilations", ones));
  AMP_ASSIGN_OR_RETURN(std::vector<int64_t> pads,
                       node.attrs.get_ints("pads", std::vector<int64_t>(2 * spatial, 0)));
  if (w.strides.size() != spatial || w.dilations.size() != spatial || pads.size() != 2 * spatial)
    return invalid_model(op + ": strides, dilations and pads should have " +
                         std::to_string(spatial) + ", " + std::to_string(spatial) + " and " +
                         std::to_string(2 * spatial) + " values");
  for (size_t i = 0; i < spatial; ++i) {
    if (w.kernel[i] < 1 || w.strides[i] < 1 || w.dilations[i] < 1)
      return invalid_model(op + ": kernel_shape, strides and dilations must be positive");
    if (pads[i] < 0 || pads[spatial + i] < 0)
      return invalid_model(op + ": negative pads " + dims_string(pads));
  }
  w.pad_begin.assign(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(spatial));
  w.pad_end.assign(pads.begin() + static_cast<std::ptrdiff_t>(spatial), pads.end());
  AMP_ASSIGN_OR_RETURN(const std::string auto_pad, node.attrs.get_string("auto_pad", "NOTSET"));
  if (auto_pad == "NOTSET" || auto_pad.empty())
    w.auto_pad = AutoPad::kNotSet;
  else if (auto_pad == "SAME_UPPER")
    w.auto_pad = AutoPad::kSameUpper;
  else if (auto_pad == "SAME_LOWER")
    w.auto_pad = AutoPad::kSameLower;
  else if (auto_pad == "VALID")
    w.auto_pad = AutoPad::kValid;
  else
    return invalid_model(op + ": unknown auto_pad '" + auto_pad + "'");
  return w;
}

Result<std::vector<int64_t>> resolve_forward(Window& w, const std::vector<int64_t>& in,
                                             bool ceil_mode, const std::string& op) {
  std::vector<int64_t> out(w.rank());
  for (size_t i = 0; i < w.rank(); ++i) {
    const int64_t e = w.effective_kernel(i), s = w.strides[i];
    switch (w.auto_pad) {
      case AutoPad::kNotSet: {
        const int64_t span = in[i] + w.pad_begin[i] + w.pad_end[i] - e;
        if (span < 0) break;
        out[i] = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
        // The last window must start inside the input or its left padding.
        if (ceil_mode && (out[i] - 1) * s >= in[i] + w.pad_begin[i]) --out[i];
        break;
      }
      case AutoPad::kValid:
        w.pad_begin[i] = w.pad_end[i] = 0;
        out[i] = in[i] >= e ? (in[i] - e) / s + 1 : 0;
        break;
      case AutoPad::kSameUpper:
      case AutoPad::kSameLower: {
        out[i] = (in[i] + s - 1) / s;
        const int64_t total = std::max<int64_t>(0, (out[i] - 1) * s + e - in[i]);
        const int64_t small = total / 2, large = total - small;
        w.pad_begin[i] = w.auto_pad == AutoPad::kSameUpper ? small : large;
        w.pad_end[i] = w.auto_pad == AutoPad::kSameUpper ? large : small;
        break;
      }
    }
    if (out[i] < 1)
      return invalid_model(op + ": the window (effective kernel " + std::to_string(e) +
                           ") does not fit spatial axis " + std::to_string(i) + " of size " +
                           std::to_string(in[i]) + " with its pads");
  }
  return out;
}

}  // namespace amp::kernels
