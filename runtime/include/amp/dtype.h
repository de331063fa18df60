// Element types of tensors, shared by the public API, the graph IR and the kernels.
// Values match ONNX TensorProto.DataType so the importer can map them one to one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace amp {

enum class DType : int32_t {
  kUndefined = 0,
  kF32 = 1,
  kU8 = 2,
  kI8 = 3,
  kI16 = 5,
  kI32 = 6,
  kI64 = 7,
  kBool = 9,
  kF16 = 10,
  kF64 = 11,
  kBF16 = 16,
};

// Bytes per element; 0 for kUndefined.
constexpr size_t dtype_size(DType t) {
  switch (t) {
    case DType::kUndefined:
      return 0;
    case DType::kF32:
      return 4;
    case DType::kU8:
      return 1;
    case DType::kI8:
      return 1;
    case DType::kI16:
      return 2;
    case DType::kI32:
      return 4;
    case DType::kI64:
      return 8;
    case DType::kBool:
      return 1;
    case DType::kF16:
      return 2;
    case DType::kF64:
      return 8;
    case DType::kBF16:
      return 2;
  }
  return 0;
}

constexpr bool is_float(DType t) {
  return t == DType::kF32 || t == DType::kF16 || t == DType::kBF16 || t == DType::kF64;
}
// The low-precision float types the AMP planner targets.
constexpr bool is_low_float(DType t) {
  return t == DType::kF16 || t == DType::kBF16;
}
constexpr bool is_integer(DType t) {
  return t == DType::kU8 || t == DType::kI8 || t == DType::kI16 || t == DType::kI32 ||
         t == DType::kI64;
}

// "f32", "f16", "bf16", "i64", ... (stable, used in reports and file dumps).
std::string_view dtype_name(DType t);
// Inverse of dtype_name; also accepts "fp32", "fp16", "float32", "float16", "bfloat16".
std::optional<DType> dtype_from_name(std::string_view name);
// From an ONNX TensorProto.DataType number; nullopt for types AMPRT does not support.
std::optional<DType> dtype_from_onnx(int32_t onnx_type);

}  // namespace amp
