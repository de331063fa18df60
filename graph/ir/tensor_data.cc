#include "graph/ir/tensor_data.h"

#include <cmath>
#include <limits>
#include <string>

#include "graph/ir/shape.h"
#include "runtime/common/half.h"

namespace amp::graph {
namespace {

Status check_size(DType dtype, const std::vector<int64_t>& dims, size_t size, int64_t* numel) {
  if (dtype_size(dtype) == 0) return invalid_model("constant tensor has an undefined dtype");
  auto n = checked_numel(dims);
  if (!n) return invalid_model("constant tensor has negative or overflowing dims");
  const uint64_t expected = static_cast<uint64_t>(*n);
  if (expected > UINT64_MAX / dtype_size(dtype) || expected * dtype_size(dtype) != size) {
    return invalid_model("constant tensor byte size " + std::to_string(size) + " does not match " +
                         std::to_string(*n) + " elements of " + std::string(dtype_name(dtype)));
  }
  *numel = *n;
  return Status::ok();
}

}  // namespace

Result<TensorData> TensorData::from_bytes(DType dtype, std::vector<int64_t> dims,
                                          std::vector<uint8_t> bytes) {
  TensorData t;
  AMP_RETURN_IF_ERROR(check_size(dtype, dims, bytes.size(), &t.numel_));
  auto owned = std::make_shared<std::vector<uint8_t>>(std::move(bytes));
  t.dtype_ = dtype;
  t.dims_ = std::move(dims);
  t.data_ = owned->data();
  t.size_ = owned->size();
  t.keepalive_ = std::move(owned);
  return t;
}

Result<TensorData> TensorData::view(DType dtype, std::vector<int64_t> dims,
                                    std::shared_ptr<const void> keepalive, const uint8_t* data,
                                    size_t size) {
  TensorData t;
  AMP_RETURN_IF_ERROR(check_size(dtype, dims, size, &t.numel_));
  t.dtype_ = dtype;
  t.dims_ = std::move(dims);
  t.keepalive_ = std::move(keepalive);
  t.data_ = data;
  t.size_ = size;
  return t;
}

Result<std::vector<int64_t>> TensorData::to_i64_vector() const {
  if (!is_integer(dtype_) && dtype_ != DType::kBool)
    return invalid_model("expected an integer tensor, got " + std::string(dtype_name(dtype_)));
  std::vector<int64_t> out(static_cast<size_t>(numel_));
  for (int64_t i = 0; i < numel_; ++i) out[static_cast<size_t>(i)] = i64_at(i);
  return out;
}

std::vector<double> TensorData::to_f64_vector() const {
  std::vector<double> out(static_cast<size_t>(numel_));
  for (int64_t i = 0; i < numel_; ++i) out[static_cast<size_t>(i)] = f64_at(i);
  return out;
}

double TensorData::f64_at(int64_t i) const {
  switch (dtype_) {
    case DType::kF32:
      return data<float>()[i];
    case DType::kF64:
      return data<double>()[i];
    case DType::kF16:
      return half_bits_to_float(data<uint16_t>()[i]);
    case DType::kBF16:
      return bf16_bits_to_float(data<uint16_t>()[i]);
    case DType::kI64:
      return static_cast<double>(data<int64_t>()[i]);
    case DType::kI32:
      return data<int32_t>()[i];
    case DType::kI16:
      return data<int16_t>()[i];
    case DType::kI8:
      return data<int8_t>()[i];
    case DType::kU8:
      return data<uint8_t>()[i];
    case DType::kBool:
      return data<uint8_t>()[i] != 0;
    case DType::kUndefined:
      return 0;
  }
  return 0;
}

int64_t TensorData::i64_at(int64_t i) const {
  switch (dtype_) {
    case DType::kI64:
      return data<int64_t>()[i];
    case DType::kI32:
      return data<int32_t>()[i];
    case DType::kI16:
      return data<int16_t>()[i];
    case DType::kI8:
      return data<int8_t>()[i];
    case DType::kU8:
      return data<uint8_t>()[i];
    case DType::kBool:
      return data<uint8_t>()[i] != 0;
    case DType::kF32:
    case DType::kF64:
    case DType::kF16:
    case DType::kBF16:
    case DType::kUndefined:
      break;
  }
  const double d = f64_at(i);
  if (std::isnan(d)) return 0;
  if (d >= 9.2e18) return std::numeric_limits<int64_t>::max();
  if (d <= -9.2e18) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(d);
}

bool TensorData::operator==(const TensorData& o) const {
  return dtype_ == o.dtype_ && dims_ == o.dims_ && size_ == o.size_ &&
         (size_ == 0 || std::memcmp(data_, o.data_, size_) == 0);
}

}  // namespace amp::graph
