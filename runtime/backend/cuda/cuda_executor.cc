#include "runtime/backend/cuda/cuda_executor.h"

#include <cuda_runtime.h>

#include <cstring>
#include <string>
#include <vector>

#include "kernels/cuda/cuda_check.h"
#include "runtime/backend/cuda/device_memory.h"
#include "runtime/backend/cuda/stream_pool.h"
#include "runtime/backend/numerics_check.h"
#include "runtime/node_label.h"

namespace amp::runtime {
namespace {

constexpr size_t kStagingAlignment = 256;

size_t align_up(size_t n) {
  return (n + kStagingAlignment - 1) / kStagingAlignment * kStagingAlignment;
}

// One tensor copied between the pinned staging buffer and the arena.
struct StagedCopy {
  size_t staging_offset = 0;
  int64_t arena_offset = graph::kNotInArena;  // kNotInArena: nothing to copy on the device
  size_t bytes = 0;
};

class CudaExecutor : public Executor {
 public:
  explicit CudaExecutor(const CudaExecutorOptions& opt) : opt_(opt) {}
  ~CudaExecutor() override;
  Status init();

  Result<std::vector<Tensor>> run(const std::shared_ptr<const ExecutionPlan>& plan,
                                  const std::vector<const Tensor*>& inputs,
                                  const RunConfig& config) override;
  RunTimings last_timings() const override { return timings_; }

 private:
  Status bind(const std::shared_ptr<const ExecutionPlan>& plan);
  // Enqueues the whole run on the stream: input copies, every step, output copies, with
  // the four timing events between the phases. `capturing`: events become graph nodes.
  // `profiling`: an event before and after every step (step_events_ 2s and 2s + 1), so that
  // a step's time leaves out host work between steps (the numerics check's copies).
  Status enqueue(const ExecutionPlan& plan, bool capturing, bool check_numerics,
                 bool profiling = false);
  // After the stream is synchronized: every step's time into the profiler, placed on its
  // clock from `host_start` (its time when the run began enqueuing).
  Status report_steps(const ExecutionPlan& plan, RunProfiler& profiler, double host_start);
  Status record_event(int i, bool capturing);
  Status capture(const ExecutionPlan& plan);
  // Copies the float tensors `ids` of a plan to `host` (synchronizing the stream) and
  // points `views` at them: the numerics check's view of a step.
  Status fetch_to_host(const ExecutionPlan& plan, const std::vector<graph::ValueId>& ids,
                       std::vector<std::vector<uint8_t>>& host, std::vector<HostTensorView>& views);
  void drop_graph();
  const uint8_t* address(const ExecutionPlan& plan, graph::ValueId v) const {
    const ValueRef& ref = plan.values[static_cast<size_t>(v)];
    if (ref.constant) return ref.constant;
    if (ref.offset == graph::kNotInArena) return nullptr;
    return arena_.data() + ref.offset;
  }

  CudaExecutorOptions opt_;
  cuda::StreamSlot slot_;  // from the process-wide pool (stream_pool.h)
  cudaStream_t stream_ = nullptr;
  amp::kernels::cuda::ContextHandles* handles_ = nullptr;
  cudaEvent_t events_[4] = {nullptr, nullptr, nullptr, nullptr};
  std::vector<cudaEvent_t> step_events_;  // profiling only, created on first use
  cuda::DeviceBuffer arena_;
  cuda::PinnedBuffer staging_;
  std::vector<StagedCopy> staged_inputs_;
  std::vector<StagedCopy> staged_outputs_;
  std::vector<const void*> in_ptrs_;
  std::vector<void*> out_ptrs_;
  // check_numerics: host copies of the step being checked.
  std::vector<std::vector<uint8_t>> numerics_host_;
  std::vector<HostTensorView> numerics_views_;

  std::shared_ptr<const ExecutionPlan> bound_;
  int eager_runs_ = 0;  // runs of the bound plan so far
  int capture_attempts_ = 0;
  std::string capture_error_;  // the last failed capture, for RunTimings::cuda_graph_note
  cudaGraphExec_t graph_exec_ = nullptr;
  bool capture_failed_ = false;
  std::vector<int64_t> dynamic_sizes_;  // what the plan's data-dependent steps reported
  RunTimings timings_;
};

Status CudaExecutor::init() {
  AMP_CUDA_RETURN_IF_ERROR(cudaSetDevice(opt_.device));
  AMP_ASSIGN_OR_RETURN(slot_, cuda::acquire_stream(opt_.device));
  stream_ = slot_.stream;
  handles_ = slot_.handles;
  for (cudaEvent_t& e : events_) AMP_CUDA_RETURN_IF_ERROR(cudaEventCreate(&e));
  return Status::ok();
}

CudaExecutor::~CudaExecutor() {
  cudaSetDevice(opt_.device);
  if (stream_) cudaStreamSynchronize(stream_);  // nothing in flight may outlive the arena
  drop_graph();
  for (cudaEvent_t e : events_)
    if (e) cudaEventDestroy(e);
  for (cudaEvent_t e : step_events_) cudaEventDestroy(e);
  arena_.reset();
  staging_.reset();
  // Give the stream back only when it is known idle; a failed sync means the context is
  // broken (a sticky CUDA error), so its handles are not worth keeping.
  if (stream_ && cudaStreamSynchronize(stream_) == cudaSuccess) {
    cuda::release_stream(slot_);
  } else if (stream_) {
    amp::kernels::cuda::destroy_context_handles(handles_);
    cudaStreamDestroy(stream_);
  }
}

void CudaExecutor::drop_graph() {
  if (graph_exec_) cudaGraphExecDestroy(graph_exec_);
  graph_exec_ = nullptr;
}

Status CudaExecutor::bind(const std::shared_ptr<const ExecutionPlan>& plan_ptr) {
  if (bound_ == plan_ptr) return Status::ok();
  const ExecutionPlan& plan = *plan_ptr;
  drop_graph();
  bound_.reset();
  eager_runs_ = 0;
  capture_failed_ = false;
  capture_attempts_ = 0;
  capture_error_.clear();
  if (arena_.size() < plan.memory.arena_bytes || !arena_.data())
    AMP_RETURN_IF_ERROR(
        arena_.allocate(opt_.device, plan.memory.arena_bytes, "activation arena of a context"));

  const graph::Graph& g = plan.graph;
  size_t staging = 0;
  auto stage = [&](graph::ValueId v, bool is_input) {
    StagedCopy c;
    const graph::Value& val = g.value(v);
    const ValueRef& ref = plan.values[static_cast<size_t>(v)];
    c.bytes = static_cast<size_t>(val.shape->numel().value_or(0)) * dtype_size(val.dtype);
    // Inputs that decide shapes became plan constants: nothing to upload. Outputs that
    // are constants are copied from the host bytes after the run.
    if (!ref.constant && ref.offset != graph::kNotInArena) c.arena_offset = ref.offset;
    if (is_input && c.arena_offset == graph::kNotInArena) c.bytes = 0;
    c.staging_offset = staging;
    staging = align_up(staging + c.bytes);
    return c;
  };
  staged_inputs_.clear();
  staged_outputs_.clear();
  for (graph::ValueId v : g.inputs) staged_inputs_.push_back(stage(v, true));
  for (graph::ValueId v : g.outputs) staged_outputs_.push_back(stage(v, false));
  AMP_RETURN_IF_ERROR(staging_.reserve(staging, "input/output staging"));
  in_ptrs_.assign(plan.max_step_inputs, nullptr);
  out_ptrs_.assign(plan.max_step_outputs, nullptr);
  bound_ = plan_ptr;
  return Status::ok();
}

Status CudaExecutor::record_event(int i, bool capturing) {
  if (capturing) {
    AMP_CUDA_RETURN_IF_ERROR(
        cudaEventRecordWithFlags(events_[i], stream_, cudaEventRecordExternal));
  } else {
    AMP_CUDA_RETURN_IF_ERROR(cudaEventRecord(events_[i], stream_));
  }
  return Status::ok();
}

Status CudaExecutor::fetch_to_host(const ExecutionPlan& plan,
                                   const std::vector<graph::ValueId>& ids,
                                   std::vector<std::vector<uint8_t>>& host,
                                   std::vector<HostTensorView>& views) {
  AMP_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_));
  const graph::Graph& g = plan.graph;
  host.assign(ids.size(), {});
  views.assign(ids.size(), {});
  for (size_t k = 0; k < ids.size(); ++k) {
    if (ids[k] == graph::kNoValue) continue;
    const graph::Value& val = g.value(ids[k]);
    if (!is_float(val.dtype)) continue;
    HostTensorView& t = views[k];
    t.dtype = val.dtype;
    t.numel = static_cast<size_t>(val.shape->numel().value_or(0));
    const uint8_t* src = address(plan, ids[k]);
    if (!src || t.numel == 0) continue;
    host[k].resize(t.numel * dtype_size(val.dtype));
    // On the context's stream (never the legacy default stream, which the non-blocking
    // executor streams do not order against), then waited for.
    AMP_CUDA_RETURN_IF_ERROR(
        cudaMemcpyAsync(host[k].data(), src, host[k].size(), cudaMemcpyDeviceToHost, stream_));
    t.data = host[k].data();
  }
  AMP_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_));
  return Status::ok();
}

Status CudaExecutor::enqueue(const ExecutionPlan& plan, bool capturing, bool numerics,
                             bool profiling) {
  const graph::Graph& g = plan.graph;
  while (profiling && step_events_.size() < 2 * plan.steps.size()) {
    cudaEvent_t e = nullptr;
    AMP_CUDA_RETURN_IF_ERROR(cudaEventCreate(&e));
    step_events_.push_back(e);
  }
  AMP_RETURN_IF_ERROR(record_event(0, capturing));
  for (const StagedCopy& c : staged_inputs_)
    if (c.bytes && c.arena_offset != graph::kNotInArena)
      AMP_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(arena_.data() + c.arena_offset,
                                               staging_.data() + c.staging_offset, c.bytes,
                                               cudaMemcpyHostToDevice, stream_));
  AMP_RETURN_IF_ERROR(record_event(1, capturing));

  kernels::KernelArgs args;
  args.stream = stream_;
  args.context_handles = handles_;
  dynamic_sizes_.assign(plan.dynamic.size(), -1);
  size_t next_dynamic = 0;
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    args.dynamic_size = nullptr;
    if (next_dynamic < plan.dynamic.size() &&
        plan.dynamic[next_dynamic].step == static_cast<int64_t>(s))
      args.dynamic_size = &dynamic_sizes_[next_dynamic++];
    const PlanStep& step = plan.steps[s];
    for (size_t k = 0; k < step.inputs.size(); ++k)
      in_ptrs_[k] = step.inputs[k] == graph::kNoValue ? nullptr : address(plan, step.inputs[k]);
    for (size_t k = 0; k < step.outputs.size(); ++k)
      out_ptrs_[k] = step.outputs[k] == graph::kNoValue
                         ? nullptr
                         : const_cast<uint8_t*>(address(plan, step.outputs[k]));
    args.inputs = in_ptrs_.data();
    args.outputs = out_ptrs_.data();
    args.workspace = step.workspace_offset == graph::kNotInArena
                         ? nullptr
                         : arena_.data() + step.workspace_offset;
    // Inputs are judged before the step: an in-place kernel overwrites them.
    const bool check = numerics && step.low_precision;
    bool inputs_finite = false;
    if (check) {
      AMP_RETURN_IF_ERROR(fetch_to_host(plan, step.inputs, numerics_host_, numerics_views_));
      inputs_finite = all_finite(numerics_views_);
    }
    if (profiling) AMP_CUDA_RETURN_IF_ERROR(cudaEventRecord(step_events_[2 * s], stream_));
    // The label only on failure: this runs for every step of every run.
    if (Status st = step.kernel->run(args); !st.is_ok())
      return st.with_context(node_label(g.nodes[s]));
    if (profiling) AMP_CUDA_RETURN_IF_ERROR(cudaEventRecord(step_events_[2 * s + 1], stream_));
    if (check) {
      AMP_RETURN_IF_ERROR(fetch_to_host(plan, step.outputs, numerics_host_, numerics_views_));
      AMP_RETURN_IF_ERROR(check_step_numerics(g, g.nodes[s], inputs_finite, numerics_views_));
    }
  }
  AMP_RETURN_IF_ERROR(record_event(2, capturing));

  for (const StagedCopy& c : staged_outputs_)
    if (c.bytes && c.arena_offset != graph::kNotInArena)
      AMP_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(staging_.data() + c.staging_offset,
                                               arena_.data() + c.arena_offset, c.bytes,
                                               cudaMemcpyDeviceToHost, stream_));
  AMP_RETURN_IF_ERROR(record_event(3, capturing));
  return Status::ok();
}

Status CudaExecutor::report_steps(const ExecutionPlan& plan, RunProfiler& profiler,
                                  double host_start) {
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    float start = 0, end = 0;
    AMP_CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(&start, events_[0], step_events_[2 * s]));
    AMP_CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(&end, events_[0], step_events_[2 * s + 1]));
    profiler.add_step(plan, s, host_start + start, host_start + end);
  }
  return Status::ok();
}

Status CudaExecutor::capture(const ExecutionPlan& plan) {
  AMP_CUDA_RETURN_IF_ERROR(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
  const Status enqueued = enqueue(plan, /*capturing=*/true, /*check_numerics=*/false);
  cudaGraph_t graph = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(stream_, &graph);
  if (!enqueued.is_ok() || ended != cudaSuccess) {
    if (graph) cudaGraphDestroy(graph);
    cudaGetLastError();  // a failed capture leaves a non-sticky error behind; clear it
    return enqueued.is_ok()
               ? amp::kernels::cuda::cuda_status(ended, "cudaStreamEndCapture", __FILE__, __LINE__)
               : enqueued;
  }
  const cudaError_t inst = cudaGraphInstantiate(&graph_exec_, graph, 0);
  cudaGraphDestroy(graph);
  if (inst != cudaSuccess) {
    graph_exec_ = nullptr;
    cudaGetLastError();
    return amp::kernels::cuda::cuda_status(inst, "cudaGraphInstantiate", __FILE__, __LINE__);
  }
  return Status::ok();
}

Result<std::vector<Tensor>> CudaExecutor::run(const std::shared_ptr<const ExecutionPlan>& plan_ptr,
                                              const std::vector<const Tensor*>& inputs,
                                              const RunConfig& config) {
  AMP_CUDA_RETURN_IF_ERROR(cudaSetDevice(opt_.device));
  AMP_RETURN_IF_ERROR(bind(plan_ptr));
  const ExecutionPlan& plan = *plan_ptr;
  const graph::Graph& g = plan.graph;

  for (size_t i = 0; i < inputs.size() && i < staged_inputs_.size(); ++i) {
    const StagedCopy& c = staged_inputs_[i];
    if (c.bytes) std::memcpy(staging_.data() + c.staging_offset, inputs[i]->raw_data(), c.bytes);
  }

  // A data-dependent step synchronizes to read its size: no capture. Profiling times each
  // step with events between them: no capture either.
  const double host_start = config.profiler ? config.profiler->now_ms() : 0;
  const bool want_graph = opt_.cuda_graphs && !config.check_numerics && !config.profiler &&
                          !capture_failed_ && plan.dynamic.empty();
  if (want_graph && !graph_exec_ && eager_runs_ >= 1) {
    // A failed capture is not an error: the run goes eagerly. Another thread's
    // device-wide call (cudaFree, a handle's creation) can invalidate a capture, so a
    // few later runs try again before this binding stays eager for good.
    constexpr int kCaptureAttempts = 3;
    const Status captured = capture(plan);
    if (!captured.is_ok()) {
      capture_error_ = captured.to_string();
      if (++capture_attempts_ >= kCaptureAttempts) capture_failed_ = true;
    }
  }
  const bool replay = want_graph && graph_exec_;
  if (replay) {
    AMP_CUDA_RETURN_IF_ERROR(cudaGraphLaunch(graph_exec_, stream_));
  } else {
    Status st =
        enqueue(plan, /*capturing=*/false, config.check_numerics, config.profiler != nullptr);
    if (!st.is_ok()) {
      cudaStreamSynchronize(stream_);  // leave nothing running on our buffers
      return st;
    }
    ++eager_runs_;
  }
  AMP_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_));
  if (config.profiler) AMP_RETURN_IF_ERROR(report_steps(plan, *config.profiler, host_start));

  float ms[3] = {0, 0, 0};
  for (int i = 0; i < 3; ++i)
    AMP_CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(&ms[i], events_[i], events_[i + 1]));
  timings_ = RunTimings{static_cast<double>(ms[0] + ms[1] + ms[2]), ms[0], ms[1], ms[2], replay};
  if (replay)
    timings_.cuda_graph_note = "replayed the captured graph";
  else if (!opt_.cuda_graphs)
    timings_.cuda_graph_note = "eager: Options::cuda_graphs is off";
  else if (config.check_numerics)
    timings_.cuda_graph_note = "eager: check_numerics reads every step back";
  else if (config.profiler)
    timings_.cuda_graph_note = "eager: profiling times every node";
  else if (!plan.dynamic.empty())
    timings_.cuda_graph_note = "eager: a data-dependent op reads its output size back";
  else if (!capture_error_.empty())
    timings_.cuda_graph_note = "eager: capture failed (" + std::to_string(capture_attempts_) +
                               (capture_failed_ ? " tries, not retried): " : " tries so far): ") +
                               capture_error_;
  else
    timings_.cuda_graph_note = "eager: first run of these shapes (the next one captures)";

  std::vector<Tensor> outs;
  outs.reserve(g.outputs.size());
  for (size_t k = 0; k < g.outputs.size(); ++k) {
    const graph::Value& val = g.value(g.outputs[k]);
    AMP_ASSIGN_OR_RETURN(std::vector<int64_t> dims,
                         output_dims(plan, g.outputs[k], dynamic_sizes_));
    Tensor t = Tensor::empty(val.dtype, std::move(dims));
    const StagedCopy& c = staged_outputs_[k];
    const ValueRef& ref = plan.values[static_cast<size_t>(g.outputs[k])];
    if (t.byte_size()) {
      if (ref.host_constant)
        std::memcpy(t.raw_data(), ref.host_constant, t.byte_size());
      else if (c.arena_offset != graph::kNotInArena)
        std::memcpy(t.raw_data(), staging_.data() + c.staging_offset, t.byte_size());
    }
    outs.push_back(std::move(t));
  }
  return outs;
}

}  // namespace

Result<std::unique_ptr<Executor>> create_cuda_executor(const CudaExecutorOptions& options) {
  auto e = std::make_unique<CudaExecutor>(options);
  AMP_RETURN_IF_ERROR(e->init());
  return std::unique_ptr<Executor>(std::move(e));
}

}  // namespace amp::runtime
