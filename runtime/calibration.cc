#include "runtime/calibration.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>

#include "graph/ops/shape_inputs.h"
#include "graph/passes/amp/casting_checker.h"
#include "kernels/common/element_access.h"
#include "runtime/backend/backend_factory.h"
#include "runtime/control_flow.h"
#include "runtime/execution_plan.h"
#include "runtime/tensor_pb.h"

namespace amp::runtime {
namespace {

namespace fs = std::filesystem;

const double kFp16Max = graph::low_type_max(DType::kF16);
const double kBf16Max = graph::low_type_max(DType::kBF16);
constexpr double kFp16Flush = 5.9604644775390625e-08;  // 2^-24: below it fp16 holds 0

void fold(ValueRange& r, const HostTensorView& t) {
  if (!t.data || !is_float(t.dtype)) return;
  r.elements += static_cast<int64_t>(t.numel);
  for (size_t i = 0; i < t.numel; ++i) {
    const double x = kernels::load_as_double(t.data, t.dtype, static_cast<int64_t>(i));
    if (!std::isfinite(x)) {
      ++r.non_finite;
      continue;
    }
    const double a = std::fabs(x);
    if (a == 0.0) continue;
    ++r.nonzero;
    r.max_abs = std::max(r.max_abs, a);
    if (a < kFp16Flush) ++r.underflow;
  }
}

HostTensorView view_of(const Tensor& t) {
  return HostTensorView{t.dtype(), t.raw_data(), static_cast<size_t>(t.numel())};
}

std::string short_number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3g", x);
  return buf;
}

}  // namespace

Result<std::unique_ptr<CpuGraphRunner>> CpuGraphRunner::create(int threads) {
  Options cpu;
  cpu.backend = BackendKind::kCpu;
  AMP_ASSIGN_OR_RETURN(BackendChoice choice, create_backend(cpu));
  std::unique_ptr<CpuGraphRunner> r(new CpuGraphRunner());
  AMP_ASSIGN_OR_RETURN(r->executor_, choice.backend->create_executor());
  r->backend_ = std::move(choice.backend);
  r->threads_ = std::max(1, threads);
  return r;
}

namespace {

// Whether samples can be stacked along dim 0 into one run: every graph input has the same
// symbolic dim 0 (the batch), and every output a symbolic dim 0 (its name may be lost to a
// Reshape(-1) on the way; run_samples checks the stacked run's outputs have the stacked
// batch there).
bool batch_stackable(const graph::Graph& g) {
  std::string symbol;
  for (graph::ValueId v : g.inputs) {
    const graph::Value& val = g.value(v);
    if (!val.shape || val.shape->rank() == 0) return false;
    const graph::Dim& d = val.shape->dims[0];
    if (d.is_static() || d.symbol.empty()) return false;
    if (symbol.empty()) symbol = d.symbol;
    if (d.symbol != symbol) return false;
  }
  for (graph::ValueId v : g.outputs) {
    const graph::Value& val = g.value(v);
    if (!val.shape || val.shape->rank() == 0 || val.shape->dims[0].is_static()) return false;
  }
  return !symbol.empty();
}

// Tensors stacked along dim 0 (all of `parts` have the same dtype and trailing dims).
Tensor stack(const std::vector<const Tensor*>& parts) {
  std::vector<int64_t> dims = parts.front()->shape();
  dims[0] = 0;
  for (const Tensor* t : parts) dims[0] += t->shape()[0];
  Tensor out = Tensor::empty(parts.front()->dtype(), dims);
  uint8_t* dst = static_cast<uint8_t*>(out.raw_data());
  for (const Tensor* t : parts) {
    std::memcpy(dst, t->raw_data(), t->byte_size());
    dst += t->byte_size();
  }
  return out;
}

// Rows [begin, begin + count) of `t` along dim 0.
Tensor rows(const Tensor& t, int64_t begin, int64_t count) {
  std::vector<int64_t> dims = t.shape();
  const size_t row_bytes = dims[0] > 0 ? t.byte_size() / static_cast<size_t>(dims[0]) : 0;
  dims[0] = count;
  return Tensor::from_bytes(t.dtype(), dims,
                            static_cast<const uint8_t*>(t.raw_data()) + row_bytes * begin,
                            row_bytes * static_cast<size_t>(count));
}

}  // namespace

Result<bool> CpuGraphRunner::run_stacked(const graph::Graph& g,
                                         const std::vector<CalibrationSample>& samples,
                                         const std::vector<size_t>& members,
                                         const PlanBuildOptions& popt, RunConfig config,
                                         ValueMemo* memo,
                                         std::vector<std::vector<Tensor>>& outputs) {
  std::vector<Tensor> stacked;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    std::vector<const Tensor*> parts;
    for (size_t s : members) parts.push_back(samples[s][i]);
    stacked.push_back(stack(parts));
  }
  CalibrationSample inputs;
  for (const Tensor& t : stacked) inputs.push_back(&t);
  std::vector<std::optional<graph::TensorData>> no_values;
  const std::string which = "calibration samples stacked along the batch dim";
  AMP_ASSIGN_OR_RETURN(PlanKey key, plan_key_for(inputs, {}, no_values));
  auto plan = build_execution_plan(g, key, no_values, popt);
  if (!plan.is_ok()) return plan.status().with_context(which);
  // The same members stacked are the same data: the memo's tag for this run.
  uint64_t tag = 0x5354;
  for (size_t s : members) tag = tag * 1000003 + s;
  std::unique_ptr<StepReuse> reuse = memo ? memo->bind(*plan, tag) : nullptr;
  config.reuse = reuse.get();
  auto ran = run_plan_chain(*plan, inputs, *executor_, config);
  if (!ran.is_ok()) return ran.status().with_context(which);
  last_plan_ = std::move(*plan);
  // An output whose dim 0 is not the batch after all: run the samples one by one.
  const int64_t total = stacked.front().shape()[0];
  for (const Tensor& out : *ran)
    if (out.shape().empty() || out.shape()[0] != total) return false;
  int64_t begin = 0;
  for (size_t s : members) {
    const int64_t count = samples[s].front()->shape()[0];
    for (const Tensor& out : *ran) outputs[s].push_back(rows(out, begin, count));
    begin += count;
  }
  return true;
}

Result<std::vector<std::vector<Tensor>>> CpuGraphRunner::run_samples(
    const graph::Graph& g, const std::vector<CalibrationSample>& samples,
    const StepObserver* observer, ValueMemo* memo, bool record) {
  PlanBuildOptions popt;
  popt.backend = backend_.get();
  popt.threads = threads_;
  popt.plain_layouts = true;  // an observer reads every value's elements in order
  RunConfig config;
  config.threads = threads_;
  config.observer = observer;
  const std::vector<size_t> shape_inputs = graph::shape_determining_inputs(g);
  // Samples of one shape run as one batch when the model's inputs and outputs all share a
  // symbolic batch dim: one run at batch 8 uses the cores better than four at batch 2, and
  // the accuracy search runs every sample for each plan it tries. Each sample still gets
  // its own outputs, and the value ranges are the same maxima over the same elements.
  const bool stackable = shape_inputs.empty() && batch_stackable(g);
  // Building a plan (every kernel prepared) costs more than running it: one per shape.
  std::map<PlanKey, std::vector<size_t>> groups;  // samples by shape, in order
  std::vector<std::vector<std::optional<graph::TensorData>>> shape_values(samples.size());
  for (size_t s = 0; s < samples.size(); ++s) {
    auto key = plan_key_for(samples[s], shape_inputs, shape_values[s]);
    if (!key.is_ok()) return key.status().with_context("calibration sample " + std::to_string(s));
    groups[*key].push_back(s);
  }
  std::vector<std::vector<Tensor>> outputs(samples.size());
  if (memo) memo->begin(record);
  struct EndMemo {
    ValueMemo* memo;
    ~EndMemo() {
      if (memo) memo->end();
    }
  } end_memo{memo};
  for (const auto& [key, members] : groups) {
    if (stackable && members.size() > 1) {
      AMP_ASSIGN_OR_RETURN(bool stacked,
                           run_stacked(g, samples, members, popt, config, memo, outputs));
      if (stacked) continue;
    }
    // One plan for the shape, run per sample.
    const std::string which = "calibration sample " + std::to_string(members.front());
    auto plan = build_execution_plan(g, key, shape_values[members.front()], popt);
    if (!plan.is_ok()) return plan.status().with_context(which);
    for (size_t s : members) {
      std::unique_ptr<StepReuse> reuse = memo ? memo->bind(*plan, s) : nullptr;
      RunConfig run_config = config;
      run_config.reuse = reuse.get();
      auto ran = run_plan_chain(*plan, samples[s], *executor_, run_config);
      if (!ran.is_ok()) return ran.status().with_context("calibration sample " + std::to_string(s));
      outputs[s] = std::move(*ran);
    }
    last_plan_ = std::move(*plan);
  }
  return outputs;
}

Result<ValueRanges> observe_value_ranges(const graph::Graph& g,
                                         const std::vector<CalibrationSample>& samples, int threads,
                                         std::vector<std::vector<Tensor>>* outputs) {
  if (samples.empty()) return invalid_argument("calibration: no samples were given");
  AMP_ASSIGN_OR_RETURN(std::unique_ptr<CpuGraphRunner> runner, CpuGraphRunner::create(threads));
  ValueRanges ranges;
  const StepObserver observe = [&ranges](const graph::Graph& pg, const graph::Node& n,
                                         const std::vector<HostTensorView>& outputs) {
    for (size_t k = 0; k < outputs.size() && k < n.outputs.size(); ++k)
      if (n.outputs[k] != graph::kNoValue) fold(ranges[pg.value(n.outputs[k]).name], outputs[k]);
  };
  for (size_t s = 0; s < samples.size(); ++s) {
    const std::string which = "calibration sample " + std::to_string(s);
    if (samples[s].size() != g.inputs.size())
      return invalid_argument(which + ": " + std::to_string(samples[s].size()) +
                              " inputs, the model has " + std::to_string(g.inputs.size()));
    for (size_t i = 0; i < samples[s].size(); ++i) {
      const HostTensorView v = view_of(*samples[s][i]);
      const int64_t bad = first_non_finite(v);
      const std::string& name = g.value(g.inputs[i]).name;
      if (bad >= 0)
        return invalid_argument(which + ": input '" + name + "' holds Inf/NaN at element " +
                                std::to_string(bad) + " (calibration needs real, finite data)");
      fold(ranges[name], v);
    }
  }
  AMP_ASSIGN_OR_RETURN(std::vector<std::vector<Tensor>> ran,
                       runner->run_samples(g, samples, &observe));
  if (outputs) *outputs = std::move(ran);
  return ranges;
}

std::map<std::string, graph::AmpPolicy::NodeHint> range_hints(const graph::Graph& g,
                                                              const ValueRanges& ranges,
                                                              RangeTarget target) {
  std::map<std::string, graph::AmpPolicy::NodeHint> hints;
  for (const graph::Node& n : g.nodes) {
    double worst = 0;
    std::string worst_value, flushed_value;
    auto look = [&](graph::ValueId id) {
      if (id == graph::kNoValue) return;
      const graph::Value& v = g.value(id);
      if (v.is_constant() || !is_float(v.dtype)) return;
      const auto it = ranges.find(v.name);
      if (it == ranges.end()) return;
      const ValueRange& r = it->second;
      if (r.max_abs > worst) {
        worst = r.max_abs;
        worst_value = v.name;
      }
      if (r.nonzero > 0 && static_cast<double>(r.underflow) > kUnderflowShare * r.nonzero)
        flushed_value = v.name;
    };
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      // Attention's additive mask holds "minus infinity" as -3.4e38 (HF's finfo.min): in
      // fp16 it becomes -inf, which masks the same keys. The node that computes the mask
      // is still judged by its own output.
      if (n.op == graph::OpType::kAttention && k == 3) continue;
      look(n.inputs[k]);
    }
    for (graph::ValueId id : n.outputs) look(id);

    const std::string observed =
        "observed |x| " + short_number(worst) + " at '" + worst_value + "'";
    if (target == RangeTarget::kBf16) {
      if (worst > kBf16Max / kHeadroom)
        hints[n.name] = {DType::kF32, "calibration: " + observed + " > bf16 max / " +
                                          short_number(kHeadroom) + " headroom: fp32"};
      continue;
    }
    const bool overflow = worst > kFp16Max / kHeadroom;
    if (!overflow && flushed_value.empty()) continue;
    const std::string why = overflow
                                ? observed + " > 65504 / " + short_number(kHeadroom) + " headroom"
                                : "over " + short_number(kUnderflowShare * 100) + "% of '" +
                                      flushed_value + "' below 2^-24 (zero in fp16)";
    if (target == RangeTarget::kAuto && worst <= kBf16Max / kHeadroom)
      hints[n.name] = {DType::kBF16, "calibration: " + why + ": bf16"};
    else
      hints[n.name] = {DType::kF32, "calibration: " + why + ": fp32"};
  }
  return hints;
}

Result<std::vector<std::vector<Tensor>>> load_calibration_dirs(const std::vector<std::string>& dirs,
                                                               size_t input_count) {
  std::vector<std::vector<Tensor>> samples;
  auto load_sample = [&](const fs::path& dir) -> Status {
    std::vector<Tensor> sample;
    for (size_t i = 0; i < input_count; ++i) {
      const fs::path file = dir / ("input_" + std::to_string(i) + ".pb");
      if (!fs::exists(file))
        return not_found("calibration: '" + file.string() + "' does not exist (the model has " +
                         std::to_string(input_count) + " inputs)");
      AMP_ASSIGN_OR_RETURN(Tensor t, read_tensor_pb(file.string()));
      sample.push_back(std::move(t));
    }
    samples.push_back(std::move(sample));
    return Status::ok();
  };
  for (const std::string& d : dirs) {
    const fs::path dir(d);
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return not_found("calibration: '" + d + "' is not a directory");
    if (fs::exists(dir / "input_0.pb")) {
      AMP_RETURN_IF_ERROR(load_sample(dir));
      continue;
    }
    std::vector<fs::path> sets;
    for (const fs::directory_entry& e : fs::directory_iterator(dir, ec))
      if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0)
        sets.push_back(e.path());
    if (sets.empty())
      return not_found("calibration: '" + d +
                       "' holds neither input_0.pb nor test_data_set_* directories");
    std::sort(sets.begin(), sets.end());
    for (const fs::path& s : sets) AMP_RETURN_IF_ERROR(load_sample(s));
  }
  return samples;
}

}  // namespace amp::runtime
