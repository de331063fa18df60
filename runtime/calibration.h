// Calibration: the value ranges a model reaches on real inputs, and the AMP hints they give
// (AmpPolicy::node_hints). Options::calibration / amprun --calib DIR.
//
// Observation (observe_value_ranges): the fp32 graph the AMP planner is about to color
// (after the load-time passes) runs once per sample on the CPU backend (samples of one shape
// stacked into one batch where the model has a batch dim), every tensor in its plain
// layout, and a StepObserver folds each step's outputs into that value's range:
// the largest finite |x|, the count of non-zero elements too small for fp16 (|x| < 2^-24,
// which fp16 flushes to zero), and the count of Inf/NaN. One fp32 pass per sample, no copy
// of any tensor: the observer reads the arena in place, before the memory plan reuses it.
// The CPU runs it whatever the engine's backend (same fp32 arithmetic, no device memory).
//
// Guard (range_hints): a node is hot for fp16 when one of its float inputs or outputs
// (not a constant: weights are the planner's business) exceeds fp16's max / kHeadroom, or
// more than kUnderflowShare of its non-zero elements would flush to zero in fp16.
//   fp16 target:  a hot node stays fp32 ("observed 1.8e5 > 65504 / 4 headroom: fp32").
//   auto (fp16 with bf16 where needed): a hot node runs bf16 when its largest value fits
//                 bf16 with the same headroom (it has fp32's exponent range), else fp32.
//   bf16 target:  a node stays fp32 only when a value exceeds bf16's own range.
// Hinting inputs as well as outputs matters: a hot value cast to fp16 by its consumer
// overflows exactly as if it had been stored in fp16. Except Attention's additive mask,
// whose -3.4e38 "minus infinity" masks the same keys as fp16's -inf.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "amp/tensor.h"
#include "graph/ir/graph.h"
#include "graph/passes/amp/amp_policy.h"
#include "runtime/backend/backend.h"
#include "runtime/common/status.h"
#include "runtime/value_memo.h"

namespace amp::runtime {

struct ValueRange {
  double max_abs = 0;      // largest finite |x|
  int64_t elements = 0;    // every element seen, over every sample
  int64_t nonzero = 0;     // finite non-zero elements
  int64_t underflow = 0;   // finite non-zero elements with |x| < 2^-24 (zero in fp16)
  int64_t non_finite = 0;  // Inf / NaN elements
};

using ValueRanges = std::map<std::string, ValueRange>;  // by value name

// A calibration sample: one tensor per graph input, in graph-input order, already checked
// against the model's inputs (names, dtypes, ranks, dims).
using CalibrationSample = std::vector<const Tensor*>;

// Runs graphs on the CPU backend with every tensor in its plain layout: the fp32 passes of
// calibration, and the AMP plans the accuracy search tries (the CPU has every fp16 / bf16
// kernel, with the GPU's numerics: low storage, fp32 inside each kernel).
class CpuGraphRunner {
 public:
  static Result<std::unique_ptr<CpuGraphRunner>> create(int threads);
  // Each sample's outputs; one plan per distinct input shape. Samples of one shape run as
  // one batch where every input and output has a symbolic batch dim (dim 0) that the model
  // keeps apart. Errors name the sample. `memo` (optional, runtime/value_memo.h): skip the
  // steps whose outputs an earlier call on the same samples kept; `record`: keep this call's.
  Result<std::vector<std::vector<Tensor>>> run_samples(
      const graph::Graph& g, const std::vector<CalibrationSample>& samples,
      const StepObserver* observer = nullptr, ValueMemo* memo = nullptr, bool record = false);

 private:
  CpuGraphRunner() = default;
  // `members` of `samples` stacked along dim 0 and run once, their outputs split back into
  // `outputs`; false (nothing written) when an output's dim 0 turns out not to be the batch.
  Result<bool> run_stacked(const graph::Graph& g, const std::vector<CalibrationSample>& samples,
                           const std::vector<size_t>& members, const PlanBuildOptions& popt,
                           RunConfig config, ValueMemo* memo,
                           std::vector<std::vector<Tensor>>& outputs);
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<Executor> executor_;
  int threads_ = 1;
  // The plan run last, kept until the next is built: the next plan of the same graph (the
  // accuracy search's next try) shares its packed weights instead of packing them again
  // (kernels/cpu/dnnl_common.h, DnnlWeights).
  std::shared_ptr<const ExecutionPlan> last_plan_;
};

// Runs `g` (fp32, shape-inferred) on every sample on the CPU and returns every computed
// value's range; `outputs` (optional) receives each sample's outputs, the fp32 reference.
// A sample with Inf/NaN in a float input is an error (it says nothing about the ranges the
// model reaches). `threads`: CPU threads for the runs.
Result<ValueRanges> observe_value_ranges(const graph::Graph& g,
                                         const std::vector<CalibrationSample>& samples, int threads,
                                         std::vector<std::vector<Tensor>>* outputs = nullptr);

enum class RangeTarget { kFp16, kBf16, kAuto };

inline constexpr double kHeadroom = 4.0;         // a value may grow 4x past what was seen
inline constexpr double kUnderflowShare = 0.01;  // > 1% of non-zero elements flushed: hot

// The guard above: node name -> hint, for the nodes that the ranges make hot.
std::map<std::string, graph::AmpPolicy::NodeHint> range_hints(const graph::Graph& g,
                                                              const ValueRanges& ranges,
                                                              RangeTarget target);

// The samples in `dirs`: each directory holds input_<i>.pb files (graph-input order, the ONNX
// test-data layout), or test_data_set_* subdirectories that do. Errors name the file.
Result<std::vector<std::vector<Tensor>>> load_calibration_dirs(const std::vector<std::string>& dirs,
                                                               size_t input_count);

}  // namespace amp::runtime
