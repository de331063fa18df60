#include "amp/dtype.h"

namespace amp {

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::kUndefined:
      return "undefined";
    case DType::kF32:
      return "f32";
    case DType::kU8:
      return "u8";
    case DType::kI8:
      return "i8";
    case DType::kI16:
      return "i16";
    case DType::kI32:
      return "i32";
    case DType::kI64:
      return "i64";
    case DType::kBool:
      return "bool";
    case DType::kF16:
      return "f16";
    case DType::kF64:
      return "f64";
    case DType::kBF16:
      return "bf16";
  }
  return "undefined";
}

std::optional<DType> dtype_from_name(std::string_view n) {
  if (n == "f32" || n == "fp32" || n == "float32" || n == "float") return DType::kF32;
  if (n == "f16" || n == "fp16" || n == "float16" || n == "half") return DType::kF16;
  if (n == "bf16" || n == "bfloat16") return DType::kBF16;
  if (n == "f64" || n == "fp64" || n == "float64" || n == "double") return DType::kF64;
  if (n == "i64" || n == "int64") return DType::kI64;
  if (n == "i32" || n == "int32") return DType::kI32;
  if (n == "i16" || n == "int16") return DType::kI16;
  if (n == "i8" || n == "int8") return DType::kI8;
  if (n == "u8" || n == "uint8") return DType::kU8;
  if (n == "bool") return DType::kBool;
  return std::nullopt;
}

std::optional<DType> dtype_from_onnx(int32_t v) {
  switch (v) {
    case 1:
      return DType::kF32;
    case 2:
      return DType::kU8;
    case 3:
      return DType::kI8;
    case 5:
      return DType::kI16;
    case 6:
      return DType::kI32;
    case 7:
      return DType::kI64;
    case 9:
      return DType::kBool;
    case 10:
      return DType::kF16;
    case 11:
      return DType::kF64;
    case 16:
      return DType::kBF16;
    default:
      return std::nullopt;
  }
}

}  // namespace amp
