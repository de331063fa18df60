// What Engine::load does to an untrusted model file inside amp_graph, as one call, so the
// fuzz targets (tests/fuzz/*_fuzzer.cc) and the regression test that replays their
// findings (tests/graph/serialize/fuzz_regression_test.cc) run exactly the same path.
//
//   .amp:  read_amp_bytes -> infer_shapes -> run_runtime_passes -> plan_mixed_precision
//          (f16, every kernel "exists") -> precision reports -> plan_memory (when every
//          value is static)
//   .onnx: import_onnx_bytes -> run_conversion_passes (verify, infer, fold, DCE)
//          -> write_amp_bytes -> read_amp_bytes (must succeed and be equal: the writer
//          promises that) -> the .amp steps above after the reader
//
// The result is the first error, or OK. A hostile file may fail with any code except
// kInternal, which these functions also use for broken promises between the stages (the
// writer produced a file the reader rejects, or one that reads back different). The
// fuzzers abort on kInternal; the regression test fails on it.
//
// No kernels are needed: the AMP planner is told every low-precision kernel exists, and
// the memory planner plans without in-place reuse or workspaces.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/common/status.h"

namespace amp::fuzz {

Status load_amp_untrusted(const uint8_t* data, size_t size);
Status load_onnx_untrusted(const uint8_t* data, size_t size);

}  // namespace amp::fuzz
