// ServeError: a request amp-serve refuses or fails, with the outcome both protocols map to
// their own status (HTTP status code, gRPC status code) and a message naming the problem.
//
// Errors from the runtime (amp::Error) are mapped by their stable code: a bad input is the
// client's fault (400 / INVALID_ARGUMENT), a backend failure is the server's (500 /
// INTERNAL), an out-of-memory is a temporary refusal (503 / RESOURCE_EXHAUSTED).
#pragma once

#include <stdexcept>
#include <string>

#include "amp/error.h"

namespace amp::serve {

enum class ServeStatus {
  kOk,
  kBadRequest,       // malformed or inconsistent request: 400 / INVALID_ARGUMENT
  kNotFound,         // unknown model or route: 404 / NOT_FOUND
  kUnavailable,      // not ready, shutting down: 503 / UNAVAILABLE
  kOverloaded,       // queue full or out of memory: 503 / RESOURCE_EXHAUSTED
  kTimeout,          // waited past its timeout: 504 / DEADLINE_EXCEEDED
  kPayloadTooLarge,  // over the body cap: 413 / RESOURCE_EXHAUSTED
  kInternal,         // a backend failure or a bug: 500 / INTERNAL
};

class ServeError : public std::runtime_error {
 public:
  ServeError(ServeStatus status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  ServeStatus status() const { return status_; }

 private:
  ServeStatus status_;
};

int http_status(ServeStatus s);
// The outcome of a failed amp::Error code.
ServeStatus serve_status_of(ErrorCode code);

}  // namespace amp::serve
