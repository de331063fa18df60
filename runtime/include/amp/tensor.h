// amp::Tensor: a host tensor passed to and returned from Engine::run.
//
// A Tensor either owns its bytes (Tensor::from copies, Tensor::empty allocates) or borrows
// memory the caller keeps alive (Tensor::wrap: no copy, the caller's buffer must outlive
// every use of the Tensor). Copies of a Tensor share the same bytes.
//
//   std::vector<float> pixels(1 * 3 * 224 * 224);
//   amp::Tensor x = amp::Tensor::from(pixels, {1, 3, 224, 224});
//   amp::Tensor y = engine.run({{"input", x}})[0];
//   const float* probs = y.data<float>();
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "amp/dtype.h"
#include "amp/error.h"

namespace amp {

namespace detail {
template <typename T>
constexpr DType dtype_of();
template <>
constexpr DType dtype_of<float>() {
  return DType::kF32;
}
template <>
constexpr DType dtype_of<double>() {
  return DType::kF64;
}
template <>
constexpr DType dtype_of<int64_t>() {
  return DType::kI64;
}
template <>
constexpr DType dtype_of<int32_t>() {
  return DType::kI32;
}
template <>
constexpr DType dtype_of<int16_t>() {
  return DType::kI16;
}
template <>
constexpr DType dtype_of<int8_t>() {
  return DType::kI8;
}
template <>
constexpr DType dtype_of<uint8_t>() {
  return DType::kU8;
}
template <>
constexpr DType dtype_of<bool>() {
  return DType::kBool;
}
}  // namespace detail

class Tensor {
 public:
  Tensor() = default;

  // Allocates zeroed storage.
  static Tensor empty(DType dtype, std::vector<int64_t> shape);
  // Copies `values` (numel must match the shape).
  template <typename T>
  static Tensor from(const std::vector<T>& values, std::vector<int64_t> shape) {
    Tensor t = empty(detail::dtype_of<T>(), std::move(shape));
    t.check_count(values.size());
    if (!values.empty()) std::memcpy(t.data_, values.data(), t.byte_size());
    return t;
  }
  // Copies raw bytes of the given dtype (e.g. fp16 bit patterns).
  static Tensor from_bytes(DType dtype, std::vector<int64_t> shape, const void* bytes, size_t size);
  // Borrows `data` (no copy). The caller keeps it alive and unchanged while in use.
  template <typename T>
  static Tensor wrap(T* data, std::vector<int64_t> shape) {
    return wrap_bytes(detail::dtype_of<std::remove_const_t<T>>(), std::move(shape),
                      const_cast<std::remove_const_t<T>*>(data));
  }
  static Tensor wrap_bytes(DType dtype, std::vector<int64_t> shape, void* data);

  DType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int64_t numel() const { return numel_; }
  size_t byte_size() const { return static_cast<size_t>(numel_) * dtype_size(dtype_); }
  bool defined() const { return dtype_ != DType::kUndefined; }

  void* raw_data() { return data_; }
  const void* raw_data() const { return data_; }
  // Typed access; throws amp::Error if T does not match dtype().
  template <typename T>
  T* data() {
    check_type(detail::dtype_of<T>());
    return static_cast<T*>(data_);
  }
  template <typename T>
  const T* data() const {
    check_type(detail::dtype_of<T>());
    return static_cast<const T*>(data_);
  }
  template <typename T>
  std::vector<T> to_vector() const {
    const T* p = data<T>();
    return std::vector<T>(p, p + numel_);
  }
  // Any float dtype (f32/f16/bf16/f64) and integers widened to float.
  std::vector<float> to_float_vector() const;
  // "f32[1,3,224,224]"
  std::string describe() const;

 private:
  void check_type(DType t) const;
  void check_count(size_t n) const;

  DType dtype_ = DType::kUndefined;
  std::vector<int64_t> shape_;
  int64_t numel_ = 0;
  std::shared_ptr<void> owner_;  // null when borrowed
  void* data_ = nullptr;
};

}  // namespace amp
