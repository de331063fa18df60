// One dtype vocabulary for every backend's kernels: the storage type each DType stands for
// (f16 -> Half, bf16 -> BFloat16, bool -> ew::Bool), visit_dtype() to call a generic lambda
// with it, the dtype groups the family tables register kernels for, and the registry
// factory of a kernel class. Host code, C++17: nvcc reads it too.
//
//   return visit_dtype(dtype_, [&](auto tag) -> Status {
//     using T = typename decltype(tag)::type;
//     if constexpr (in_group<T>(DTypeGroup::kFloat)) return run_typed<T>(a);
//     else return unexpected_dtype(dtype_);
//   });
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "amp/dtype.h"
#include "kernels/common/elementwise_functors.h"
#include "kernels/kernel.h"
#include "kernels/kernel_registry.h"
#include "runtime/common/half.h"
#include "runtime/common/status.h"

namespace amp::kernels {

template <typename T>
struct TypeTag {
  using type = T;
};

// Calls fn(TypeTag<T>{}) with the storage type of `t` and returns its Status. Callers
// instantiate only what they support with `if constexpr`.
template <typename Fn>
Status visit_dtype(DType t, Fn&& fn) {
  switch (t) {
    case DType::kF32:
      return fn(TypeTag<float>{});
    case DType::kF16:
      return fn(TypeTag<Half>{});
    case DType::kBF16:
      return fn(TypeTag<BFloat16>{});
    case DType::kF64:
      return fn(TypeTag<double>{});
    case DType::kI64:
      return fn(TypeTag<int64_t>{});
    case DType::kI32:
      return fn(TypeTag<int32_t>{});
    case DType::kI16:
      return fn(TypeTag<int16_t>{});
    case DType::kI8:
      return fn(TypeTag<int8_t>{});
    case DType::kU8:
      return fn(TypeTag<uint8_t>{});
    case DType::kBool:
      return fn(TypeTag<ew::Bool>{});
    case DType::kUndefined:
      break;
  }
  return internal_error("kernel: undefined dtype");
}

// Calls fn(E{}) with E the unsigned type of `elem_size` bytes (1, 2, 4, 8): the element
// type of kernels that move elements without reading their values.
template <typename Fn>
Status visit_element_size(size_t elem_size, Fn&& fn) {
  switch (elem_size) {
    case 1:
      return fn(uint8_t{});
    case 2:
      return fn(uint16_t{});
    case 4:
      return fn(uint32_t{});
    case 8:
      return fn(uint64_t{});
    default:
      return internal_error("kernel: element size " + std::to_string(elem_size));
  }
}

// What run() returns for a dtype prepare() should have rejected.
inline Status unexpected_dtype(DType t) {
  return internal_error("kernel: dtype " + std::string(dtype_name(t)) +
                        " passed prepare() but has no loop");
}

// The dtype sets the family tables name (ONNX type constraints, restricted to ours).
enum class DTypeGroup : uint8_t {
  kFloat,          // f32 f16 bf16 f64
  kSignedNumeric,  // floats, i8 i16 i32 i64
  kNumeric,        // floats and every integer type
  kNumericOrBool,
  kBool,
};

template <typename T>
constexpr bool in_group(DTypeGroup g) {
  constexpr bool is_float = ew::kIsFloatStorage<T>;
  constexpr bool is_int = std::is_integral_v<T>;
  constexpr bool is_signed = is_int && std::is_signed_v<T>;
  constexpr bool is_bool = std::is_same_v<T, ew::Bool>;
  switch (g) {
    case DTypeGroup::kFloat:
      return is_float;
    case DTypeGroup::kSignedNumeric:
      return is_float || is_signed;
    case DTypeGroup::kNumeric:
      return is_float || is_int;
    case DTypeGroup::kNumericOrBool:
      return is_float || is_int || is_bool;
    case DTypeGroup::kBool:
      return is_bool;
  }
  return false;
}

// The DTypes of a group, for registration.
inline std::vector<DType> dtypes_of(DTypeGroup g) {
  std::vector<DType> out;
  for (DType t : all_dtypes()) {
    bool member = false;
    (void)visit_dtype(t, [&](auto tag) -> Status {
      member = in_group<typename decltype(tag)::type>(g);
      return Status::ok();
    });
    if (member) out.push_back(t);
  }
  return out;
}

// The registry factory of kernel class K.
template <typename K>
std::function<std::unique_ptr<Kernel>()> make_factory() {
  return [] { return std::make_unique<K>(); };
}

}  // namespace amp::kernels
