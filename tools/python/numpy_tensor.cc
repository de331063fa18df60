#include "tools/python/numpy_tensor.h"

#include <algorithm>
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

// Each AMPRT dtype, the array dtype it crosses as, and the name users see in errors. numpy
// has no bfloat16: its bit patterns cross as uint16.
struct ArrayType {
  DType dtype;
  dtype_code code;
  uint8_t bits;
  const char* numpy;
};
constexpr ArrayType kArrayTypes[] = {
    {DType::kF32, dtype_code::Float, 32, "float32"},
    {DType::kF16, dtype_code::Float, 16, "float16"},
    {DType::kF64, dtype_code::Float, 64, "float64"},
    {DType::kI8, dtype_code::Int, 8, "int8"},
    {DType::kI16, dtype_code::Int, 16, "int16"},
    {DType::kI32, dtype_code::Int, 32, "int32"},
    {DType::kI64, dtype_code::Int, 64, "int64"},
    {DType::kU8, dtype_code::UInt, 8, "uint8"},
    {DType::kBool, dtype_code::Bool, 8, "bool"},
    {DType::kBF16, dtype_code::UInt, 16, "bfloat16 (ml_dtypes.bfloat16, or uint16 bit patterns)"},
};

const ArrayType* array_type(DType t) {
  for (const ArrayType& a : kArrayTypes)
    if (a.dtype == t) return &a;
  return nullptr;
}

// The amp dtype an array of dtype `t` holds, given the input's dtype (a uint16 array is
// taken as bfloat16 bit patterns only where the input is bf16).
DType dtype_of(nb::dlpack::dtype t, DType wanted) {
  if (t.lanes != 1) return DType::kUndefined;
  if (static_cast<dtype_code>(t.code) == dtype_code::Bfloat && t.bits == 16) return DType::kBF16;
  for (const ArrayType& a : kArrayTypes)
    if (static_cast<uint8_t>(a.code) == t.code && a.bits == t.bits &&
        (a.dtype != DType::kBF16 || wanted == DType::kBF16))
      return a.dtype;
  return DType::kUndefined;
}

const char* numpy_name(DType t) {
  const ArrayType* a = array_type(t);
  return a ? a->numpy : "?";
}

nb::dlpack::dtype dlpack_of(DType t) {
  const ArrayType* a = array_type(t);
  if (!a) throw Error(ErrorCode::kInternal, "an output of undefined dtype");
  return {static_cast<uint8_t>(a->code), a->bits, 1};
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
  // size 1 may carry any stride, and so may every dim of an array with no elements (numpy
  // gives np.zeros((2, 0)) the strides (0, 0)): there is nothing to read.
  int64_t expected = 1;
  const bool empty = std::find(shape.begin(), shape.end(), 0) != shape.end();
  for (size_t d = array.ndim(); !empty && d-- > 0;) {
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
