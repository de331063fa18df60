#include "runtime/engine_impl.h"

#include <omp.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "graph/ir/verifier.h"
#include "graph/onnx/onnx_importer.h"
#include "graph/ops/shape_inference.h"
#include "graph/ops/shape_inputs.h"
#include "graph/passes/amp/amp_planner.h"
#include "graph/passes/amp/precision_report.h"
#include "graph/passes/pipelines.h"
#include "graph/serialize/amp_reader.h"
#include "runtime/accuracy_search.h"
#include "runtime/backend/backend_factory.h"
#include "runtime/calibration.h"
#include "runtime/execution_context.h"
#include "runtime/precision_timing.h"
#include "runtime/weight_pages.h"
#include "runtime/weight_streaming.h"

namespace amp {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

TensorInfo info_of(const graph::Value& v) {
  TensorInfo t;
  t.name = v.name;
  t.dtype = v.dtype;
  if (v.shape) {
    for (const graph::Dim& d : v.shape->dims) {
      t.shape.push_back(d.is_static() ? d.value : -1);
      t.symbols.push_back(d.is_static() ? "" : d.symbol);
    }
  }
  return t;
}

// "x [2,3,8,8], mask [2,8]": the bound dims of a plan, named, for error messages.
std::string bound_inputs_text(const std::vector<TensorInfo>& infos, const runtime::PlanKey& key) {
  std::string s;
  for (size_t k = 0; k < infos.size() && k < key.dims.size(); ++k) {
    if (k) s += ", ";
    s += infos[k].name + " " + graph::Shape::from_static(key.dims[k]).to_string();
  }
  return s;
}

// A plan-time error from a pass carries the pass's name ("pass 'constant-folding': ..."),
// which tells a user nothing: binding infers the graph inside folding.
std::string without_pass_prefix(const std::string& message) {
  if (message.rfind("pass '", 0) != 0) return message;
  const size_t end = message.find("': ");
  return end == std::string::npos ? message : message.substr(end + 3);
}

// Options::input_shapes on an .amp graph: fix the named inputs' dims and every use of the
// symbols they carried, then re-infer.
Status apply_input_shapes(graph::Graph& g,
                          const std::map<std::string, std::vector<int64_t>>& shapes) {
  if (shapes.empty()) return Status::ok();
  std::map<std::string, int64_t> symbols;
  for (const auto& [name, dims] : shapes) {
    auto id = g.find_value(name);
    bool is_input = false;
    for (graph::ValueId in : g.inputs) is_input = is_input || (id && in == *id);
    if (!is_input)
      return invalid_argument("input_shapes names '" + name + "', which is not a graph input");
    graph::Value& v = g.value(*id);
    if (!v.shape || v.shape->rank() != dims.size())
      return invalid_argument("input_shapes gives " + std::to_string(dims.size()) + " dims for '" +
                              name + "', which has shape " +
                              (v.shape ? v.shape->to_string() : std::string("of unknown rank")));
    for (size_t i = 0; i < dims.size(); ++i) {
      const graph::Dim& d = v.shape->dims[i];
      if (d.is_static() && d.value != dims[i])
        return invalid_argument("input_shapes sets dim " + std::to_string(i) + " of '" + name +
                                "' to " + std::to_string(dims[i]) + ", but the model fixes it to " +
                                std::to_string(d.value));
      if (!d.is_static() && !d.symbol.empty()) symbols[d.symbol] = dims[i];
    }
    v.shape = graph::Shape::from_static(dims);
  }
  for (graph::Value& v : g.values) {
    if (!v.shape) continue;
    for (graph::Dim& d : v.shape->dims)
      if (!d.is_static() && symbols.count(d.symbol)) d = graph::Dim(symbols[d.symbol]);
  }
  return graph::infer_shapes(g);
}

// Missing kernel "Op(dtype)" -> the nodes that need it, bodies of If/Loop/Scan included (which
// run on the same backend; the control-flow nodes themselves need none).
void find_missing_kernels(const graph::Graph& g, const kernels::KernelRegistry& reg,
                          kernels::Backend backend,
                          std::map<std::string, std::vector<std::string>>& missing) {
  for (const graph::Node& n : g.nodes) {
    if (graph::has_trait(n.op, graph::kControlFlow)) {
      for (const auto& [name, attr] : n.attrs.all())
        if (const auto* body = std::get_if<graph::SubgraphAttr>(&attr))
          find_missing_kernels(*body->graph, reg, backend, missing);
      continue;
    }
    const DType kd = kernels::kernel_dtype(g, n);
    if (!reg.has(n.op, backend, kd))
      missing[std::string(graph::op_name(n.op)) + "(" + std::string(dtype_name(kd)) + ")"]
          .push_back(n.name);
  }
}

Status check_kernels_exist(const graph::Graph& g, const kernels::KernelRegistry& reg,
                           kernels::Backend backend) {
  // So the user can pin the nodes to another precision in the policy file (or see which part
  // of the model is the problem).
  std::map<std::string, std::vector<std::string>> missing;
  find_missing_kernels(g, reg, backend, missing);
  if (missing.empty()) return Status::ok();
  constexpr size_t kNodesNamed = 3;
  std::string list;
  for (const auto& [kernel, nodes] : missing) {
    list += (list.empty() ? "" : "; ") + kernel + " needed by node";
    list += nodes.size() > 1 ? "s " : " ";
    for (size_t i = 0; i < nodes.size() && i < kNodesNamed; ++i)
      list += (i ? ", '" : "'") + nodes[i] + "'";
    if (nodes.size() > kNodesNamed)
      list += " and " + std::to_string(nodes.size() - kNodesNamed) + " more";
  }
  return unsupported(std::string("no ") + kernels::backend_name(backend) + " kernels for: " + list);
}

}  // namespace

// Options::input_shapes bind symbolic dims before the graph is verified (the importer infers
// with them), so a binding that makes a node invalid (a MaxPool window over an input too
// small for it) fails as an invalid model. When the model loads with its dims left symbolic,
// the binding is what failed: the caller's argument, named with the shapes given. That
// second load runs only on this error path, in its cheapest form (CPU, fp32, nothing else).
Result<std::shared_ptr<EngineImpl>> EngineImpl::load(const std::string& path, const Options& opt) {
  Result<std::shared_ptr<EngineImpl>> e = load_as_given(path, opt);
  if (e.is_ok() || opt.input_shapes.empty() || e.status().code() != ErrorCode::kInvalidModel)
    return e;
  Options symbolic;
  symbolic.backend = BackendKind::kCpu;
  symbolic.threads = 1;
  if (!load_as_given(path, symbolic).is_ok()) return e;
  std::string shapes;
  for (const auto& [name, dims] : opt.input_shapes)
    shapes +=
        (shapes.empty() ? "" : ", ") + name + " " + graph::Shape::from_static(dims).to_string();
  return invalid_argument("input_shapes " + shapes + " do not fit the model, which loads with " +
                          "those dims symbolic: " + without_pass_prefix(e.status().message()));
}

Result<std::shared_ptr<EngineImpl>> EngineImpl::load_as_given(const std::string& path,
                                                              const Options& opt) {
  const auto t0 = Clock::now();
  auto e = std::make_shared<EngineImpl>();
  e->options = opt;
  if (opt.threads < 0) return invalid_argument("threads must be >= 0");
  // 0: OpenMP's default, i.e. OMP_NUM_THREADS when set (as other runtimes honour it),
  // else every core.
  e->threads = opt.threads > 0 ? opt.threads : omp_get_max_threads();

  // Backend choice (backend_factory.h): CUDA when a GPU is usable, unless told otherwise.
  AMP_ASSIGN_OR_RETURN(runtime::BackendChoice choice, runtime::create_backend(opt));
  e->backend_ = std::move(choice.backend);
  e->backend_kind = choice.kind;
  e->backend_reason = std::move(choice.why);
  e->device = e->backend_->device_name();

  // verify
  auto t = Clock::now();
  if (!std::filesystem::exists(path)) return not_found("model file '" + path + "' does not exist");
  if (ends_with(path, ".onnx")) {
    graph::ImportOptions iopt;
    iopt.input_shapes = opt.input_shapes;
    AMP_ASSIGN_OR_RETURN(e->graph, graph::import_onnx_file(path, iopt));
    AMP_RETURN_IF_ERROR(graph::run_conversion_passes(e->graph));
  } else {
    AMP_ASSIGN_OR_RETURN(e->mapped_file_, graph::MappedFile::open(path));
    AMP_ASSIGN_OR_RETURN(e->graph, graph::read_amp_mapped(e->mapped_file_, path));
    AMP_RETURN_IF_ERROR(graph::infer_shapes(e->graph));
    AMP_RETURN_IF_ERROR(apply_input_shapes(e->graph, opt.input_shapes));
  }
  for (const graph::Value& v : e->graph.values)
    if (v.is_constant()) e->weights_bytes_fp32 += v.constant->byte_size();
  e->timings.verify = ms_since(t);

  // passes
  t = Clock::now();
  AMP_RETURN_IF_ERROR(graph::run_runtime_passes(e->graph));
  e->timings.passes = ms_since(t);

  // The AMP planner keeps graph inputs as they are: their infos serve calibration too.
  for (graph::ValueId v : e->graph.inputs) e->input_infos.push_back(info_of(e->graph.value(v)));

  // amp
  t = Clock::now();
  AMP_RETURN_IF_ERROR(e->plan_precision());
  e->timings.amp = ms_since(t);

  AMP_RETURN_IF_ERROR(check_kernels_exist(e->graph, e->backend_->registry(), e->backend_->kind()));
  size_t weights_bytes = 0;
  for (const graph::Value& v : e->graph.values)
    if (v.is_constant()) weights_bytes += v.constant->byte_size();
  if (opt.memory_limit_bytes && weights_bytes > opt.memory_limit_bytes)
    return out_of_memory("the model's weights take " + std::to_string(weights_bytes) +
                         " bytes after precision planning, over the memory limit of " +
                         std::to_string(opt.memory_limit_bytes) + " bytes");

  // upload (CUDA): every weight once, in the dtype the planner chose.
  t = Clock::now();
  AMP_RETURN_IF_ERROR(e->backend_->upload_weights(e->graph));
  e->timings.upload = ms_since(t);

  for (graph::ValueId v : e->graph.outputs) e->output_infos.push_back(info_of(e->graph.value(v)));

  // memory: plan now when every input dim is static and no input value decides shapes.
  t = Clock::now();
  e->shape_inputs = graph::shape_determining_inputs(e->graph);
  runtime::PlanKey key;
  bool all_static = e->shape_inputs.empty();
  for (graph::ValueId v : e->graph.inputs) {
    const graph::Value& val = e->graph.value(v);
    if (!val.shape || !val.shape->is_static()) {
      all_static = false;
      break;
    }
    key.dims.push_back(val.shape->static_dims());
  }
  if (all_static) {
    AMP_ASSIGN_OR_RETURN(auto plan, e->plan_for_key(key, {}));
    (void)plan;
  } else {
    // No plan yet: what passes, precision planning or the upload read goes back now.
    std::lock_guard<std::mutex> lock(e->mu_);
    e->drop_unread_weight_pages();
  }
  e->timings.memory = ms_since(t);
  e->timings.total = ms_since(t0);
  return e;
}

Status EngineImpl::plan_precision() {
  precision = options.precision;
  // Calibration data is checked whatever the plan (a bad sample is an error, not ignored);
  // it is run only for a low-precision plan.
  const bool calibrated = !options.calibration.empty() || !options.calibration_dirs.empty();
  std::vector<std::vector<NamedTensor>> calibration_tensors;
  std::vector<runtime::CalibrationSample> samples;
  if (calibrated) AMP_RETURN_IF_ERROR(read_calibration(calibration_tensors, samples));
  if (options.precision == Precision::kFp32) {
    if (!options.policy_file.empty())
      return invalid_argument("a policy file was given but precision is fp32; choose fp16 or bf16");
    return Status::ok();
  }
  const DType low = options.precision == Precision::kBf16 ? DType::kBF16 : DType::kF16;
  // On a device that runs `low` slower: why, and the only nodes planned low, those that
  // stream constant weights (runtime/weight_streaming.h).
  std::string slower;
  std::vector<std::string> streaming;
  if (!options.emulate_low_precision) {
    slower = backend_->low_precision_slower(low);
    if (!slower.empty()) {
      streaming =
          runtime::weight_streaming_products(graph, backend_->low_precision_weight_rows(low));
      if (streaming.empty()) {
        // A permission, not an order (options.h): fp32 is the faster plan here.
        run_fp32_instead(slower +
                         " (Options::emulate_low_precision / amprun --emulate-low-precision 1 "
                         "runs the AMP plan anyway)");
        return Status::ok();
      }
    }
  }
  graph::AmpPolicy policy;
  if (!options.policy_file.empty())
    AMP_RETURN_IF_ERROR(graph::load_amp_policy_file(options.policy_file, policy));
  policy.target = low;
  policy.keep_io_types = options.keep_io_types;
  // The accuracy search and precision timing plan the graph many times: its weights are
  // converted once (freed with `policy` when this returns; the engine graph keeps its own).
  policy.weight_cache = std::make_shared<graph::ConvertedWeights>();
  if (options.accuracy && !calibrated)
    return invalid_argument(
        "an accuracy target needs calibration data to measure it on (Options::calibration / "
        "amprun --calib DIR)");
  if (calibrated) {
    AMP_RETURN_IF_ERROR(calibrate(samples, policy));
  } else if (options.precision == Precision::kAuto) {
    precision_note =
        "auto without calibration data: the fp16 plan (Options::calibration / amprun --calib "
        "lets the nodes whose values overflow fp16 run bf16)";
  }
  if (!streaming.empty()) keep_fp32_but(streaming, slower, policy);
  if (options.precision_callback) {
    auto cb = options.precision_callback;
    policy.callback = [cb](const graph::Node& n) -> std::optional<graph::AmpColor> {
      switch (cb(NodeInfo{n.name, std::string(graph::op_name(n.op))})) {
        case NodePrecision::kDefault:
          return std::nullopt;
        case NodePrecision::kLow:
          return graph::AmpColor::kAlways;
        case NodePrecision::kFp32:
          return graph::AmpColor::kNever;
      }
      return std::nullopt;
    };
  }
  const kernels::KernelRegistry& reg = backend_->registry();
  const kernels::Backend kind = backend_->kind();
  auto has_kernel = [&reg, kind](const graph::Node& n, DType t) { return reg.has(n.op, kind, t); };
  // Where only a measurement tells whether the low type pays (Backend::times_low_precision).
  const bool needs_timing = !options.emulate_low_precision && backend_->times_low_precision(low);
  if (options.precision_timing == PrecisionTimingMode::kOn ||
      (options.precision_timing == PrecisionTimingMode::kAuto && needs_timing)) {
    AMP_ASSIGN_OR_RETURN(bool slower, time_precision(policy, has_kernel, samples));
    if (slower) return Status::ok();  // fp32 (precision_note says why)
  } else if (needs_timing) {
    // Timing turned off: the backend's guess, as when a plan cannot be timed.
    const std::string untimed = backend_->untimed_low_precision_slower(low);
    if (!untimed.empty() &&
        !keep_streaming_low_or_fp32(untimed +
                                        " (precision timing is off; "
                                        "Options::emulate_low_precision runs the AMP plan anyway)",
                                    policy))
      return Status::ok();
  }
  AMP_ASSIGN_OR_RETURN(graph::AmpReport report,
                       graph::plan_mixed_precision(graph, policy, has_kernel));
  policy_json = graph::amp_policy_json(policy);
  precision_json = graph::precision_report_json(report);
  precision_dot = graph::precision_report_dot(graph, report);
  amp_report = std::move(report);
  return Status::ok();
}

void EngineImpl::keep_fp32_but(const std::vector<std::string>& streaming, const std::string& slower,
                               graph::AmpPolicy& policy) {
  const std::set<std::string> low_nodes(streaming.begin(), streaming.end());
  const std::string reason = "this device runs it no faster in " +
                             std::string(dtype_name(policy.target)) +
                             " (it streams no constant weights)";
  for (const graph::Node& n : graph.nodes) {
    if (low_nodes.count(n.name)) continue;
    // A saved plan's dtypes (a policy file's node_dtypes) stay as saved.
    const auto it = policy.node_hints.find(n.name);
    if (it != policy.node_hints.end() && it->second.reason.rfind("policy node_dtypes", 0) == 0)
      continue;
    policy.node_hints[n.name] = {DType::kF32, reason};
  }
  const std::string low_name = policy.target == DType::kBF16 ? "bf16" : "fp16";
  precision_note += std::string(precision_note.empty() ? "" : "; ") +
                    precision_name(options.precision) + " requested: " + slower + ", so only the " +
                    std::to_string(streaming.size()) +
                    " products that stream constant weights for a few rows run " + low_name +
                    " (their weights read in 16 bits), the rest fp32";
}

bool EngineImpl::keep_streaming_low_or_fp32(const std::string& why, graph::AmpPolicy& policy) {
  const std::vector<std::string> streaming =
      runtime::weight_streaming_products(graph, backend_->low_precision_weight_rows(policy.target));
  if (streaming.empty()) {
    run_fp32_instead(why);
    return false;
  }
  keep_fp32_but(streaming, why, policy);
  return true;
}

void EngineImpl::run_fp32_instead(const std::string& why) {
  precision = Precision::kFp32;
  precision_note = std::string(precision_name(options.precision)) + " requested, fp32 used: " + why;
}

Result<bool> EngineImpl::time_precision(graph::AmpPolicy& policy,
                                        const graph::KernelAvailability& has_kernel,
                                        const std::vector<runtime::CalibrationSample>& samples) {
  auto note = [this](const std::string& text) {
    precision_note += (precision_note.empty() ? "" : "; ") + text;
  };
  // A saved plan (policy file node_dtypes) is reused as it is, timing included.
  for (const auto& [name, hint] : policy.node_hints)
    if (hint.reason.rfind("policy node_dtypes", 0) == 0) {
      note("precision timing skipped: the policy file gives each node's dtype");
      return false;
    }
  // The user's low pins are never timed away.
  std::vector<std::string> keep_low;
  for (const graph::Node& n : graph.nodes) {
    std::optional<graph::AmpColor> pin;
    for (const auto& [op, color] : policy.op_overrides)
      if (op == n.op) pin = color;
    for (const auto& [pattern, color] : policy.node_overrides)
      if (graph::glob_match(pattern, n.name)) pin = color;
    if (policy.callback)
      if (std::optional<graph::AmpColor> c = policy.callback(n)) pin = c;
    if (pin == graph::AmpColor::kAlways) keep_low.push_back(n.name);
  }
  runtime::TimingSetup setup;
  setup.backend = backend_kind;
  setup.device = options;
  // One thread on the CPU (precision_timing.h, step 2): a busy neighbour's barrier stalls
  // would decide it otherwise.
  setup.threads = backend_kind == BackendKind::kCpu ? 1 : threads;
  if (!samples.empty()) setup.inputs = samples.front();
  // Timing never fails a load: whatever fails here for the bound dims fails again, with its
  // own error, where the engine runs.
  Result<runtime::PrecisionTiming> timed =
      runtime::time_precision(graph, policy, has_kernel, keep_low, setup);
  runtime::PrecisionTiming t;
  if (timed.is_ok()) {
    t = std::move(*timed);
  } else {
    t.skipped = "it failed (" + timed.status().message() +
                "); Options::input_shapes / amprun --shape binds representative dims";
  }
  if (!t.skipped.empty()) {
    const std::string untimed = backend_->untimed_low_precision_slower(policy.target);
    if (untimed.empty()) {
      note("precision timing skipped: " + t.skipped);
      return false;
    }
    return !keep_streaming_low_or_fp32(untimed + " (precision timing skipped: " + t.skipped + ")",
                                       policy);
  }
  char buf[400];
  // CUDA runs take no thread count: the note says where the plans ran instead.
  const std::string where = backend_kind == BackendKind::kCpu
                                ? "with " + std::to_string(t.threads) + " thread(s)"
                                : std::string("on the GPU");
  if (t.all_fp32) {
    std::snprintf(buf, sizeof(buf),
                  "measured on this device the AMP plan is not faster (%.3f ms against fp32's "
                  "%.3f ms; %.3f against %.3f ms node by node before %zu node(s) were kept "
                  "fp32; timed in %.0f ms %s, Options::precision_timing)",
                  t.final_ms, t.check_fp32_ms, t.low_ms, t.fp32_ms, t.pinned.size(), t.ms,
                  where.c_str());
    run_fp32_instead(buf);
    return true;
  }
  for (const auto& [name, why] : t.pinned)
    if (std::find(keep_low.begin(), keep_low.end(), name) == keep_low.end())
      policy.node_hints[name] = {DType::kF32, why};
  std::snprintf(buf, sizeof(buf),
                "precision timing: %zu node(s) kept fp32, faster on this device; the plan "
                "%.3f ms against fp32's %.3f ms (%.3f ms node by node before; timed in %.0f ms, "
                "%d rounds, %s)",
                t.pinned.size(), t.final_ms, t.check_fp32_ms, t.low_ms, t.ms, t.rounds,
                where.c_str());
  note(buf);
  return false;
}

Status EngineImpl::read_calibration(std::vector<std::vector<NamedTensor>>& named,
                                    std::vector<runtime::CalibrationSample>& samples) const {
  // Every sample as named tensors, checked like a run's inputs (names, dtypes, dims).
  for (const auto& sample : options.calibration) {
    std::vector<NamedTensor> s;
    for (const auto& [name, tensor] : sample) s.push_back({name, tensor});
    named.push_back(std::move(s));
  }
  AMP_ASSIGN_OR_RETURN(
      std::vector<std::vector<Tensor>> loaded,
      runtime::load_calibration_dirs(options.calibration_dirs, input_infos.size()));
  for (std::vector<Tensor>& sample : loaded) {
    std::vector<NamedTensor> s;
    for (size_t i = 0; i < sample.size(); ++i)
      s.push_back({input_infos[i].name, std::move(sample[i])});
    named.push_back(std::move(s));
  }
  for (size_t k = 0; k < named.size(); ++k) {
    auto ordered = match_inputs(named[k]);
    if (!ordered.is_ok())
      return ordered.status().with_context("calibration sample " + std::to_string(k));
    samples.push_back(std::move(*ordered));
  }
  return Status::ok();
}

Status EngineImpl::calibrate(const std::vector<runtime::CalibrationSample>& samples,
                             graph::AmpPolicy& policy) {
  const auto t0 = Clock::now();
  std::vector<std::vector<Tensor>> reference;  // fp32 outputs, for the accuracy search
  AMP_ASSIGN_OR_RETURN(runtime::ValueRanges ranges,
                       runtime::observe_value_ranges(graph, samples, threads, &reference));
  const runtime::RangeTarget target =
      options.precision == Precision::kAuto   ? runtime::RangeTarget::kAuto
      : options.precision == Precision::kBf16 ? runtime::RangeTarget::kBf16
                                              : runtime::RangeTarget::kFp16;
  // A policy file's node_dtypes (a saved search) win over what the ranges say.
  int bf16 = 0, fp32 = 0;
  for (auto& [name, hint] : runtime::range_hints(graph, ranges, target)) {
    if (policy.node_hints.count(name)) continue;
    (hint.dtype == DType::kBF16 ? bf16 : fp32)++;
    policy.node_hints[name] = std::move(hint);
  }
  char buf[512];
  std::snprintf(buf, sizeof(buf),
                "calibration: %zu sample(s), %zu values observed in %.1f ms; %d node(s) kept "
                "fp32, %d moved to bf16",
                samples.size(), ranges.size(), ms_since(t0), fp32, bf16);
  precision_note = buf;
  if (!options.accuracy) return Status::ok();

  AMP_ASSIGN_OR_RETURN(
      runtime::SearchResult found,
      runtime::search_fp32_pins(graph, policy, samples, reference, *options.accuracy, threads));
  for (const std::string& name : found.pinned)
    policy.node_hints[name] = {DType::kF32, "accuracy target: pinned by the search"};
  std::snprintf(buf, sizeof(buf),
                "; accuracy search: %zu node(s) pinned fp32 in %.1f ms (%d plans tried, %.0f%% "
                "of their steps reused from earlier plans, %s first), cosine %.6f -> %.6f, max "
                "rel err %.2e -> %.2e%s",
                found.pinned.size(), found.ms, found.evaluations,
                100.0 * static_cast<double>(found.steps_reused) /
                    static_cast<double>(std::max<int64_t>(1, found.steps_run + found.steps_reused)),
                found.front_first ? "front" : "back", found.before.cosine, found.after.cosine,
                found.before.max_rel_err, found.after.max_rel_err,
                found.met ? "" : " (target not met even with every low node fp32)");
  precision_note += buf;
  return Status::ok();
}

Result<std::shared_ptr<const runtime::ExecutionPlan>> EngineImpl::plan_for(
    const std::vector<const Tensor*>& inputs) const {
  for (size_t k : shape_inputs) {
    const Tensor* t = inputs[k];
    if (t->numel() > 4096)
      return invalid_input("input '" + input_infos[k].name + "' decides output shapes, so its " +
                           "values are part of the plan; it has " + std::to_string(t->numel()) +
                           " elements, more than the 4096 allowed");
  }
  std::vector<std::optional<graph::TensorData>> values;
  AMP_ASSIGN_OR_RETURN(runtime::PlanKey key, runtime::plan_key_for(inputs, shape_inputs, values));
  Result<std::shared_ptr<const runtime::ExecutionPlan>> plan = plan_for_key(key, values);
  // The graph verified and inferred at load with these dims symbolic, so a graph that turns
  // invalid once they are bound (a MaxPool window over an input too small for it, a Reshape
  // whose counts no longer match) was made so by these inputs: the caller's error, named
  // with the shapes that caused it, not the model's.
  if (!plan.is_ok() && plan.status().code() == ErrorCode::kInvalidModel) {
    std::string what = bound_inputs_text(input_infos, key);
    if (!shape_inputs.empty()) what += " and the values of the inputs that decide shapes";
    return invalid_input("the model cannot run on inputs " + what + ": " +
                         without_pass_prefix(plan.status().message()));
  }
  return plan;
}

Result<std::shared_ptr<const runtime::ExecutionPlan>> EngineImpl::plan_for_key(
    const runtime::PlanKey& key,
    const std::vector<std::optional<graph::TensorData>>& shape_values) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = plans_.find(key);
  if (it != plans_.end()) {
    last_plan_ = it->second;
    return it->second;
  }
  runtime::PlanBuildOptions popt;
  popt.backend = backend_.get();
  popt.threads = threads;
  popt.weights_file = mapped_file_;
  // The plan used last is the likeliest to share kernels with this one (a decoder's
  // previous step); runtime/kernel_reuse.h.
  AMP_ASSIGN_OR_RETURN(
      auto plan, runtime::build_execution_plan(graph, key, shape_values, popt, last_plan_.get()));
  if (options.memory_limit_bytes) {
    // Inputs and outputs outside the arena are memory all the same: the tensors a run
    // returns, the caller's inputs or the context's copies of them.
    const size_t need = plan->memory.arena_bytes + plan->memory.outside_bytes +
                        plan->memory.weights_bytes + packed_weights_bytes(plan.get());
    if (need > options.memory_limit_bytes)
      return out_of_memory("the model needs " + std::to_string(need) +
                           " bytes (weights, their packed copies, the activation arena, inputs "
                           "and outputs) for these input shapes, over the memory limit of " +
                           std::to_string(options.memory_limit_bytes));
  }
  // A bounded cache: dynamic-shape servers see few distinct shapes; drop the oldest-keyed.
  if (plans_.size() >= 16) plans_.erase(plans_.begin());
  plans_[key] = plan;
  last_plan_ = plan;
  drop_unread_weight_pages();
  return plan;
}

void EngineImpl::drop_unread_weight_pages() const {
  if (!mapped_file_) return;
  std::vector<const runtime::ExecutionPlan*> plans;
  for (const auto& [key, plan] : plans_) plans.push_back(plan.get());
  released_file_bytes_ = runtime::drop_unread_weight_pages(*mapped_file_, plans);
}

Result<std::vector<const Tensor*>> EngineImpl::match_inputs(
    const std::vector<NamedTensor>& inputs) const {
  std::vector<const Tensor*> ordered(input_infos.size(), nullptr);
  auto expected_names = [&] {
    std::string s;
    for (const auto& in : input_infos) s += (s.empty() ? "'" : ", '") + in.name + "'";
    return s;
  };
  for (const NamedTensor& nt : inputs) {
    size_t k = 0;
    while (k < input_infos.size() && input_infos[k].name != nt.name) ++k;
    if (k == input_infos.size())
      return invalid_input("unknown input '" + nt.name + "'; the model's inputs are " +
                           expected_names());
    if (ordered[k]) return invalid_input("input '" + nt.name + "' given twice");
    ordered[k] = &nt.tensor;
  }
  std::map<std::string, int64_t> symbols;
  for (size_t k = 0; k < input_infos.size(); ++k) {
    const TensorInfo& info = input_infos[k];
    const Tensor* t = ordered[k];
    if (!t)
      return invalid_input("missing input '" + info.name + "'; the model's inputs are " +
                           expected_names());
    if (t->dtype() != info.dtype)
      return invalid_input("input '" + info.name + "' has dtype " +
                           std::string(dtype_name(t->dtype())) + ", expected " +
                           std::string(dtype_name(info.dtype)));
    if (t->shape().size() != info.shape.size())
      return invalid_input("input '" + info.name + "' has rank " +
                           std::to_string(t->shape().size()) + " (" + t->describe() +
                           "), expected rank " + std::to_string(info.shape.size()));
    for (size_t i = 0; i < info.shape.size(); ++i) {
      const int64_t got = t->shape()[i];
      if (info.shape[i] >= 0 && got != info.shape[i])
        return invalid_input("input '" + info.name + "' dim " + std::to_string(i) + " is " +
                             std::to_string(got) + ", the model requires " +
                             std::to_string(info.shape[i]));
      const std::string& sym = info.symbols[i];
      if (info.shape[i] < 0 && !sym.empty()) {
        auto [it, inserted] = symbols.emplace(sym, got);
        if (!inserted && it->second != got)
          return invalid_input("input '" + info.name + "' dim " + std::to_string(i) + " ('" + sym +
                               "') is " + std::to_string(got) + ", but another input bound '" +
                               sym + "' to " + std::to_string(it->second));
      }
    }
    if (t->numel() > 0 && t->raw_data() == nullptr)
      return invalid_input("input '" + info.name + "' has no data");
  }
  return ordered;
}

std::unique_ptr<ContextImpl> EngineImpl::acquire_context() const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!pool_.empty()) {
      auto ctx = std::move(pool_.back());
      pool_.pop_back();
      return ctx;
    }
  }
  return std::make_unique<ContextImpl>(this, nullptr);
}

void EngineImpl::release_context(std::unique_ptr<ContextImpl> ctx) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (pool_.size() < 8) pool_.push_back(std::move(ctx));
}

MemoryReport EngineImpl::memory_report() const {
  MemoryReport r;
  r.weights_bytes_fp32 = weights_bytes_fp32;
  std::lock_guard<std::mutex> lock(mu_);
  r.model_file_released_bytes = released_file_bytes_;
  if (last_plan_) {
    r.weights_bytes = last_plan_->memory.weights_bytes;
    r.arena_bytes = last_plan_->memory.arena_bytes;
    r.lower_bound_bytes = last_plan_->memory.lower_bound_bytes;
    r.io_outside_arena_bytes = last_plan_->memory.outside_bytes;
    for (const auto& s : last_plan_->steps)
      r.workspace_bytes = std::max(r.workspace_bytes, s.kernel->workspace_bytes());
    r.packed_weights_bytes = packed_weights_bytes(last_plan_.get());
  } else {
    for (const graph::Value& v : graph.values)
      if (v.is_constant()) r.weights_bytes += v.constant->byte_size();
  }
  return r;
}

size_t EngineImpl::packed_weights_bytes(const runtime::ExecutionPlan* extra) const {
  std::vector<kernels::HeldConstant> held;
  for (const auto& [key, plan] : plans_) runtime::collect_held_constants(*plan, held);
  if (extra != nullptr) runtime::collect_held_constants(*extra, held);
  return runtime::held_bytes(std::move(held));
}

}  // namespace amp
