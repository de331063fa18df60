// The storage types of the reduction family and the type each one computes in, shared by
// the CPU and CUDA reductions and normalizations (the numerical contract, ARCHITECTURE.md):
// f32/f16/bf16 -> float, f64 -> double, integers and bool -> int64_t; results are rounded
// once, on store. Header-only, C++17, no device code: nvcc and the host compiler read it
// alike, so a kernel registered for dtype_of<T>() on either backend means the same type.
//
//   template <typename T> class ReduceSum { using C = reduction::compute_t<T>; ... };
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "amp/dtype.h"
#include "kernels/common/elementwise_functors.h"
#include "runtime/common/half.h"
#include "runtime/common/host_device.h"

namespace amp::kernels::reduction {

template <typename T>
struct ComputeOf {
  using type = int64_t;  // integers and bool
};
template <>
struct ComputeOf<float> {
  using type = float;
};
template <>
struct ComputeOf<Half> {
  using type = float;
};
template <>
struct ComputeOf<BFloat16> {
  using type = float;
};
template <>
struct ComputeOf<double> {
  using type = double;
};
template <typename T>
using compute_t = typename ComputeOf<T>::type;

// The DType a storage type stands for (kUndefined for anything else).
template <typename T>
constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, float>)
    return DType::kF32;
  else if constexpr (std::is_same_v<T, Half>)
    return DType::kF16;
  else if constexpr (std::is_same_v<T, BFloat16>)
    return DType::kBF16;
  else if constexpr (std::is_same_v<T, double>)
    return DType::kF64;
  else if constexpr (std::is_same_v<T, int8_t>)
    return DType::kI8;
  else if constexpr (std::is_same_v<T, uint8_t>)
    return DType::kU8;
  else if constexpr (std::is_same_v<T, int32_t>)
    return DType::kI32;
  else if constexpr (std::is_same_v<T, int64_t>)
    return DType::kI64;
  else if constexpr (std::is_same_v<T, ew::Bool>)
    return DType::kBool;
  else
    return DType::kUndefined;
}

// Storage type lists the reduction family table registers kernels for.
template <typename... Ts>
struct TypeList {};
using FloatTypes = TypeList<float, Half, BFloat16, double>;
// ArgMax / ArgMin: floats and the integer types exporters index with.
using ArgMaxTypes = TypeList<float, Half, BFloat16, double, int8_t, uint8_t, int32_t, int64_t>;
using SumTypes = TypeList<float, Half, BFloat16, double, int32_t, int64_t>;
using MinMaxTypes =
    TypeList<float, Half, BFloat16, double, int8_t, uint8_t, int32_t, int64_t, ew::Bool>;

// The largest / smallest value of storage type T in its compute type: the identities of Max
// and Min, and ONNX's ReduceMax/ReduceMin of an empty set (-inf/+inf for floats, the type's
// limits for integers, false/true for bool).
template <typename T>
AMP_HOST_DEVICE compute_t<T> lowest_of() {
  using C = compute_t<T>;
  if constexpr (std::is_same_v<T, ew::Bool>)
    return 0;
  else if constexpr (std::is_integral_v<T>)
    return static_cast<C>(std::numeric_limits<T>::lowest());
  else
    return -std::numeric_limits<C>::infinity();
}
template <typename T>
AMP_HOST_DEVICE compute_t<T> highest_of() {
  using C = compute_t<T>;
  if constexpr (std::is_same_v<T, ew::Bool>)
    return 1;
  else if constexpr (std::is_integral_v<T>)
    return static_cast<C>(std::numeric_limits<T>::max());
  else
    return std::numeric_limits<C>::infinity();
}

}  // namespace amp::kernels::reduction
