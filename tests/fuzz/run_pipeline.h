// What a user does with an untrusted model file through the public API, as one call, so the
// engine fuzzer (tests/fuzz/engine_run_fuzzer.cc) and the test that replays its findings
// (tests/runtime/fuzz_run_regression_test.cc) run exactly the same path:
//
//   Engine::load (CPU, one thread, a 64 MiB memory cap, fp32 or an emulated fp16 / bf16
//   AMP plan) -> run with inputs made from the model's declared inputs (symbolic dims 2)
//   -> run again with symbolic dims 3, 1 or 0 (a new plan, built with the first one's
//   kernels at hand; 0: empty tensors) -> run at 2 again (the cached plan).
//
// The load pipeline the other fuzzers drive (load_pipeline.h) stops before kernels exist;
// this one also prepares and runs them, so a hostile attribute, shape or index that the
// load accepts meets the kernels and the plan-time folding of bound shapes.
//
// Every choice (file format, precision, input values) is a function of the bytes, so a
// finding replays exactly. Input values are small: floats in [-3, 3], integers in [-2, 5]
// (indices both valid and out of range, Reshape targets with -1 and 0), booleans mixed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "amp/error.h"

namespace amp::fuzz {

struct RunOutcome {
  ErrorCode code = ErrorCode::kOk;  // kOk: loaded and every run succeeded
  std::string message;              // the amp::Error's, or what else escaped the API
  bool escaped = false;             // something other than amp::Error left the API: a bug
  int runs = 0;                     // successful runs
};

// `scratch_dir` holds the model while Engine::load reads it (the API takes a path).
RunOutcome load_and_run_untrusted(const uint8_t* data, size_t size, const std::string& scratch_dir);

// A bug: an internal error, or an exception other than amp::Error.
inline bool is_bug(const RunOutcome& o) {
  return o.escaped || o.code == ErrorCode::kInternal;
}

}  // namespace amp::fuzz
