// prepare()'s checks of GridSample and RoiAlign against the node's record and static shapes,
// folded into the plans both backends run (sampling_plan.h). Shape inference
// (graph/ops/infer_sampling.cc) already applied the ONNX rules; these checks guard what the
// kernels index with, so a mismatched runner or graph fails here instead of reading out of
// bounds.
#include "kernels/common/sampling_plan.h"

#include <string>
#include <vector>

#include "kernels/common/kernel_checks.h"

namespace amp::kernels {

Result<GridSamplePlan> check_grid_sample_io(const KernelConfig& cfg, DType t) {
  AMP_RETURN_IF_ERROR(check_arity(cfg, 2, 2));
  AMP_RETURN_IF_ERROR(check_io(cfg, t));
  AMP_ASSIGN_OR_RETURN(const graph::GridSampleAttrs* a,
                       resolved_attrs<graph::GridSampleAttrs>(cfg));
  const TensorDesc& x = cfg.inputs[0];
  const TensorDesc& grid = cfg.inputs[1];
  const std::vector<int64_t>& out = cfg.outputs[0].dims;
  if (!is_float(grid.dtype))
    return invalid_model("GridSample: grid (input 1) has dtype " +
                         std::string(dtype_name(grid.dtype)) + ", expected a float type");
  if (x.rank() < 3 || x.rank() > 5)
    return unsupported("GridSample: input " + dims_to_string(x.dims) +
                       " (1..3 spatial dims supported)");
  const int r = static_cast<int>(x.rank()) - 2;
  if (a->mode == graph::GridSampleAttrs::kCubic && r != 2)
    return invalid_model("GridSample: cubic mode samples 2 spatial dims only, input is " +
                         dims_to_string(x.dims));
  if (grid.rank() != x.rank() || grid.dims[0] != x.dims[0] || grid.dims.back() != r)
    return invalid_model("GridSample: grid " + dims_to_string(grid.dims) + " must be [N, O1.., " +
                         std::to_string(r) + "] for input " + dims_to_string(x.dims));
  std::vector<int64_t> want = {x.dims[0], x.dims[1]};
  for (int k = 1; k <= r; ++k) want.push_back(grid.dims[static_cast<size_t>(k)]);
  if (out != want)
    return invalid_model("GridSample: output " + dims_to_string(out) + ", expected " +
                         dims_to_string(want));
  GridSamplePlan p;
  p.batch = x.dims[0];
  p.channels = x.dims[1];
  p.spatial = r;
  for (int k = 0; k < r; ++k) p.in[3 - r + k] = x.dims[static_cast<size_t>(k + 2)];
  p.in_plane = dims_product(x.dims, 2, x.rank());
  p.out_plane = dims_product(grid.dims, 1, grid.rank() - 1);
  p.mode = a->mode;
  p.padding = a->padding;
  p.align_corners = a->align_corners;
  p.grid_dtype = grid.dtype;
  return p;
}

Result<RoiAlignPlan> check_roi_align_io(const KernelConfig& cfg, DType t) {
  AMP_RETURN_IF_ERROR(check_arity(cfg, 3, 3));
  AMP_RETURN_IF_ERROR(check_io(cfg, t));
  AMP_ASSIGN_OR_RETURN(const graph::RoiAlignAttrs* a, resolved_attrs<graph::RoiAlignAttrs>(cfg));
  const TensorDesc& x = cfg.inputs[0];
  const TensorDesc& rois = cfg.inputs[1];
  const TensorDesc& idx = cfg.inputs[2];
  if (x.rank() != 4)
    return invalid_model("RoiAlign: input " + dims_to_string(x.dims) + " must be [N, C, H, W]");
  if (!is_float(rois.dtype) || rois.rank() != 2 || rois.dims[1] != 4)
    return invalid_model("RoiAlign: rois (input 1) must be [R, 4] of a float type, got " +
                         dims_to_string(rois.dims) + " " + std::string(dtype_name(rois.dtype)));
  if (idx.dtype != DType::kI64 || idx.rank() != 1 || idx.dims[0] != rois.dims[0])
    return invalid_model("RoiAlign: batch_indices (input 2) must be [" +
                         std::to_string(rois.dims[0]) + "] i64, got " + dims_to_string(idx.dims) +
                         " " + std::string(dtype_name(idx.dtype)));
  if (a->out_h < 1 || a->out_w < 1 || a->sampling_ratio < 0)
    return invalid_model("RoiAlign: output_height/output_width must be >= 1, sampling_ratio >= 0");
  const std::vector<int64_t> want = {rois.dims[0], x.dims[1], a->out_h, a->out_w};
  if (cfg.outputs[0].dims != want)
    return invalid_model("RoiAlign: output " + dims_to_string(cfg.outputs[0].dims) + ", expected " +
                         dims_to_string(want));
  RoiAlignPlan p;
  p.batch = x.dims[0];
  p.channels = x.dims[1];
  p.height = x.dims[2];
  p.width = x.dims[3];
  p.rois = rois.dims[0];
  p.out_h = a->out_h;
  p.out_w = a->out_w;
  p.sampling_ratio = a->sampling_ratio;
  p.spatial_scale = a->spatial_scale;
  p.max_mode = a->max_mode;
  p.half_pixel = a->half_pixel;
  p.rois_dtype = rois.dtype;
  return p;
}

}  // namespace amp::kernels
