// Shape & dtype inference for the ops that sample X at computed coordinates: GridSample
// (opsets 16, 20, 22) and RoiAlign (opsets 10, 16, 22).
#include <string>

#include "graph/ops/infer_rules.h"
#include "graph/ops/infer_util.h"

namespace amp::graph {
namespace {

using Inputs = std::vector<const Value*>;
using Outputs = std::vector<OutputInfo>;

// A string attribute, through a plain Result (GCC 12 warns falsely on AMP_ASSIGN_OR_RETURN
// into a std::string).
Result<std::string> string_attr(const Node& node, const char* name, const char* def) {
  return node.attrs.get_string(name, def);
}

}  // namespace

// GridSample(X [N, C, D1..Dr], grid [N, O1..Or, r]) -> [N, C, O1..Or]. Opset 16 names the
// modes bilinear/bicubic and takes 4-D X only; opset 20 linear/cubic and N-D. Cubic is 2-D.
Status infer_grid_sample(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  AMP_RETURN_IF_ERROR(require_input(in, 1));
  const Value& x = *in[0];
  const Value& grid = *in[1];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kFloat));
  AMP_RETURN_IF_ERROR(check_dtype(grid, 1, DTypeSet::kFloat));
  const bool old = node.op_version > 0 && node.op_version < 20;
  GridSampleAttrs a;
  Result<std::string> mode = string_attr(node, "mode", old ? "bilinear" : "linear");
  if (!mode.is_ok()) return mode.status();
  if (*mode == (old ? "bilinear" : "linear"))
    a.mode = GridSampleAttrs::kLinear;
  else if (*mode == "nearest")
    a.mode = GridSampleAttrs::kNearest;
  else if (*mode == (old ? "bicubic" : "cubic"))
    a.mode = GridSampleAttrs::kCubic;
  else
    return invalid_model("attribute 'mode' is '" + *mode + "'");
  Result<std::string> pad = string_attr(node, "padding_mode", "zeros");
  if (!pad.is_ok()) return pad.status();
  if (*pad == "zeros")
    a.padding = GridSampleAttrs::kZeros;
  else if (*pad == "border")
    a.padding = GridSampleAttrs::kBorder;
  else if (*pad == "reflection")
    a.padding = GridSampleAttrs::kReflection;
  else
    return invalid_model("attribute 'padding_mode' is '" + *pad + "'");
  AMP_ASSIGN_OR_RETURN(a.align_corners, read_flag(node, "align_corners", 0));
  attrs = a;
  if (!x.shape || !grid.shape) {
    set_output(out, 0, x.dtype, std::nullopt);
    return Status::ok();
  }
  const size_t r = x.shape->rank();
  if (r < 3 || (old && r != 4))
    return invalid_model("input 0 must be [N, C, D1...] with 1..3 spatial dims" +
                         std::string(old ? " (4-D before opset 20)" : "") + ", got " +
                         x.shape->to_string());
  if (r > 5) return unsupported("GridSample over " + std::to_string(r - 2) + " spatial dims");
  if (a.mode == GridSampleAttrs::kCubic && r != 4)
    return invalid_model("cubic mode samples 4-D inputs only");
  if (grid.shape->rank() != r || !merge_dims(grid.shape->dims[0], x.shape->dims[0]) ||
      !merge_dims(grid.shape->dims.back(), Dim(static_cast<int64_t>(r - 2))))
    return invalid_model("input 1 " + grid.shape->to_string() + " must be [N, O1.., " +
                         std::to_string(r - 2) + "] for input 0 " + x.shape->to_string());
  Shape result;
  result.dims = {x.shape->dims[0], x.shape->dims[1]};
  for (size_t k = 1; k + 1 < r; ++k) result.dims.push_back(grid.shape->dims[k]);
  set_output(out, 0, x.dtype, std::move(result));
  return Status::ok();
}

// RoiAlign(X [N, C, H, W], rois [R, 4], batch_indices [R]) -> [R, C, out_h, out_w].
Status infer_roi_align(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  for (size_t i = 0; i < 3; ++i) AMP_RETURN_IF_ERROR(require_input(in, i));
  const Value& x = *in[0];
  const Value& rois = *in[1];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kFloat));
  AMP_RETURN_IF_ERROR(check_same_dtype(rois, 1, x, 0));
  AMP_RETURN_IF_ERROR(check_dtype(*in[2], 2, DTypeSet::kI64));
  AMP_RETURN_IF_ERROR(check_1d(*in[2], 2));
  RoiAlignAttrs a;
  Result<std::string> mode = string_attr(node, "mode", "avg");
  if (!mode.is_ok()) return mode.status();
  if (*mode != "avg" && *mode != "max") return invalid_model("attribute 'mode' is '" + *mode + "'");
  a.max_mode = *mode == "max";
  if (node.op_version > 0 && node.op_version < 16) {
    a.half_pixel = false;
  } else {
    Result<std::string> ctm = string_attr(node, "coordinate_transformation_mode", "half_pixel");
    if (!ctm.is_ok()) return ctm.status();
    if (*ctm != "half_pixel" && *ctm != "output_half_pixel")
      return invalid_model("attribute 'coordinate_transformation_mode' is '" + *ctm + "'");
    a.half_pixel = *ctm == "half_pixel";
  }
  AMP_ASSIGN_OR_RETURN(a.out_h, node.attrs.get_int("output_height", 1));
  AMP_ASSIGN_OR_RETURN(a.out_w, node.attrs.get_int("output_width", 1));
  AMP_ASSIGN_OR_RETURN(a.sampling_ratio, node.attrs.get_int("sampling_ratio", 0));
  AMP_ASSIGN_OR_RETURN(a.spatial_scale, node.attrs.get_float("spatial_scale", 1.0f));
  if (a.out_h < 1 || a.out_w < 1 || a.sampling_ratio < 0)
    return invalid_model("output_height/output_width must be >= 1 and sampling_ratio >= 0");
  attrs = a;
  if (x.shape && x.shape->rank() != 4)
    return invalid_model("input 0 must be [N, C, H, W], got " + x.shape->to_string());
  if (rois.shape && (rois.shape->rank() != 2 || !merge_dims(rois.shape->dims[1], Dim(4))))
    return invalid_model("input 1 must be [R, 4], got " + rois.shape->to_string());
  const Dim r = rois.shape ? rois.shape->dims[0] : Dim();
  if (in[2]->shape && in[2]->shape->rank() == 1 && !merge_dims(in[2]->shape->dims[0], r))
    return invalid_model("input 2 must hold one batch index per box");
  const Dim c = x.shape ? x.shape->dims[1] : Dim();
  set_output(out, 0, x.dtype, Shape(std::vector<Dim>{r, c, Dim(a.out_h), Dim(a.out_w)}));
  return Status::ok();
}

}  // namespace amp::graph
