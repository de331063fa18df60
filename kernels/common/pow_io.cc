#include "kernels/common/pow_io.h"

#include <string>
#include <type_traits>

#include "kernels/common/dtype_dispatch.h"
#include "kernels/common/kernel_checks.h"

namespace amp::kernels {
namespace {

DType kind_dtype(ExpKind k) {
  switch (k) {
    case ExpKind::kFloat:
      return DType::kF32;
    case ExpKind::kDouble:
      return DType::kF64;
    case ExpKind::kInt64:
      return DType::kI64;
  }
  return DType::kUndefined;
}

// The constant scalar exponent at `c` (dtype s.exp) as s.kind_dtype, into s.scalar_bits.
Status convert_scalar(const void* c, PowSetup& s) {
  return visit_dtype(s.exp, [&](auto tag) -> Status {
    using E = typename decltype(tag)::type;
    if constexpr (ew::kIsFloatStorage<E> || std::is_integral_v<E>) {
      E e;
      std::memcpy(&e, c, sizeof(E));
      switch (s.kind) {
        case ExpKind::kFloat: {
          const float v = ew::cast_value<float>(e);
          std::memcpy(&s.scalar_bits, &v, sizeof(v));
          s.square = v == 2.0f;
          break;
        }
        case ExpKind::kDouble: {
          const double v = ew::cast_value<double>(e);
          std::memcpy(&s.scalar_bits, &v, sizeof(v));
          s.square = is_float(s.base) && v == 2.0;
          break;
        }
        case ExpKind::kInt64: {
          const int64_t v = ew::cast_value<int64_t>(e);
          std::memcpy(&s.scalar_bits, &v, sizeof(v));
          break;
        }
      }
      return Status::ok();
    } else {
      return unexpected_dtype(s.exp);
    }
  });
}

}  // namespace

Result<PowSetup> check_pow_io(const KernelConfig& cfg) {
  AMP_RETURN_IF_ERROR(check_arity(cfg, 2, 2));
  PowSetup s;
  s.base = cfg.inputs[0].dtype;
  s.exp = cfg.inputs[1].dtype;
  if (!is_float(s.base) && !is_integer(s.base))
    return unsupported("base dtype " + std::string(dtype_name(s.base)) + " is not supported");
  if (!is_float(s.exp) && !is_integer(s.exp))
    return unsupported("exponent dtype " + std::string(dtype_name(s.exp)) + " is not supported");
  AMP_RETURN_IF_ERROR(check_output_dtype(cfg, s.base));
  AMP_ASSIGN_OR_RETURN(
      s.plan, make_broadcast_plan({cfg.inputs[0].dims, cfg.inputs[1].dims}, cfg.outputs[0].dims));
  s.kind = s.base == DType::kF64 ? ExpKind::kDouble
           : is_float(s.base)    ? ExpKind::kFloat
           : is_integer(s.exp)   ? ExpKind::kInt64
                                 : ExpKind::kDouble;
  s.kind_dtype = kind_dtype(s.kind);
  s.exp_numel = cfg.inputs[1].numel();
  s.convert = s.exp != s.kind_dtype;
  // A constant scalar: the output is the base's elements in order (the scalar's dims are all
  // 1, so broadcasting only prepends 1s).
  const void* c = cfg.inputs[1].constant_data;
  s.scalar = c != nullptr && s.exp_numel == 1;
  if (s.scalar) AMP_RETURN_IF_ERROR(convert_scalar(c, s));
  return s;
}

}  // namespace amp::kernels
