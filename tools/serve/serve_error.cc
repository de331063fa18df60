#include "tools/serve/serve_error.h"

namespace amp::serve {

int http_status(ServeStatus s) {
  switch (s) {
    case ServeStatus::kOk:
      return 200;
    case ServeStatus::kBadRequest:
      return 400;
    case ServeStatus::kNotFound:
      return 404;
    case ServeStatus::kUnavailable:
    case ServeStatus::kOverloaded:
      return 503;
    case ServeStatus::kTimeout:
      return 504;
    case ServeStatus::kPayloadTooLarge:
      return 413;
    case ServeStatus::kInternal:
      return 500;
  }
  return 500;
}

ServeStatus serve_status_of(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk:
      return ServeStatus::kOk;
    case ErrorCode::kInvalidInput:
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kUnsupported:
    case ErrorCode::kNumericOverflow:
      return ServeStatus::kBadRequest;
    case ErrorCode::kNotFound:
      return ServeStatus::kNotFound;
    case ErrorCode::kOutOfMemory:
      return ServeStatus::kOverloaded;
    case ErrorCode::kInvalidModel:
    case ErrorCode::kBackendFailure:
    case ErrorCode::kInternal:
      return ServeStatus::kInternal;
  }
  return ServeStatus::kInternal;
}

}  // namespace amp::serve
