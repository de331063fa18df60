#include "kernels/common/softmax_geometry.h"

#include <string>
#include <vector>

#include "kernels/common/kernel_params.h"
#include "kernels/common/reduce_plan.h"

namespace amp::kernels {
namespace {

int64_t product(const std::vector<int64_t>& dims, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= dims[i];
  return p;
}

}  // namespace

Result<SoftmaxGeometry> softmax_geometry(const KernelConfig& cfg) {
  const std::vector<int64_t>& dims = cfg.inputs[0].dims;
  if (cfg.outputs[0].dims != dims) return invalid_model("output shape differs from input");
  const int32_t opset = cfg.node != nullptr ? cfg.node->op_version : 0;
  const bool coerce_2d = opset > 0 && opset < 13;
  AMP_ASSIGN_OR_RETURN(int64_t axis, node_attrs(cfg).get_int("axis", coerce_2d ? 1 : -1));
  const int64_t rank = static_cast<int64_t>(dims.size());
  SoftmaxGeometry g;
  if (rank == 0) {
    // The old 2-D view of a scalar is [1, 1]; any axis but 0/-1 is bad.
    if (axis != 0 && axis != -1) return invalid_model("axis out of range for a scalar");
    return g;
  }
  if (coerce_2d) {
    if (axis < -rank || axis > rank)
      return invalid_model("axis " + std::to_string(axis) + " is out of range for rank " +
                           std::to_string(rank));
    const size_t a = static_cast<size_t>(axis < 0 ? axis + rank : axis);
    g.outer = product(dims, 0, a);
    g.len = product(dims, a, dims.size());
    return g;
  }
  AMP_ASSIGN_OR_RETURN(int64_t a, normalize_axis_attr(axis, rank, "axis"));
  const size_t ax = static_cast<size_t>(a);
  g.outer = product(dims, 0, ax);
  g.len = dims[ax];
  g.inner = product(dims, ax + 1, dims.size());
  return g;
}

}  // namespace amp::kernels
