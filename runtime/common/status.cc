#include "runtime/common/status.h"

namespace amp {

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk:
      return "ok";
    case ErrorCode::kInvalidModel:
      return "invalid model";
    case ErrorCode::kUnsupported:
      return "unsupported";
    case ErrorCode::kInvalidInput:
      return "invalid input";
    case ErrorCode::kInvalidArgument:
      return "invalid argument";
    case ErrorCode::kOutOfMemory:
      return "out of memory";
    case ErrorCode::kBackendFailure:
      return "backend failure";
    case ErrorCode::kNotFound:
      return "not found";
    case ErrorCode::kInternal:
      return "internal error";
    case ErrorCode::kNumericOverflow:
      return "numeric overflow";
  }
  return "unknown error";
}

std::string Status::to_string() const {
  if (is_ok()) return "ok";
  return std::string(error_code_name(code_)) + ": " + message_;
}

Status Status::with_context(const std::string& context) const {
  if (is_ok()) return *this;
  return Status(code_, context + ": " + message_);
}

Status invalid_model(std::string m) {
  return Status(ErrorCode::kInvalidModel, std::move(m));
}
Status unsupported(std::string m) {
  return Status(ErrorCode::kUnsupported, std::move(m));
}
Status invalid_input(std::string m) {
  return Status(ErrorCode::kInvalidInput, std::move(m));
}
Status invalid_argument(std::string m) {
  return Status(ErrorCode::kInvalidArgument, std::move(m));
}
Status out_of_memory(std::string m) {
  return Status(ErrorCode::kOutOfMemory, std::move(m));
}
Status backend_failure(std::string m) {
  return Status(ErrorCode::kBackendFailure, std::move(m));
}
Status not_found(std::string m) {
  return Status(ErrorCode::kNotFound, std::move(m));
}
Status numeric_overflow(std::string m) {
  return Status(ErrorCode::kNumericOverflow, std::move(m));
}

Status internal_error(std::string m) {
  return Status(ErrorCode::kInternal, std::move(m));
}

void throw_if_error(const Status& status) {
  if (!status.is_ok()) throw Error(status.code(), status.message());
}

}  // namespace amp
