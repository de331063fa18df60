// Backend and Executor: what the engine needs from a device beyond its kernels.
//
//   Backend  (one per Engine, immutable after load, shared by every thread):
//     - the kernel registry the planners ask ("is there a kernel for this op and dtype?");
//     - the handle kernels receive in prepare() (KernelConfig::backend_handle);
//     - where constants live: upload_weights() copies the planned engine graph's weights
//       to the device once at load; place_constants() points a plan's constants at those
//       copies (and uploads the few constants that folding created for that plan alone);
//     - create_executor(), once per ExecutionContext.
//   Executor (one per ExecutionContext, used by one thread at a time):
//     - owns the mutable per-run state: the activation arena laid out by the memory
//       planner, and on CUDA a stream, cuDNN/cuBLASLt handles, pinned staging buffers and
//       the captured CUDA graph;
//     - run(plan, inputs) copies inputs in, runs every step, copies outputs out.
//
// Implementations: cpu_backend.h (host memory, OpenMP threads) and cuda/cuda_backend.h
// (built when AMP_HAVE_CUDA). create_backend() (backend_factory.h) picks one.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "amp/engine.h"
#include "graph/ir/graph.h"
#include "kernels/kernel_registry.h"
#include "runtime/backend/numerics_check.h"
#include "runtime/common/status.h"
#include "runtime/execution_plan.h"
#include "runtime/profiler.h"

namespace amp::runtime {

// Called after each step with host views of its outputs (calibration, runtime/calibration.h).
using StepObserver = std::function<void(const graph::Graph& g, const graph::Node& node,
                                        const std::vector<HostTensorView>& outputs)>;

// Steps whose outputs a run already knows (runtime/value_memo.h, the accuracy search).
// The CPU executor asks before each step: true means the step is skipped (the outputs that
// later steps read were written into `outputs`); after each step it runs it reports it.
class StepReuse {
 public:
  virtual ~StepReuse() = default;
  virtual bool restored(size_t step, const std::vector<HostTensorView>& outputs) = 0;
  virtual void ran(size_t step, const std::vector<HostTensorView>& outputs) = 0;
};

struct RunConfig {
  int threads = 1;                         // CPU threads a run may use
  bool check_numerics = false;             // Options::check_numerics
  RunProfiler* profiler = nullptr;         // set: time every step (runtime/profiler.h)
  const StepObserver* observer = nullptr;  // set: the CPU executor reports every step
  StepReuse* reuse = nullptr;              // set: the CPU executor skips known steps
};

class Executor {
 public:
  virtual ~Executor() = default;
  // `plan` was built by this executor's backend; `inputs` are in graph-input order and
  // already checked against the model (EngineImpl::match_inputs). The executor keeps
  // `plan` alive while it holds state laid out for it (arena, captured graph).
  virtual Result<std::vector<Tensor>> run(const std::shared_ptr<const ExecutionPlan>& plan,
                                          const std::vector<const Tensor*>& inputs,
                                          const RunConfig& config) = 0;
  virtual RunTimings last_timings() const = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual kernels::Backend kind() const = 0;
  virtual const kernels::KernelRegistry& registry() const = 0;
  virtual void* kernel_handle() const { return nullptr; }
  // Arena alignment: 64 bytes on the CPU (a cache line, AVX-512), 256 on CUDA (what
  // cudaMalloc guarantees and cuBLASLt/cuDNN prefer).
  virtual size_t alignment() const = 0;
  virtual std::string device_name() const = 0;
  // Called once at load with the planned engine graph (weights already cast).
  virtual Status upload_weights(const graph::Graph& engine_graph) = 0;
  virtual size_t device_weights_bytes() const { return 0; }
  // Sets plan.values[v].constant for every constant value to memory kernels can read.
  virtual Status place_constants(ExecutionPlan& plan) const = 0;
  virtual Result<std::unique_ptr<Executor>> create_executor() const = 0;
  // Whether its executor keeps graph inputs and outputs outside the arena: steps read an
  // input where the caller keeps it and write an output into the tensor run() returns
  // (ExecutionPlan::input_direct / output_direct), so they take no arena space.
  virtual bool keeps_io_outside_arena() const { return false; }
  // Why this device runs `low` (kF16, kBF16) no faster than fp32, or "" when it is faster:
  // the engine then keeps fp32 unless Options::emulate_low_precision asks otherwise.
  virtual std::string low_precision_slower(DType /*low*/) const { return ""; }
  // Where low_precision_slower(low) is not "" (or a plan it would time is not timed and
  // untimed_low_precision_slower(low) is not ""): the most rows of A for which a product
  // with a constant 2-D B (a decoder's token) still runs faster in `low`, reading B in 16
  // bits (runtime/weight_streaming.h); 0 where none does.
  virtual int64_t low_precision_weight_rows(DType /*low*/) const { return 0; }
  // Whether Options::precision_timing's kAuto times a `low` plan here: the device may run
  // some nodes faster in `low` and others slower, and no rule tells which.
  virtual bool times_low_precision(DType /*low*/) const { return false; }
  // Where a plan it would time could not be timed: why fp32 is the better guess, or "".
  virtual std::string untimed_low_precision_slower(DType /*low*/) const { return ""; }
  // Whether convolutions keep `dtype` activations in their own layout between them
  // (runtime/layout_plan.h): the CPU's f32, and bf16 where oneDNN computes it natively.
  virtual bool conv_layout_dtype(DType /*dtype*/) const { return false; }
  // Whether the conv layout of these logical dims is 8-channel blocks (else channels-last).
  virtual bool conv_layout_blocked8(const std::vector<int64_t>& /*dims*/) const { return false; }
};

}  // namespace amp::runtime
