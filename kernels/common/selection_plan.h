// The data-dependent selections both backends run alike (NonZero, Compress,
// NonMaxSuppression; graph/ops/data_dependent.h): prepare()'s checks, the plans, and the box
// arithmetic of NonMaxSuppression (AMP_HOST_DEVICE, so both backends keep the same boxes).
// Output 0 is prepared at its bound; run() writes it densely for the real count and reports
// that count through KernelArgs::dynamic_size (required: a kernel run without it is an
// internal error, not a silently padded output).
#pragma once

#include <cstdint>

#include "amp/dtype.h"
#include "graph/ops/op_attrs.h"
#include "kernels/kernel.h"
#include "runtime/common/host_device.h"
#include "runtime/common/status.h"

namespace amp::kernels {

inline constexpr int kSelectionMaxRank = 8;

// The internal error of a selection run without KernelArgs::dynamic_size.
Status check_size_channel(const KernelArgs& a, const char* op);

// NonZero: X's dims and dtype; output [rank, capacity].
struct NonZeroPlan {
  int rank = 0;
  int64_t dims[kSelectionMaxRank] = {};
  int64_t numel = 0, capacity = 0;
  DType dtype = DType::kUndefined;
};
Result<NonZeroPlan> check_non_zero_io(const KernelConfig& cfg);

// Compress: X as [outer, len, inner] around the axis (flattened: [1, numel, 1]); condition
// entries beyond min(len, cond_len) select nothing.
struct CompressPlan {
  int64_t outer = 1, len = 0, inner = 1, cond_len = 0, capacity = 0;
  size_t elem_size = 0;
};
Result<CompressPlan> check_compress_io(const KernelConfig& cfg);

// NonMaxSuppression over boxes [batches, boxes, 4] and scores [batches, classes, boxes].
struct NmsPlan {
  int64_t batches = 0, classes = 0, boxes = 0, capacity = 0;
  DType dtype = DType::kF32;  // of boxes and scores
  DType iou_dtype = DType::kF32, score_dtype = DType::kF32;
  bool center_point_box = false;
  bool has_max = false, has_iou = false, has_score = false;
  int64_t max_per_class = 0;  // when the input is a constant
  bool max_runtime = false;
  double iou = 0.0, score = 0.0;  // when the inputs are constants
  bool iou_runtime = false, score_runtime = false;
};
Result<NmsPlan> check_nms_io(const KernelConfig& cfg);

// A box as min/max corners (either encoding; corners may come in any order).
struct NmsBox {
  float x1, y1, x2, y2;
};
AMP_HOST_DEVICE NmsBox nms_box(float a, float b, float c, float d, bool center) {
  if (center) {
    // [x_center, y_center, width, height]
    return NmsBox{a - c / 2, b - d / 2, a + c / 2, b + d / 2};
  }
  // [y1, x1, y2, x2]
  return NmsBox{b < d ? b : d, a < c ? a : c, b < d ? d : b, a < c ? c : a};
}

// A box's area, as nms_suppresses() and the CPU's index of kept boxes (kernels/cpu/
// nms_overlap.h) compute it.
AMP_HOST_DEVICE float nms_area(const NmsBox& b) {
  return (b.x2 - b.x1) * (b.y2 - b.y1);
}

// Whether box q suppresses box p: IoU > threshold (ONNX Runtime's rule; empty boxes never do).
AMP_HOST_DEVICE bool nms_suppresses(const NmsBox& p, const NmsBox& q, float threshold) {
  const float ix1 = p.x1 > q.x1 ? p.x1 : q.x1, iy1 = p.y1 > q.y1 ? p.y1 : q.y1;
  const float ix2 = p.x2 < q.x2 ? p.x2 : q.x2, iy2 = p.y2 < q.y2 ? p.y2 : q.y2;
  if (ix2 <= ix1 || iy2 <= iy1) return false;
  const float inter = (ix2 - ix1) * (iy2 - iy1);
  const float ap = nms_area(p), aq = nms_area(q);
  const float uni = ap + aq - inter;
  if (ap <= 0 || aq <= 0 || uni <= 0) return false;
  return inter / uni > threshold;
}

// Whether candidate (s, i) ranks before (t, j): higher score first, then the lower index.
AMP_HOST_DEVICE bool nms_before(float s, int64_t i, float t, int64_t j) {
  return s > t || (s == t && i < j);
}

}  // namespace amp::kernels
