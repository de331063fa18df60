// amp::Options: how Engine::load builds an engine.
//
//   amp::Options opt;
//   opt.precision = amp::Precision::kFp16;   // AMP: fp16 where safe, fp32 elsewhere
//   opt.backend = amp::BackendKind::kAuto;   // CUDA when a GPU is visible, else CPU
//   auto engine = amp::Engine::load("model.amp", opt);
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "amp/tensor.h"

namespace amp {

enum class BackendKind { kAuto, kCpu, kCuda };
// kAuto: fp16, with bf16 for the nodes whose calibrated values fp16 cannot hold (fp32 where
// bf16 cannot either); without calibration data, the fp16 plan.
enum class Precision { kFp32, kFp16, kBf16, kAuto };

const char* backend_kind_name(BackendKind b);
const char* precision_name(Precision p);

// What the AMP planner may decide for one node (used by the C++ override callback).
enum class NodePrecision { kDefault, kLow, kFp32 };

// An accuracy target for the AMP plan against fp32, per output (0: not checked): the
// cosine similarity, and the largest |difference| relative to the output's largest |value|.
struct AccuracyTarget {
  double min_cosine = 0;
  double max_rel_err = 0;
};

// Options::precision_timing.
enum class PrecisionTimingMode { kAuto, kOff, kOn };

struct NodeInfo {
  std::string name;
  std::string op_type;
};

struct Options {
  BackendKind backend = BackendKind::kAuto;
  // Target precision of the AMP planner. kFp32 runs everything in fp32. fp16 / bf16 are a
  // permission, as TensorRT's precision flags are: on a device that runs them no faster than
  // fp32 (a CPU without AMX, Engine::precision_note() says why) the engine stays fp32.
  Precision precision = Precision::kFp32;
  // Run fp16 / bf16 as planned even where they are no faster: a CPU preview of the numerics
  // a GPU's AMP plan will have (the low type stored, fp32 inside each kernel).
  bool emulate_low_precision = false;
  // AMP policy overrides (JSON; see README "Policy file"). Empty: built-in table only.
  std::string policy_file;
  // Calibration data: inputs the model sees in use, one map (input name -> tensor) per sample.
  // At load each runs once in fp32 (on the CPU) and the planner reads the value ranges: with
  // fp16 a node whose values would overflow fp16 (or flush to zero) stays fp32, with kAuto
  // it runs bf16 (runtime/calibration.h). Never changes an fp32 engine.
  std::vector<std::map<std::string, Tensor>> calibration;
  // Directories of calibration samples: input_<i>.pb files, or test_data_set_* folders of them.
  std::vector<std::string> calibration_dirs;
  // With calibration data: compare the AMP plan with fp32 on the samples and, while the target
  // is missed, pin the nodes that cause the error to fp32 (runtime/accuracy_search.h).
  // Engine::policy_json() saves the result, so a later load can skip the search.
  std::optional<AccuracyTarget> accuracy;
  // Device-aware precision: at load, time the AMP plan's nodes against fp32 on the device and
  // keep fp32 for those whose low type, with its casts, runs slower there; the whole engine
  // runs fp32 when the plan is not faster (runtime/precision_timing.h; the report says
  // "fp32: faster on this device"). kAuto: where the backend cannot tell without measuring
  // (a CPU that computes bf16 natively; not under emulate_low_precision); kOn: wherever a
  // low-precision plan is built (CUDA too); kOff: never, and where kAuto would time, the
  // backend's guess (fp32 on a CPU with AVX512-BF16 but no AMX). Symbolic input dims are
  // not timed (the backend's guess, as with kOff): input_shapes or calibration data binds
  // representative ones; a policy file's node_dtypes skip it.
  PrecisionTimingMode precision_timing = PrecisionTimingMode::kAuto;
  // C++ override, consulted after the policy file: return kLow / kFp32 to pin a node.
  std::function<NodePrecision(const NodeInfo&)> precision_callback;
  // Keep graph inputs/outputs in the model's dtypes (true), or let fp16/bf16 outputs out
  // without a final cast (false).
  bool keep_io_types = true;
  // CPU threads per run; 0 = OMP_NUM_THREADS when set, else all cores.
  int threads = 0;
  // Let each context run on fewer threads (one) while that measures faster, as it does when
  // another process keeps a core busy (runtime/thread_governor.h). Off: always `threads`.
  bool adaptive_threads = true;
  // Binds symbolic input dims at load ("input" -> {1,3,224,224}); others bind per run.
  std::map<std::string, std::vector<int64_t>> input_shapes;
  // Cap on the bytes an Engine may take (weights, their packed copies, the arena of a
  // context and the inputs and outputs of a run); 0 = no cap.
  size_t memory_limit_bytes = 0;
  // Check every low-precision node's outputs for Inf/NaN and report the first one.
  bool check_numerics = false;
  // CUDA: allow TF32 tensor cores for fp32 GEMM/conv (off by default: it is not fp32).
  bool allow_tf32 = false;
  // CUDA: capture the run as a CUDA graph for fixed shapes.
  bool cuda_graphs = true;
  int cuda_device = 0;
};

}  // namespace amp
