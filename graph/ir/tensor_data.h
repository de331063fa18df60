// TensorData: the bytes of a constant tensor (a weight, a folded value, an attribute).
//
// Storage is shared and immutable: copies are cheap and point at the same bytes. The
// bytes are either owned (a std::vector kept alive by a shared_ptr) or a view into a
// buffer owned by someone else (an mmapped .amp file), kept alive by `keepalive`.
// Dims are always static.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "amp/dtype.h"
#include "runtime/common/status.h"

namespace amp::graph {

class TensorData {
 public:
  TensorData() = default;

  // Copies `bytes`. Fails when bytes.size() != numel(dims) * dtype_size(dtype).
  static Result<TensorData> from_bytes(DType dtype, std::vector<int64_t> dims,
                                       std::vector<uint8_t> bytes);
  // Wraps bytes owned elsewhere; `keepalive` must own them. Size checked as above.
  static Result<TensorData> view(DType dtype, std::vector<int64_t> dims,
                                 std::shared_ptr<const void> keepalive, const uint8_t* data,
                                 size_t size);
  // Typed helpers for tests, the importer and folding. T must match dtype's size.
  template <typename T>
  static TensorData from_vector(DType dtype, std::vector<int64_t> dims,
                                const std::vector<T>& values) {
    std::vector<uint8_t> bytes(values.size() * sizeof(T));
    if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
    return from_bytes(dtype, std::move(dims), std::move(bytes)).value();
  }
  static TensorData scalar_i64(int64_t v) { return from_vector<int64_t>(DType::kI64, {}, {v}); }
  static TensorData vector_i64(const std::vector<int64_t>& v) {
    return from_vector<int64_t>(DType::kI64, {static_cast<int64_t>(v.size())}, v);
  }
  static TensorData scalar_f32(float v) { return from_vector<float>(DType::kF32, {}, {v}); }

  DType dtype() const { return dtype_; }
  const std::vector<int64_t>& dims() const { return dims_; }
  int64_t numel() const { return numel_; }
  size_t byte_size() const { return size_; }
  const uint8_t* bytes() const { return data_; }
  // What keeps bytes() alive: the same owner and address mean the same, unchanged bytes
  // (TensorData never writes them), which caches of derived data key on.
  const std::shared_ptr<const void>& owner() const { return keepalive_; }
  template <typename T>
  const T* data() const {
    return reinterpret_cast<const T*>(data_);
  }
  bool empty_storage() const { return data_ == nullptr && size_ == 0; }

  // Integer elements widened to int64 (i8..i64, u8, bool); for shape arithmetic.
  // Fails on float dtypes.
  Result<std::vector<int64_t>> to_i64_vector() const;
  // Float-ish elements widened to double (any dtype); for range checks and folding.
  std::vector<double> to_f64_vector() const;
  // Element i (0 <= i < numel) widened to double, as to_f64_vector does; for scans of
  // large constants that should not allocate a double per element.
  double f64_at(int64_t i) const;
  // Element i as int64: integers exactly, bool as 0/1, floats truncated toward zero and
  // saturated (NaN -> 0; ONNX leaves out-of-range undefined, and a hostile constant must
  // not make the conversion C++ UB).
  int64_t i64_at(int64_t i) const;

  // Byte-wise equality of dtype, dims and contents.
  bool operator==(const TensorData& o) const;

 private:
  DType dtype_ = DType::kUndefined;
  std::vector<int64_t> dims_;
  int64_t numel_ = 0;
  std::shared_ptr<const void> keepalive_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace amp::graph
