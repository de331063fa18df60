#include "kernels/common/clip_bounds.h"

#include <string>

#include "kernels/common/broadcast_plan.h"
#include "kernels/common/kernel_checks.h"

namespace amp::kernels {

Result<ClipBounds> read_clip_bounds(const KernelConfig& cfg) {
  AMP_RETURN_IF_ERROR(check_arity(cfg, 1, 3));
  const DType t = cfg.inputs[0].dtype;
  if (!is_float(t) && !is_integer(t))
    return unsupported("dtype " + std::string(dtype_name(t)) + " is not supported");
  AMP_RETURN_IF_ERROR(check_output_dtype(cfg, t));
  AMP_RETURN_IF_ERROR(check_same_shape(cfg));
  ClipBounds out;
  for (size_t i = 1; i < 3; ++i) {
    ClipBound& b = i == 1 ? out.min : out.max;
    if (i >= cfg.inputs.size() || !cfg.inputs[i].present) continue;
    const TensorDesc& d = cfg.inputs[i];
    AMP_RETURN_IF_ERROR(check_input_dtype(cfg, i, t));
    if (d.numel() != 1)
      return invalid_model(std::string(i == 1 ? "min" : "max") + " has " +
                           std::to_string(d.numel()) + " elements, expected a scalar");
    b.present = true;
    if (d.constant_data) {
      b.constant = true;
      std::memcpy(b.bytes, d.constant_data, dtype_size(t));
    }
  }
  return out;
}

}  // namespace amp::kernels
