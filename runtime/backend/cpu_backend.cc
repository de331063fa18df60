#include "runtime/backend/cpu_backend.h"

#include <chrono>
#include <cstring>

#include "kernels/cpu/cpu_kernels.h"
#include "runtime/arena.h"
#include "runtime/backend/device_info.h"
#include "runtime/backend/numerics_check.h"
#include "runtime/node_label.h"

namespace amp::runtime {
namespace {

// The arena's alignment, and what an input's memory needs to be read in place.
constexpr size_t kArenaAlignment = 64;

using Clock = std::chrono::steady_clock;
double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

class CpuExecutor : public Executor {
 public:
  Result<std::vector<Tensor>> run(const std::shared_ptr<const ExecutionPlan>& plan,
                                  const std::vector<const Tensor*>& inputs,
                                  const RunConfig& config) override;
  RunTimings last_timings() const override { return timings_; }

 private:
  uint8_t* address(const ExecutionPlan& plan, graph::ValueId v) const {
    if (uint8_t* direct = direct_[static_cast<size_t>(v)]) return direct;
    const ValueRef& ref = plan.values[static_cast<size_t>(v)];
    if (ref.constant) return const_cast<uint8_t*>(ref.constant);
    // Not in the arena: nothing to read, or a graph input or output whose direct_ is set.
    if (ref.offset < 0) return nullptr;
    return arena_.data() + ref.offset;
  }
  // Host views of a step's tensors (in the arena or constants), for the numerics check.
  std::vector<HostTensorView> views(const ExecutionPlan& plan,
                                    const std::vector<graph::ValueId>& ids) const;

  std::shared_ptr<const ExecutionPlan> bound_;
  Arena arena_;
  // Copies of the inputs kept outside the arena (ExecutionPlan::input_direct) whose memory
  // is not aligned, at staging_at_[input]; reserved on the first such input.
  Arena staging_;
  std::vector<size_t> staging_at_;
  std::vector<const void*> in_ptrs_;
  std::vector<void*> out_ptrs_;
  // Per value of the bound plan: where a graph input or output is read or written instead of
  // the arena (ExecutionPlan::input_direct / output_direct), else null.
  std::vector<uint8_t*> direct_;
  RunTimings timings_;
};

std::vector<HostTensorView> CpuExecutor::views(const ExecutionPlan& plan,
                                               const std::vector<graph::ValueId>& ids) const {
  std::vector<HostTensorView> out(ids.size());
  for (size_t k = 0; k < ids.size(); ++k) {
    if (ids[k] == graph::kNoValue) continue;
    const graph::Value& val = plan.graph.value(ids[k]);
    out[k].dtype = val.dtype;
    out[k].data = address(plan, ids[k]);
    out[k].numel = static_cast<size_t>(val.shape->numel().value_or(0));
  }
  return out;
}

Result<std::vector<Tensor>> CpuExecutor::run(const std::shared_ptr<const ExecutionPlan>& plan_ptr,
                                             const std::vector<const Tensor*>& inputs,
                                             const RunConfig& config) {
  const ExecutionPlan& plan = *plan_ptr;
  if (bound_ != plan_ptr) {
    AMP_RETURN_IF_ERROR(arena_.reserve(plan.memory.arena_bytes));
    in_ptrs_.assign(plan.max_step_inputs, nullptr);
    out_ptrs_.assign(plan.max_step_outputs, nullptr);
    staging_at_.assign(inputs.size() + 1, 0);
    for (size_t i = 0; i < inputs.size(); ++i)
      staging_at_[i + 1] =
          staging_at_[i] +
          (plan.input_direct[i] ? graph::align_up(inputs[i]->byte_size(), kArenaAlignment) : 0);
    bound_ = plan_ptr;
  }
  direct_.assign(plan.values.size(), nullptr);
  const graph::Graph& g = plan.graph;
  const auto t0 = Clock::now();

  // The steps that write graph outputs write the tensors this run returns (no copy out; the
  // plan leaves them out of the arena); the other outputs are copied after the steps.
  std::vector<Tensor> outs(g.outputs.size());
  for (size_t k = 0; k < g.outputs.size(); ++k) {
    if (!plan.output_direct[k]) continue;
    const graph::Value& val = g.value(g.outputs[k]);
    outs[k] = Tensor::empty(val.dtype, val.shape->static_dims());
    direct_[static_cast<size_t>(g.outputs[k])] = static_cast<uint8_t*>(outs[k].raw_data());
  }
  const auto allocated = Clock::now();

  // Inputs that decide shapes were turned into plan constants; the others are read where
  // the caller keeps them when the plan allows and their memory is aligned like the arena's
  // (kernels may load whole 64-byte lines), else copied: into the staging buffer for an input
  // kept outside the arena, into the arena for one a view or Split part shares.
  for (size_t i = 0; i < inputs.size(); ++i) {
    const auto v = static_cast<size_t>(g.inputs[i]);
    const ValueRef& ref = plan.values[v];
    const size_t bytes = inputs[i]->byte_size();
    if (ref.constant || bytes == 0) continue;
    const void* data = inputs[i]->raw_data();
    if (plan.input_direct[i]) {
      if (reinterpret_cast<uintptr_t>(data) % kArenaAlignment == 0) {
        direct_[v] = static_cast<uint8_t*>(const_cast<void*>(data));
        continue;
      }
      AMP_RETURN_IF_ERROR(staging_.reserve(staging_at_.back()));
      direct_[v] = staging_.data() + staging_at_[i];
      std::memcpy(direct_[v], data, bytes);
    } else if (ref.offset >= 0) {
      std::memcpy(arena_.data() + ref.offset, data, bytes);
    }
  }
  const auto t1 = Clock::now();

  kernels::KernelArgs args;
  args.num_threads = config.threads;
  // What the plan's data-dependent steps report (plan.dynamic, in step order).
  std::vector<int64_t> dynamic_sizes(plan.dynamic.size(), -1);
  size_t next_dynamic = 0;
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    args.dynamic_size = nullptr;
    if (next_dynamic < plan.dynamic.size() &&
        plan.dynamic[next_dynamic].step == static_cast<int64_t>(s))
      args.dynamic_size = &dynamic_sizes[next_dynamic++];
    const PlanStep& step = plan.steps[s];
    if (config.reuse && config.reuse->restored(s, views(plan, step.outputs))) continue;
    for (size_t k = 0; k < step.inputs.size(); ++k)
      in_ptrs_[k] = step.inputs[k] == graph::kNoValue ? nullptr : address(plan, step.inputs[k]);
    for (size_t k = 0; k < step.outputs.size(); ++k)
      out_ptrs_[k] = step.outputs[k] == graph::kNoValue ? nullptr : address(plan, step.outputs[k]);
    args.inputs = in_ptrs_.data();
    args.outputs = out_ptrs_.data();
    args.workspace = step.workspace_offset == graph::kNotInArena
                         ? nullptr
                         : arena_.data() + step.workspace_offset;
    const bool check = config.check_numerics && step.low_precision;
    const bool inputs_finite = check && all_finite(views(plan, step.inputs));
    const double started = config.profiler ? config.profiler->now_ms() : 0;
    Status st = step.kernel->run(args);
    if (config.profiler) config.profiler->add_step(plan, s, started, config.profiler->now_ms());
    const graph::Node& n = g.nodes[s];
    if (!st.is_ok()) return st.with_context(node_label(n));
    if (check)
      AMP_RETURN_IF_ERROR(check_step_numerics(g, n, inputs_finite, views(plan, step.outputs)));
    if (config.observer) (*config.observer)(g, n, views(plan, step.outputs));
    if (config.reuse) config.reuse->ran(s, views(plan, step.outputs));
  }
  const auto t2 = Clock::now();

  for (size_t k = 0; k < g.outputs.size(); ++k) {
    const graph::ValueId v = g.outputs[k];
    if (plan.output_direct[k]) continue;
    // A plan cut before the model's end returns every value the rest reads, most of them
    // its own inputs passed through: those go on as the same tensors, not copies (a detector
    // cut at each of its 90 classes' TopK copied every live value at every cut). They live
    // until the chain of plans ends, within this run (runtime/control_flow.h).
    if (plan.continuation && plan.output_input[k] >= 0) {
      outs[k] = *inputs[static_cast<size_t>(plan.output_input[k])];
      continue;
    }
    AMP_ASSIGN_OR_RETURN(std::vector<int64_t> dims, output_dims(plan, v, dynamic_sizes));
    Tensor t = Tensor::empty(g.value(v).dtype, std::move(dims));
    const uint8_t* src = address(plan, v);
    if (src && t.byte_size()) std::memcpy(t.raw_data(), src, t.byte_size());
    outs[k] = std::move(t);
  }
  const auto t3 = Clock::now();
  timings_ = RunTimings{ms_between(t0, t3), ms_between(allocated, t1), ms_between(t1, t2),
                        ms_between(t0, allocated) + ms_between(t2, t3), false};
  return outs;
}

class CpuBackend : public Backend {
 public:
  kernels::Backend kind() const override { return kernels::Backend::kCpu; }
  const kernels::KernelRegistry& registry() const override { return cpu_kernel_registry(); }
  size_t alignment() const override { return kArenaAlignment; }
  std::string device_name() const override {
    return cpu_device_name() + ", oneDNN ISA " + kernels::cpu_dnnl_isa_name();
  }
  Status upload_weights(const graph::Graph&) override { return Status::ok(); }
  Status place_constants(ExecutionPlan& plan) const override {
    for (ValueRef& ref : plan.values) ref.constant = ref.host_constant;
    return Status::ok();
  }
  Result<std::unique_ptr<Executor>> create_executor() const override {
    return std::unique_ptr<Executor>(std::make_unique<CpuExecutor>());
  }
  bool keeps_io_outside_arena() const override { return true; }
  std::string low_precision_slower(DType low) const override {
    return kernels::cpu_low_precision_slower(low);
  }
  int64_t low_precision_weight_rows(DType low) const override {
    return kernels::cpu_low_precision_weight_rows(low);
  }
  bool times_low_precision(DType low) const override {
    return low == DType::kBF16 && kernels::cpu_computes_bf16();
  }
  std::string untimed_low_precision_slower(DType low) const override {
    return kernels::cpu_untimed_low_precision_slower(low);
  }
  bool conv_layout_blocked8(const std::vector<int64_t>& dims) const override {
    return kernels::cpu_conv_layout_blocked8(dims);
  }
  bool conv_layout_dtype(DType dtype) const override {
    return dtype == DType::kF32 || (dtype == DType::kBF16 && kernels::cpu_computes_bf16());
  }
};

}  // namespace

const kernels::KernelRegistry& cpu_kernel_registry() {
  static const kernels::KernelRegistry reg = [] {
    kernels::KernelRegistry r;
    kernels::register_cpu_kernels(r);
    return r;
  }();
  return reg;
}

std::unique_ptr<Backend> create_cpu_backend() {
  return std::make_unique<CpuBackend>();
}

}  // namespace amp::runtime
