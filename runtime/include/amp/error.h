// amp::Error: the one exception type of the public API.
//
// Inside the library every fallible call returns amp::Status / amp::Result<T>; only the
// public entry points (Engine::load, Engine::run, ...) turn a failed Status into a
// thrown amp::Error, so user code reads naturally:
//
//   try {
//     auto engine = amp::Engine::load("model.amp", {});
//   } catch (const amp::Error& e) {
//     if (e.code() == amp::ErrorCode::kInvalidModel) ...
//   }
//
// The codes are stable: tools and servers may switch on them.
#pragma once

#include <stdexcept>
#include <string>

namespace amp {

enum class ErrorCode : int {
  kOk = 0,
  kInvalidModel = 1,     // the model file or graph is malformed or inconsistent
  kUnsupported = 2,      // well-formed, but uses an op/dtype/attribute we do not implement
  kInvalidInput = 3,     // run-time inputs: wrong name, dtype, rank or dim
  kInvalidArgument = 4,  // options, policy files, API misuse
  kOutOfMemory = 5,      // host or device allocation failed, or a memory cap was exceeded
  kBackendFailure = 6,   // CUDA / cuDNN / cuBLAS / oneDNN returned an error
  kNotFound = 7,         // a file that does not exist or cannot be opened
  kInternal = 8,         // a broken invariant inside AMPRT: a bug, please report it
  kNumericOverflow = 9,  // Options::check_numerics: a low-precision node made Inf/NaN
};

// A short stable name for the code, e.g. "invalid model".
const char* error_code_name(ErrorCode code);

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message)
      : std::runtime_error(std::string(error_code_name(code)) + ": " + message),
        code_(code),
        message_(message) {}
  ErrorCode code() const { return code_; }
  // The message without the code prefix.
  const std::string& message() const { return message_; }

 private:
  ErrorCode code_;
  std::string message_;
};

}  // namespace amp
