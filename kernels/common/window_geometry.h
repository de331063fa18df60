// Sliding-window geometry shared by Conv, ConvTranspose, MaxPool and AveragePool, on every
// backend (the CPU's oneDNN and the CUDA cuDNN/own kernels read attributes alike): reading
// kernel_shape / strides / dilations / pads / auto_pad, and resolving auto_pad and
// ceil_mode into explicit begin/end pads and output sizes, following the ONNX spec (and
// the ONNX reference implementation where the spec is silent):
//   effective kernel  e = (k - 1) * d + 1
//   NOTSET            out = floor((in + pb + pe - e) / s) + 1   (ceil with ceil_mode, then
//                     minus one when the last window would start past in + pb)
//   VALID             pads 0, out = floor((in - e) / s) + 1
//   SAME_UPPER/LOWER  out = ceil(in / s), total = max(0, (out - 1) s + e - in),
//                     the odd pad at the end (UPPER) or the beginning (LOWER).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/ir/graph.h"
#include "runtime/common/status.h"

namespace amp::kernels {

enum class AutoPad { kNotSet, kSameUpper, kSameLower, kValid };

struct Window {
  std::vector<int64_t> kernel;
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> pad_begin;
  std::vector<int64_t> pad_end;
  AutoPad auto_pad = AutoPad::kNotSet;

  size_t rank() const { return kernel.size(); }
  int64_t effective_kernel(size_t i) const { return (kernel[i] - 1) * dilations[i] + 1; }
};

// Reads the window attributes of `node` for `spatial` spatial axes. `weight_kernel` is the
// kernel size taken from the weights (Conv), or empty when kernel_shape is required
// (pools). Validates counts and signs; names `op` in errors.
Result<Window> read_window(const graph::Node& node, const std::string& op, size_t spatial,
                           const std::vector<int64_t>& weight_kernel);

// Resolves auto_pad (and ceil_mode, for pools) for input spatial sizes `in`, rewriting
// w.pad_begin / w.pad_end, and returns the output spatial sizes. invalid_model when a
// window does not fit.
Result<std::vector<int64_t>> resolve_forward(Window& w, const std::vector<int64_t>& in,
                                             bool ceil_mode, const std::string& op);

// "[1, 2, 3]" for error messages.
std::string dims_string(const std::vector<int64_t>& dims);

}  // namespace amp::kernels
