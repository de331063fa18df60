#include "amp/tensor.h"

#include <cstdlib>
#include <limits>

#include "runtime/common/half.h"

namespace amp {
namespace {

int64_t checked_count(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) throw Error(ErrorCode::kInvalidArgument, "tensor dims must be >= 0");
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d)
      throw Error(ErrorCode::kInvalidArgument, "tensor dims overflow");
    n *= d;
  }
  return n;
}

}  // namespace

Tensor Tensor::empty(DType dtype, std::vector<int64_t> shape) {
  if (dtype_size(dtype) == 0) throw Error(ErrorCode::kInvalidArgument, "tensor dtype undefined");
  Tensor t;
  t.dtype_ = dtype;
  t.numel_ = checked_count(shape);
  t.shape_ = std::move(shape);
  const size_t bytes = std::max<size_t>(t.byte_size(), 1);
  // 64-byte aligned so kernels may read it with vector loads.
  void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (!p)
    throw Error(ErrorCode::kOutOfMemory,
                "cannot allocate " + std::to_string(bytes) + " bytes for a tensor");
  std::memset(p, 0, bytes);
  t.owner_ = std::shared_ptr<void>(p, [](void* q) { std::free(q); });
  t.data_ = p;
  return t;
}

Tensor Tensor::from_bytes(DType dtype, std::vector<int64_t> shape, const void* bytes, size_t size) {
  Tensor t = empty(dtype, std::move(shape));
  if (size != t.byte_size())
    throw Error(ErrorCode::kInvalidArgument, "Tensor::from_bytes: " + std::to_string(size) +
                                                 " bytes given, " + std::to_string(t.byte_size()) +
                                                 " needed for " + t.describe());
  if (size) std::memcpy(t.data_, bytes, size);
  return t;
}

Tensor Tensor::wrap_bytes(DType dtype, std::vector<int64_t> shape, void* data) {
  if (dtype_size(dtype) == 0) throw Error(ErrorCode::kInvalidArgument, "tensor dtype undefined");
  Tensor t;
  t.dtype_ = dtype;
  t.numel_ = checked_count(shape);
  t.shape_ = std::move(shape);
  if (!data && t.numel_ > 0) throw Error(ErrorCode::kInvalidArgument, "Tensor::wrap: null data");
  t.data_ = data;
  return t;
}

void Tensor::check_type(DType t) const {
  if (t != dtype_)
    throw Error(ErrorCode::kInvalidArgument, "tensor is " + std::string(dtype_name(dtype_)) +
                                                 ", accessed as " + std::string(dtype_name(t)));
}

void Tensor::check_count(size_t n) const {
  if (static_cast<int64_t>(n) != numel_)
    throw Error(ErrorCode::kInvalidArgument, std::to_string(n) + " values given for shape " +
                                                 describe() + " (" + std::to_string(numel_) +
                                                 " elements)");
}

std::vector<float> Tensor::to_float_vector() const {
  std::vector<float> out(static_cast<size_t>(numel_));
  const uint8_t* p = static_cast<const uint8_t*>(data_);
  for (int64_t i = 0; i < numel_; ++i) {
    switch (dtype_) {
      case DType::kF32:
        out[i] = reinterpret_cast<const float*>(p)[i];
        break;
      case DType::kF64:
        out[i] = static_cast<float>(reinterpret_cast<const double*>(p)[i]);
        break;
      case DType::kF16:
        out[i] = half_bits_to_float(reinterpret_cast<const uint16_t*>(p)[i]);
        break;
      case DType::kBF16:
        out[i] = bf16_bits_to_float(reinterpret_cast<const uint16_t*>(p)[i]);
        break;
      case DType::kI64:
        out[i] = static_cast<float>(reinterpret_cast<const int64_t*>(p)[i]);
        break;
      case DType::kI32:
        out[i] = static_cast<float>(reinterpret_cast<const int32_t*>(p)[i]);
        break;
      case DType::kI16:
        out[i] = reinterpret_cast<const int16_t*>(p)[i];
        break;
      case DType::kI8:
        out[i] = reinterpret_cast<const int8_t*>(p)[i];
        break;
      case DType::kU8:
        out[i] = p[i];
        break;
      case DType::kBool:
        out[i] = p[i] ? 1.0f : 0.0f;
        break;
      case DType::kUndefined:
        out[i] = 0;
        break;
    }
  }
  return out;
}

std::string Tensor::describe() const {
  std::string s(dtype_name(dtype_));
  s += "[";
  for (size_t i = 0; i < shape_.size(); ++i) s += (i ? "," : "") + std::to_string(shape_[i]);
  return s + "]";
}

}  // namespace amp
