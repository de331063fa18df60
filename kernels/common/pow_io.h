// Pow(X, Y)'s prepare() for every backend. The exponent may have another numeric dtype than
// the base; the output has the base's. The exponent is brought to one "exponent type" K per
// base kind:
//   f32/f16/bf16 base -> float (fp32 arithmetic)   f64 base -> double
//   integer base, integer exponent -> int64 (exact, wrapping ew::ipow)
//   integer base, float exponent -> double (pow in double, saturated to the base type)
// A constant scalar exponent is converted here, once, and passed by value; 2 on a float base
// is x * x (the same value as powf, far cheaper; LayerNorm decompositions write it). A tensor
// exponent of another dtype is converted into the workspace at run.
//
//   AMP_ASSIGN_OR_RETURN(setup_, check_pow_io(cfg));
//   if (setup_.scalar) { const float e = setup_.scalar_as<float>(); ... }
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/common/broadcast_plan.h"
#include "kernels/kernel_registry.h"
#include "runtime/common/status.h"

namespace amp::kernels {

enum class ExpKind : uint8_t { kFloat, kDouble, kInt64 };

struct PowSetup {
  DType base = DType::kUndefined;
  DType exp = DType::kUndefined;
  ExpKind kind = ExpKind::kFloat;
  DType kind_dtype = DType::kF32;  // f32, f64 or i64, as kind says
  BroadcastPlan plan;              // (base, exponent) -> output
  int64_t exp_numel = 0;
  bool convert = false;      // the exponent's dtype is not kind_dtype
  bool scalar = false;       // a constant scalar exponent, in scalar_bits
  bool square = false;       // ... equal to 2 on a float base
  uint64_t scalar_bits = 0;  // the scalar exponent as kind_dtype

  template <typename K>
  K scalar_as() const {
    K v;
    std::memcpy(&v, &scalar_bits, sizeof(K));
    return v;
  }
  // The converted tensor exponent (8 bytes an element), when it needs converting at run.
  size_t workspace_bytes() const {
    return convert && !scalar ? static_cast<size_t>(exp_numel) * 8 : 0;
  }
};

Result<PowSetup> check_pow_io(const KernelConfig& cfg);

// The bases ONNX Pow takes (T: the float types, i32, i64), the dtypes both backends register.
// Looked up by the first float input: Pow(int, float) finds the float kernels, which handle
// any base; integer keys serve integer bases with integer exponents.
inline std::vector<DType> pow_base_dtypes() {
  return {DType::kF32, DType::kF16, DType::kBF16, DType::kF64, DType::kI32, DType::kI64};
}

}  // namespace amp::kernels
