#include "runtime/backend/numerics_check.h"

#include <cmath>

#include "runtime/common/half.h"

namespace amp::runtime {
namespace {

// fp16/bf16 are non-finite exactly when every exponent bit is set.
bool non_finite_bits16(uint16_t bits, uint16_t exponent_mask) {
  return (bits & exponent_mask) == exponent_mask;
}

}  // namespace

int64_t first_non_finite(const HostTensorView& t) {
  if (!t.data) return -1;
  const auto n = static_cast<int64_t>(t.numel);
  switch (t.dtype) {
    case DType::kF32: {
      const auto* p = static_cast<const float*>(t.data);
      for (int64_t i = 0; i < n; ++i)
        if (!std::isfinite(p[i])) return i;
      return -1;
    }
    case DType::kF64: {
      const auto* p = static_cast<const double*>(t.data);
      for (int64_t i = 0; i < n; ++i)
        if (!std::isfinite(p[i])) return i;
      return -1;
    }
    case DType::kF16:
    case DType::kBF16: {
      const uint16_t mask = t.dtype == DType::kF16 ? 0x7C00 : 0x7F80;
      const auto* p = static_cast<const uint16_t*>(t.data);
      for (int64_t i = 0; i < n; ++i)
        if (non_finite_bits16(p[i], mask)) return i;
      return -1;
    }
    default:
      return -1;
  }
}

bool all_finite(const std::vector<HostTensorView>& inputs) {
  for (const HostTensorView& in : inputs)
    if (first_non_finite(in) >= 0) return false;
  return true;
}

Status check_step_numerics(const graph::Graph& g, const graph::Node& node, bool inputs_were_finite,
                           const std::vector<HostTensorView>& outputs) {
  if (!inputs_were_finite) return Status::ok();  // propagation, not an overflow
  for (size_t k = 0; k < outputs.size() && k < node.outputs.size(); ++k) {
    const int64_t bad = first_non_finite(outputs[k]);
    if (bad < 0) continue;
    const graph::Value& v = g.value(node.outputs[k]);
    double value = 0;
    switch (outputs[k].dtype) {
      case DType::kF32:
        value = static_cast<const float*>(outputs[k].data)[bad];
        break;
      case DType::kF64:
        value = static_cast<const double*>(outputs[k].data)[bad];
        break;
      case DType::kF16:
        value = half_bits_to_float(static_cast<const uint16_t*>(outputs[k].data)[bad]);
        break;
      case DType::kBF16:
        value = bf16_bits_to_float(static_cast<const uint16_t*>(outputs[k].data)[bad]);
        break;
      default:
        break;
    }
    return numeric_overflow(
        "node '" + node.name + "' (" + std::string(graph::op_name(node.op)) + ", " +
        std::string(dtype_name(v.dtype)) + ") produced " + (std::isnan(value) ? "NaN" : "Inf") +
        " at element " + std::to_string(bad) + " of output '" + v.name +
        "' from finite inputs: the first low-precision node that overflowed. Pin it to fp32 "
        "with a policy file: {\"nodes\": {\"" +
        node.name + "\": \"NEVER\"}}");
  }
  return Status::ok();
}

}  // namespace amp::runtime
