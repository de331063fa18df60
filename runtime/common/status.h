// Status and Result<T>: how every fallible call inside AMPRT reports failure.
//
// No exceptions inside the library (they only appear at the public API, as amp::Error).
// Codes are amp::ErrorCode; when to use each:
//   kInvalidModel     the model file or graph breaks a rule (bad offsets, cycles, shapes
//                     that contradict each other). Name the node or tensor.
//   kUnsupported      valid ONNX/AMP that we do not implement (op, opset, dtype, attr).
//   kInvalidInput     caller's run-time tensors do not match the model.
//   kInvalidArgument  options, policy files, API misuse.
//   kOutOfMemory      an allocation failed or a declared size exceeds the caps.
//   kBackendFailure   a CUDA/cuDNN/cuBLAS/oneDNN call failed; name the call and the node.
//   kNotFound         a file that cannot be opened.
//   kInternal         a broken invariant: a bug in AMPRT.
//   kNumericOverflow  check_numerics found Inf/NaN made by a low-precision node.
//
// Usage:
//   Result<Graph> load(...);
//   AMP_ASSIGN_OR_RETURN(Graph g, load(...));
//   AMP_RETURN_IF_ERROR(verify(g));
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "amp/error.h"

namespace amp {

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status ok() { return Status(); }
  bool is_ok() const { return code_ == ErrorCode::kOk; }
  explicit operator bool() const { return is_ok(); }
  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "invalid model: <message>" ("ok" when OK).
  std::string to_string() const;

  // Prepends context, e.g. s.with_context("node 'conv1' (Conv)") gives
  // "node 'conv1' (Conv): <message>". No-op on OK.
  Status with_context(const std::string& context) const;

 private:
  ErrorCode code_ = ErrorCode::kOk;
  std::string message_;
};

// Convenience constructors, one per code.
Status invalid_model(std::string message);
Status unsupported(std::string message);
Status invalid_input(std::string message);
Status invalid_argument(std::string message);
Status out_of_memory(std::string message);
Status backend_failure(std::string message);
Status not_found(std::string message);
Status internal_error(std::string message);
Status numeric_overflow(std::string message);

// Throws amp::Error for a failed status; used only at the public API boundary.
void throw_if_error(const Status& status);

// The status a Result carries when (wrongly) constructed from an OK status.
inline Status internal_status_for_ok_result() {
  return Status(ErrorCode::kInternal, "Result constructed from an OK status");
}

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status)                          // NOLINT
      : status_(status.is_ok() ? internal_status_for_ok_result() : std::move(status)) {
    assert(!status.is_ok() && "Result constructed from an OK status without a value");
  }

  bool is_ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

// Public-boundary helper: the value, or throw amp::Error.
template <typename T>
T value_or_throw(Result<T>&& r) {
  throw_if_error(r.status());
  return std::move(r).value();
}

}  // namespace amp

#define AMP_STATUS_CONCAT_INNER(a, b) a##b
#define AMP_STATUS_CONCAT(a, b) AMP_STATUS_CONCAT_INNER(a, b)

#define AMP_RETURN_IF_ERROR(expr)                 \
  do {                                            \
    ::amp::Status _amp_status = (expr);           \
    if (!_amp_status.is_ok()) return _amp_status; \
  } while (0)

#define AMP_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.is_ok()) return tmp.status();          \
  lhs = std::move(tmp).value()

#define AMP_ASSIGN_OR_RETURN(lhs, expr) \
  AMP_ASSIGN_OR_RETURN_IMPL(AMP_STATUS_CONCAT(_amp_result_, __LINE__), lhs, expr)
