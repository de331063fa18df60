// EngineImpl: what Engine::load builds, immutable afterwards (the plan cache excepted,
// which is guarded by a mutex).
//
// Load pipeline (timings reported per phase, see amp::LoadTimings):
//   verify  : read + verify the .amp file, or import the .onnx and run the conversion passes
//   passes  : runtime fusions (BatchNorm into Conv, activation epilogues)
//   amp     : the AMP precision planner (colors, casts, weights cast once)
//   memory  : bind load-time shapes, prepare kernels, plan memory (when shapes are static)
//   upload  : weights to the device (CUDA only)
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "amp/engine.h"
#include "graph/ir/graph.h"
#include "graph/passes/amp/amp_planner.h"
#include "graph/serialize/mapped_file.h"
#include "kernels/kernel_registry.h"
#include "runtime/backend/backend.h"
#include "runtime/calibration.h"
#include "runtime/common/status.h"
#include "runtime/execution_plan.h"

namespace amp {

class EngineImpl {
 public:
  // Loads, and classifies a failure that Options::input_shapes caused (below).
  static Result<std::shared_ptr<EngineImpl>> load(const std::string& path, const Options& opt);

  // The plan for these inputs (their dims, and the values of shape-deciding inputs):
  // cached by PlanKey, built on first use. `inputs` are in graph-input order.
  Result<std::shared_ptr<const runtime::ExecutionPlan>> plan_for(
      const std::vector<const Tensor*>& inputs) const;
  // Positions (in graph-input order) of the inputs whose values decide shapes.
  std::vector<size_t> shape_inputs;

  // Checks the caller's inputs against the model and returns them in graph-input order.
  Result<std::vector<const Tensor*>> match_inputs(const std::vector<NamedTensor>& inputs) const;

  Options options;
  BackendKind backend_kind = BackendKind::kCpu;
  std::string backend_reason;  // why this backend (e.g. the driver's "no GPU" reason)
  int threads = 1;
  graph::Graph graph;  // planned graph (fusions, AMP), input dims possibly symbolic
  std::vector<TensorInfo> input_infos;
  std::vector<TensorInfo> output_infos;
  LoadTimings timings;
  size_t weights_bytes_fp32 = 0;
  std::string device;
  Precision precision = Precision::kFp32;  // what runs (Engine::precision)
  std::string precision_note;              // why that is not options.precision
  std::string policy_json;                 // the effective AMP policy (Engine::policy_json)
  std::string precision_json = "{}";
  std::optional<graph::AmpReport> amp_report;  // set when precision is fp16/bf16
  std::string precision_dot;

  // Contexts that Engine::run borrows.
  std::unique_ptr<ContextImpl> acquire_context() const;
  void release_context(std::unique_ptr<ContextImpl> ctx) const;

  MemoryReport memory_report() const;
  const runtime::Backend& backend() const { return *backend_; }

 private:
  // Verify, passes, AMP planning, upload and (all dims static) the memory plan, as asked.
  static Result<std::shared_ptr<EngineImpl>> load_as_given(const std::string& path,
                                                           const Options& opt);
  Status plan_precision();
  // Options::calibration and calibration_dirs as checked samples (`named` holds the tensors
  // the samples point to).
  Status read_calibration(std::vector<std::vector<NamedTensor>>& named,
                          std::vector<runtime::CalibrationSample>& samples) const;
  // The samples' value ranges -> policy.node_hints (runtime/calibration.h).
  Status calibrate(const std::vector<runtime::CalibrationSample>& samples,
                   graph::AmpPolicy& policy);
  // fp16 / bf16 were a permission the engine declines: it runs fp32, and the note says
  // "<precision> requested, fp32 used: <why>".
  void run_fp32_instead(const std::string& why);
  // On a device that runs the low type `slower` (its reason): every node but `streaming`
  // (runtime/weight_streaming.h) pinned fp32 in `policy`, and the note says so.
  void keep_fp32_but(const std::vector<std::string>& streaming, const std::string& slower,
                     graph::AmpPolicy& policy);
  // Where a low plan the backend would time is not timed (timing off, dims left free) and
  // its guess is fp32 (`why`): the products that stream constant weights still run low
  // (keep_fp32_but), as on a device that runs the low type slower, since the backend reads
  // their weights in 16 bits; with none the engine runs fp32. False in that case.
  bool keep_streaming_low_or_fp32(const std::string& why, graph::AmpPolicy& policy);
  // Options::precision_timing (runtime/precision_timing.h): adds the nodes faster in fp32
  // to policy.node_hints; true when the whole plan is slower, and the engine then fp32.
  Result<bool> time_precision(graph::AmpPolicy& policy, const graph::KernelAvailability& has_kernel,
                              const std::vector<runtime::CalibrationSample>& samples);
  Result<std::shared_ptr<const runtime::ExecutionPlan>> plan_for_key(
      const runtime::PlanKey& key,
      const std::vector<std::optional<graph::TensorData>>& shape_values) const;
  // MemoryReport::packed_weights_bytes over the cached plans and `extra` (may be null).
  // Call with mu_ held.
  size_t packed_weights_bytes(const runtime::ExecutionPlan* extra) const;
  // runtime/weight_pages.h over the cached plans, for a model read from a mapped .amp file;
  // call with mu_ held.
  void drop_unread_weight_pages() const;

  // Declared first among the members that use it, so it is destroyed last: pooled
  // contexts and cached plans hold device memory and handles of this backend.
  std::unique_ptr<runtime::Backend> backend_;
  mutable std::mutex mu_;
  mutable std::map<runtime::PlanKey, std::shared_ptr<const runtime::ExecutionPlan>> plans_;
  mutable std::shared_ptr<const runtime::ExecutionPlan> last_plan_;
  mutable std::vector<std::unique_ptr<ContextImpl>> pool_;
  // The .amp file the graph's weights are views into (null for ONNX, imported to the heap),
  // and the bytes of it drop_unread_weight_pages() last handed back to the OS.
  std::shared_ptr<const graph::MappedFile> mapped_file_;
  mutable size_t released_file_bytes_ = 0;
};

}  // namespace amp
