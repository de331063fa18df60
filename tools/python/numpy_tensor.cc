#include "tools/python/numpy_tensor.h"

#include <vector>

namespace amp::python {
namespace {

namespace nb = nanobind;
using nb::dlpack::dtype_code;

[[noreturn]] void bad(const TensorInfo& info, const std::string& why) {
  throw Error(ErrorCode::kInvalidInput, "input '" + info.name + "': " + why);
}

std::string describe(nb::dlpack::dtype t) {
  const char* kind = "?";
  switch (static_cast<dtype_code>(t.code)) {
    case dtype_code::Int:
      kind = "int";
      break;
    case dtype_code::UInt:
      kind = "uint";
      break;
    case dtype_code::Float:
      kind = "float";
      break;
    case dtype_code::Bfloat:
      kind = "bfloat";
      break;
    case dtype_code::Bool:
      return "bool";
    default:
      return "dtype code " + std::to_string(t.code);
  }
  return std::string(kind) + std::to_string(t.bits);
}

// The amp dtype an array of dtype `t` holds, given the input's dtype (a uint16 array is
// taken as bfloat16 bit patterns only where the input is bf16).
DType dtype_of(nb::dlpack::dtype t, DType wanted) {
  if (t.lanes != 1) return DType::kUndefined;
  switch (static_cast<dtype_code>(t.code)) {
    case dtype_code::Float:
      return t.bits == 32   ? DType::kF32
             : t.bits == 16 ? DType::kF16
             : t.bits == 64 ? DType::kF64
                            : DType::kUndefined;
    case dtype_code::Bfloat:
      return t.bits == 16 ? DType::kBF16 : DType::kUndefined;
    case dtype_code::Int:
      return t.bits == 8    ? DType::kI8
             : t.bits == 16 ? DType::kI16
             : t.bits == 32 ? DType::kI32
             : t.bits == 64 ? DType::kI64
                            : DType::kUndefined;
    case dtype_code::UInt:
      if (t.bits == 8) return DType::kU8;
      if (t.bits == 16 && wanted == DType::kBF16) return DType::kBF16;
      return DType::kUndefined;
    case dtype_code::Bool:
      return t.bits == 8 ? DType::kBool : DType::kUndefined;
    default:
      return DType::kUndefined;
  }
}

const char* numpy_name(DType t) {
  switch (t) {
    case DType::kF32:
      return "float32";
    case DType::kF16:
      return "float16";
    case DType::kBF16:
      return "bfloat16 (ml_dtypes.bfloat16, or uint16 bit patterns)";
    case DType::kF64:
      return "float64";
    case DType::kI8:
      return "int8";
    case DType::kI16:
      return "int16";
    case DType::kI32:
      return "int32";
    case DType::kI64:
      return "int64";
    case DType::kU8:
      return "uint8";
    case DType::kBool:
      return "bool";
    case DType::kUndefined:
      break;
  }
  return "?";
}

nb::dlpack::dtype dlpack_of(DType t) {
  switch (t) {
    case DType::kF32:
      return nb::dtype<float>();
    case DType::kF64:
      return nb::dtype<double>();
    case DType::kF16:
      return {static_cast<uint8_t>(dtype_code::Float), 16, 1};
    case DType::kBF16:  // numpy has no bfloat16: the bit patterns, as uint16
      return nb::dtype<uint16_t>();
    case DType::kI8:
      return nb::dtype<int8_t>();
    case DType::kI16:
      return nb::dtype<int16_t>();
    case DType::kI32:
      return nb::dtype<int32_t>();
    case DType::kI64:
      return nb::dtype<int64_t>();
    case DType::kU8:
      return nb::dtype<uint8_t>();
    case DType::kBool:
      return nb::dtype<bool>();
    case DType::kUndefined:
      break;
  }
  throw Error(ErrorCode::kInternal, "an output of undefined dtype");
}

}  // namespace

Tensor wrap_input(const TensorInfo& info, const InputArray& array) {
  const DType dtype = dtype_of(array.dtype(), info.dtype);
  if (dtype != info.dtype)
    bad(info, "a " + describe(array.dtype()) + " array, but the model takes " +
                  numpy_name(info.dtype) + " (convert it with .astype)");
  std::vector<int64_t> shape(array.ndim());
  for (size_t d = 0; d < array.ndim(); ++d) shape[d] = static_cast<int64_t>(array.shape(d));
  // C-contiguous: each stride (in elements) is the product of the dims after it. Dims of
  // size 1 may carry any stride.
  int64_t expected = 1;
  for (size_t d = array.ndim(); d-- > 0;) {
    if (shape[d] != 1 && array.stride(d) != expected)
      bad(info,
          "the array is not C-contiguous (a view or a transpose?): pass "
          "numpy.ascontiguousarray(x)");
    expected *= shape[d];
  }
  return Tensor::wrap_bytes(dtype, std::move(shape), const_cast<void*>(array.data()));
}

nb::object to_numpy(const Tensor& t) {
  auto* handle = new Tensor(t);  // shares t's bytes; the array's owner
  nb::capsule owner(handle, [](void* p) noexcept { delete static_cast<Tensor*>(p); });
  std::vector<size_t> shape(t.shape().begin(), t.shape().end());
  return nb::ndarray<nb::numpy>(const_cast<void*>(handle->raw_data()), shape.size(), shape.data(),
                                owner, nullptr, dlpack_of(t.dtype()))
      .cast();
}

}  // namespace amp::python
