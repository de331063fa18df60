// amprun: the first thing a user runs on a model. Loads it with AMP, times it, reports
// precision, memory and accuracy, and ends with PASSED or FAILED (exit 0 / 1; 2 for usage
// errors). See amprun_options.cc for the flags and README.md for a sample session.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "amp/engine.h"
#include "amp/tensor_io.h"
#include "tools/amprun/accuracy.h"
#include "tools/amprun/amprun_options.h"
#include "tools/amprun/inputs.h"
#include "tools/amprun/process_memory.h"
#include "tools/amprun/profile_report.h"
#include "tools/amprun/timing.h"

namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace {

std::string mib(double bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f MiB", bytes / (1024.0 * 1024.0));
  return buf;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  if (!f || !(f << text))
    throw amp::Error(amp::ErrorCode::kNotFound, "cannot write '" + path + "'");
}

// --profile / --profile-json: a fresh context with profiling on, a few warm-up runs (plans
// bound, caches warm), then up to 50 profiled runs; the table and the JSON report get their
// mean per node, the trace file the last run.
void profile(const amp::Engine& engine, const std::vector<amp::NamedTensor>& inputs,
             const amprun::Args& args, ordered_json& json) {
  amp::ExecutionContext ctx = engine.create_context();
  for (int i = 0; i < std::max(1, std::min(args.warmup, 3)); ++i) ctx.run(inputs);
  ctx.set_profiling(true);
  const int runs = std::max(1, std::min(args.iterations, 50));
  std::vector<amp::RunProfile> profiles;
  double total = 0;
  for (int i = 0; i < runs; ++i) {
    ctx.run(inputs);
    profiles.push_back(ctx.last_run_profile());
    total += profiles.back().total_ms;
  }
  const std::vector<amprun::ProfileRow> rows = amprun::aggregate_profiles(profiles);
  if (args.profile) {
    const std::string threads =
        args.threads ? std::to_string(args.threads) + " thread(s)" : "default threads";
    std::printf("\n=== Profile (%s, %s) ===\n", engine.device_name().c_str(), threads.c_str());
    amprun::print_profile_table(stdout, rows, runs, total / runs);
    json["profile"] = {
        {"runs", runs}, {"mean_run_ms", total / runs}, {"nodes", amprun::profile_rows_json(rows)}};
  }
  if (!args.profile_json.empty())
    write_file(args.profile_json,
               amprun::chrome_trace(profiles.back(), args.model, engine.device_name())
                       .dump(1, ' ', false, ordered_json::error_handler_t::replace) +
                   "\n");
}

// Prints the accuracy table and appends it to `json`. Returns whether all passed.
bool report_accuracy(const std::vector<amprun::Accuracy>& acc, const std::string& against,
                     ordered_json& json) {
  bool ok = true;
  std::printf("\n=== Accuracy (against %s) ===\n", against.c_str());
  std::printf("  %-28s %12s %12s %12s %10s %8s  %s\n", "output", "max|expected|", "max_abs_err",
              "max_rel_err", "cosine", "argmax", "verdict");
  for (const auto& a : acc) {
    char argmax[16] = "-";
    if (a.argmax_agree >= 0) std::snprintf(argmax, sizeof argmax, "%.0f%%", a.argmax_agree * 100);
    std::string note = a.problem.empty() ? "" : ": " + a.problem;
    if (a.nonfinite_both > 0)
      note += " (" + std::to_string(a.nonfinite_both) + " of " + std::to_string(a.elements) +
              " elements NaN/Inf in both: not compared)";
    std::printf("  %-28s %12.3e %12.3e %12.3e %10.6f %8s  %s%s\n", a.output.c_str(), a.scale,
                a.max_abs_err, a.max_rel_err, a.cosine, argmax, a.pass ? "pass" : "FAIL",
                note.c_str());
    ok = ok && a.pass;
    ordered_json j = {{"output", a.output},
                      {"max_abs_expected", a.scale},
                      {"max_abs_err", a.max_abs_err},
                      {"max_rel_err", a.max_rel_err},
                      {"cosine", a.cosine},
                      {"pass", a.pass},
                      {"against", against}};
    if (a.argmax_agree >= 0) j["argmax_agree"] = a.argmax_agree;
    if (a.nonfinite_both > 0) j["nonfinite_in_both"] = a.nonfinite_both;
    json["accuracy"].push_back(j);
  }
  return ok;
}

int run(const amprun::Args& args) {
  ordered_json json;
  amp::Options opt;
  opt.backend = args.backend;
  opt.threads = args.threads;
  opt.adaptive_threads = args.adaptive_threads;
  opt.emulate_low_precision = args.emulate_low_precision;
  opt.precision_timing = args.precision_timing;
  opt.policy_file = args.policy;
  opt.calibration_dirs = args.calibration_dirs;
  opt.accuracy = args.accuracy;
  opt.input_shapes = args.shapes;
  opt.keep_io_types = args.keep_io_types;
  opt.check_numerics = false;  // --check-numerics runs once on an engine of its own (below)
  opt.memory_limit_bytes = args.memory_limit;
  // Default precision: fp16 on CUDA, fp32 on CPU. With auto we learn the backend at load.
  opt.precision = args.precision.value_or(
      args.backend == amp::BackendKind::kCuda ? amp::Precision::kFp16 : amp::Precision::kFp32);

  std::printf("=== Model and options ===\n");
  std::printf("  model       : %s\n", args.model.c_str());
  std::printf("  backend     : %s   precision: %s%s\n", amp::backend_kind_name(args.backend),
              amp::precision_name(opt.precision), args.precision ? "" : " (default)");
  if (!args.policy.empty()) std::printf("  policy      : %s\n", args.policy.c_str());
  std::printf(
      "  iterations  : %d (warm-up %d%s), streams %d, threads %s\n", args.iterations, args.warmup,
      args.duration_s > 0 ? (", at least " + std::to_string(args.duration_s) + " s").c_str() : "",
      args.streams, args.threads ? std::to_string(args.threads).c_str() : "all");

  amp::Engine engine = amp::Engine::load(args.model, opt);
  if (!args.precision && engine.backend() == amp::BackendKind::kCuda &&
      opt.precision == amp::Precision::kFp32) {
    opt.precision = amp::Precision::kFp16;  // auto picked CUDA: reload with the GPU default
    engine = amp::Engine::load(args.model, opt);
  }
  std::vector<std::string> notes;
  std::vector<amp::NamedTensor> inputs =
      amprun::make_inputs(engine, args.inputs_dir, args.shapes, args.seed, notes);
  // A low-precision plan is made for the dims it will run: precision timing does not time
  // symbolic dims (runtime/precision_timing.h), and amprun runs one set of inputs, so their
  // dims are bound at load as --shape would bind them, and the engine is loaded again (the
  // first load planned without calibration, so it was cheap). With --calib the first
  // sample's dims are the ones timed.
  if (opt.precision != amp::Precision::kFp32 && opt.calibration_dirs.empty()) {
    bool bound_now = false;
    for (size_t i = 0; i < inputs.size() && i < engine.inputs().size(); ++i) {
      const amp::TensorInfo& info = engine.inputs()[i];
      const bool symbolic = std::find(info.shape.begin(), info.shape.end(), -1) != info.shape.end();
      // An input of the wrong rank is not bound: the run names it, as in fp32.
      if (symbolic && !opt.input_shapes.count(info.name) &&
          inputs[i].tensor.shape().size() == info.shape.size()) {
        opt.input_shapes[info.name] = inputs[i].tensor.shape();
        bound_now = true;
      }
    }
    if (bound_now) {
      engine = amp::Engine::load(args.model, opt);
      notes.push_back(
          "symbolic input dims bound at load to the inputs' (as --shape would): the "
          "precision plan is made for them");
    }
  }
  const amp::LoadTimings lt = engine.load_timings();
  std::printf("\n=== Device ===\n  %s: %s\n  (%s)\n", amp::backend_kind_name(engine.backend()),
              engine.device_name().c_str(), engine.backend_note().c_str());
  std::printf("\n=== Load (%.1f ms) ===\n", lt.total);
  std::printf(
      "  read+verify %.1f ms | passes %.1f ms | AMP planning %.1f ms | memory planning %.1f ms | "
      "upload %.1f ms\n",
      lt.verify, lt.passes, lt.amp, lt.memory, lt.upload);
  json["model"] = args.model;
  json["backend"] = amp::backend_kind_name(engine.backend());
  json["precision"] = amp::precision_name(engine.precision());
  json["precision_note"] = engine.precision_note();
  json["device"] = engine.device_name();
  json["backend_note"] = engine.backend_note();
  json["load_ms"] = {{"total", lt.total}, {"verify", lt.verify}, {"passes", lt.passes},
                     {"amp", lt.amp},     {"memory", lt.memory}, {"upload", lt.upload}};

  for (const auto& n : notes) std::printf("  note: %s\n", n.c_str());

  // Numerics: one checked run on an engine of its own, so that the timed runs below are not
  // slowed by the per-node checks.
  bool passed = true;
  if (args.check_numerics) {
    amp::Options check_opt = opt;
    check_opt.check_numerics = true;
    std::printf("\n=== Numerics (check after every low-precision node) ===\n");
    std::string finding;
    try {
      amp::Engine::load(args.model, check_opt).run(inputs);
    } catch (const amp::Error& e) {
      if (e.code() != amp::ErrorCode::kNumericOverflow) throw;
      finding = e.message();
    }
    std::printf("  %s\n",
                finding.empty() ? "no Inf/NaN produced by a low-precision node" : finding.c_str());
    json["numerics"] = {
        {"checked", true},
        {"first_overflow", finding.empty() ? ordered_json() : ordered_json(finding)}};
    passed = finding.empty();
  }

  // Timed runs (the first run also binds shapes and fills the memory report).
  amprun::LatencyStats st = amprun::run_timed(engine, inputs, args.warmup, args.iterations,
                                              args.duration_s, args.streams);
  // Where one run's time goes: a fresh context, three runs (on CUDA the first is eager, the
  // second captures the CUDA graph, the third replays it), the last one reported.
  amp::RunTimings rt;
  {
    amp::ExecutionContext probe = engine.create_context();
    for (int i = 0; i < 3; ++i) probe.run(inputs);
    rt = probe.last_run_timings();
  }

  if (args.profile || !args.profile_json.empty()) profile(engine, inputs, args, json);

  // Precision summary.
  ordered_json plan = ordered_json::parse(engine.precision_report_json(), nullptr, false);
  const amp::MemoryReport mem = engine.memory();
  ordered_json pp;
  std::printf("\n=== Precision ===\n");
  if (plan.is_object() && plan.contains("nodes")) {
    pp = {{"nodes", plan["nodes"]},
          {"nodes_low", plan["nodes_low"]},
          {"casts", plan["casts"]},
          {"cast_bytes_per_run", plan["cast_bytes_per_run"]},
          {"low_flops_fraction", plan["low_flops_fraction"]},
          {"weights_bytes_fp32", plan["weights_bytes_fp32"]},
          {"weights_bytes", plan["weights_bytes"]},
          {"fallbacks", plan["fallbacks"]}};
    std::printf("  target %s: %d of %d float nodes in low precision; %.1f%% of conv/matmul FLOPs\n",
                plan["target"].get<std::string>().c_str(), plan["nodes_low"].get<int>(),
                plan["nodes"].get<int>(), 100.0 * plan["low_flops_fraction"].get<double>());
    std::printf("  casts: %d inserted, %s cast per run\n", plan["casts"].get<int>(),
                mib(plan["cast_bytes_per_run"].get<double>()).c_str());
    std::printf("  weights: %s fp32 -> %s planned\n",
                mib(plan["weights_bytes_fp32"].get<double>()).c_str(),
                mib(plan["weights_bytes"].get<double>()).c_str());
    for (const auto& f : plan["fallbacks"])
      std::printf("  fallback: %s (%s): %s\n", f["node"].get<std::string>().c_str(),
                  f["op"].get<std::string>().c_str(), f["reason"].get<std::string>().c_str());
    // Per dtype (a calibrated plan mixes f16 and bf16), and what calibration decided.
    std::map<std::string, int> by_dtype;
    std::vector<std::string> calibrated;
    for (const auto& n : plan["plan"]) {
      if (n["color"] == "-") continue;
      ++by_dtype[n["dtype"].get<std::string>()];
      // What calibration and the accuracy search decided, by the source their reason names.
      const std::string reason = n["reason"].get<std::string>();
      const std::string what = n["node"].get<std::string>() + " (" + n["op"].get<std::string>() +
                               ") " + n["dtype"].get<std::string>();
      if (const size_t at = reason.find("calibration: "); at != std::string::npos)
        calibrated.push_back("calibration: " + what + ": " + reason.substr(at + 13));
      else if (reason.find("accuracy target: ") != std::string::npos)
        calibrated.push_back("accuracy search: " + what + " pinned");
    }
    std::string dtypes;
    for (const auto& [dt, count] : by_dtype)
      dtypes += (dtypes.empty() ? "" : ", ") + std::to_string(count) + " " + dt;
    std::printf("  nodes by dtype: %s\n", dtypes.c_str());
    pp["nodes_by_dtype"] = by_dtype;
    constexpr size_t kShown = 10;
    for (size_t i = 0; i < calibrated.size() && i < kShown; ++i)
      std::printf("  %s\n", calibrated[i].c_str());
    if (calibrated.size() > kShown)
      std::printf("  ... and %zu more decided by the data (--dump-plan)\n",
                  calibrated.size() - kShown);
    if (!engine.precision_note().empty())
      std::printf("  note: %s\n", engine.precision_note().c_str());
  } else {
    pp = {{"nodes", 0},
          {"nodes_low", 0},
          {"casts", 0},
          {"cast_bytes_per_run", 0},
          {"low_flops_fraction", 0.0},
          {"weights_bytes_fp32", mem.weights_bytes_fp32},
          {"weights_bytes", mem.weights_bytes},
          {"fallbacks", ordered_json::array()}};
    std::printf("  fp32 everywhere (no AMP)\n");
    if (!engine.precision_note().empty())
      std::printf("  note: %s\n", engine.precision_note().c_str());
  }
  json["precision_plan"] = pp;

  std::printf("\n=== Memory ===\n");
  std::printf(
      "  arena %s | lower bound %s | ratio %.3f | inputs/outputs outside it %s | weights %s | "
      "packed weights %s | largest workspace %s\n",
      mib(mem.arena_bytes).c_str(), mib(mem.lower_bound_bytes).c_str(),
      mem.lower_bound_bytes ? double(mem.arena_bytes) / mem.lower_bound_bytes : 1.0,
      mib(mem.io_outside_arena_bytes).c_str(), mib(mem.weights_bytes).c_str(),
      mib(mem.packed_weights_bytes).c_str(), mib(mem.workspace_bytes).c_str());
  if (mem.model_file_released_bytes > 0)
    std::printf(
        "  model file: %s of its pages handed back to the OS (no kernel reads them at run "
        "time)\n",
        mib(mem.model_file_released_bytes).c_str());
  // The whole process, libraries and allocator included (and the reference engine of
  // --check-numerics, loaded before the timed runs, in the peak).
  const amprun::ProcessMemory proc = amprun::read_process_memory();
  if (proc.known)
    std::printf("  process: resident %s now, peak %s\n", mib(proc.resident_bytes).c_str(),
                mib(proc.peak_resident_bytes).c_str());
  json["memory"] = {{"arena_bytes", mem.arena_bytes},
                    {"lower_bound_bytes", mem.lower_bound_bytes},
                    {"io_outside_arena_bytes", mem.io_outside_arena_bytes},
                    {"weights_bytes", mem.weights_bytes},
                    {"packed_weights_bytes", mem.packed_weights_bytes},
                    {"model_file_released_bytes", mem.model_file_released_bytes},
                    {"workspace_bytes", mem.workspace_bytes},
                    {"process_resident_bytes", proc.resident_bytes},
                    {"process_peak_resident_bytes", proc.peak_resident_bytes}};

  std::printf("\n=== Performance (%d runs in %.2f s, %d stream%s) ===\n", st.iterations, st.wall_s,
              args.streams, args.streams > 1 ? "s" : "");
  std::printf("  throughput %.2f qps\n", st.throughput_qps);
  std::printf(
      "  latency ms: min %.3f | max %.3f | mean %.3f | median %.3f | p90 %.3f | p95 %.3f | p99 "
      "%.3f\n",
      st.min, st.max, st.mean, st.median, st.p90, st.p95, st.p99);
  json["latency_ms"] = {{"min", st.min}, {"max", st.max}, {"mean", st.mean}, {"median", st.median},
                        {"p90", st.p90}, {"p95", st.p95}, {"p99", st.p99}};
  std::printf("  one run, ms: inputs in %.3f | compute %.3f | outputs out %.3f%s\n", rt.h2d,
              rt.compute, rt.d2h, rt.cuda_graph ? " (CUDA graph replay)" : "");
  if (!rt.cuda_graph_note.empty()) std::printf("  CUDA graph: %s\n", rt.cuda_graph_note.c_str());
  json["run_breakdown_ms"] = {{"h2d", rt.h2d},
                              {"compute", rt.compute},
                              {"d2h", rt.d2h},
                              {"cuda_graph", rt.cuda_graph},
                              {"cuda_graph_note", rt.cuda_graph_note}};
  json["throughput_qps"] = st.throughput_qps;
  json["iterations"] = st.iterations;
  json["accuracy"] = ordered_json::array();

  // Accuracy.
  std::vector<amp::Tensor> outputs = engine.run(inputs);
  const amprun::Tolerance tol = amprun::default_tolerance(engine.precision());
  const double rtol = args.rtol.value_or(tol.rtol);
  const double atol = args.atol.value_or(tol.atol);
  if (!args.compare_dir.empty()) {
    std::vector<amprun::Accuracy> acc;
    for (size_t i = 0; i < outputs.size(); ++i) {
      const std::string path =
          (fs::path(args.compare_dir) / ("output_" + std::to_string(i) + ".pb")).string();
      acc.push_back(amprun::compare_outputs(engine.outputs()[i].name, amp::load_tensor_pb(path),
                                            outputs[i], rtol, atol));
    }
    passed = report_accuracy(acc, args.compare_dir, json) && passed;
  }
  if (args.compare_precision) {
    amp::Options ref_opt = opt;
    ref_opt.precision = *args.compare_precision;
    ref_opt.policy_file.clear();
    ref_opt.calibration_dirs.clear();
    ref_opt.accuracy.reset();
    amp::Engine ref = amp::Engine::load(args.model, ref_opt);
    std::vector<amp::Tensor> ref_out = ref.run(inputs);
    std::vector<amprun::Accuracy> acc;
    for (size_t i = 0; i < outputs.size(); ++i)
      acc.push_back(
          amprun::compare_outputs(engine.outputs()[i].name, ref_out[i], outputs[i], rtol, atol));
    const bool kept = report_accuracy(acc, amp::precision_name(*args.compare_precision), json);
    // A plan that misses fp32 without a target: the search that fixes it is one flag away.
    if (!kept && !opt.accuracy && engine.precision() != amp::Precision::kFp32)
      std::printf(
          "  hint: --calib DIR (representative inputs) --accuracy cosine=0.9999 keeps the nodes\n"
          "        that cause this in fp32 (README \"Calibration and auto\")\n");
    passed = kept && passed;
  }
  if (!args.compare_dir.empty() || args.compare_precision) {
    json["tolerance"] = {{"rtol", rtol}, {"atol_of_max_abs_expected", atol}};
    std::printf("  tolerance: |diff| <= %.1e x the output's largest |value| + %.1e x |value|\n",
                atol, rtol);
  }

  if (!args.save_outputs_dir.empty()) {
    fs::create_directories(args.save_outputs_dir);
    for (size_t i = 0; i < outputs.size(); ++i)
      amp::save_tensor_pb(
          (fs::path(args.save_outputs_dir) / ("output_" + std::to_string(i) + ".pb")).string(),
          outputs[i], engine.outputs()[i].name);
  }
  if (!args.dump_plan.empty()) write_file(args.dump_plan, engine.precision_report_json());
  if (!args.save_policy.empty()) write_file(args.save_policy, engine.policy_json() + "\n");
  if (!args.dump_dot.empty()) write_file(args.dump_dot, engine.precision_report_dot());
  if (args.verbose) std::printf("\n=== Planned graph ===\n%s", engine.plan_summary().c_str());

  json["passed"] = passed;
  // replace: names from the model need not be UTF-8 (a hostile file), and dump would throw.
  if (!args.json_report.empty())
    write_file(args.json_report,
               json.dump(2, ' ', false, decltype(json)::error_handler_t::replace) + "\n");
  std::printf("\n%s\n", passed ? "PASSED" : "FAILED");
  return passed ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string error;
  std::optional<amprun::Args> args = amprun::parse_args(argc, argv, error);
  if (!args) {
    std::fprintf(stderr, "amprun: %s\n\n%s", error.c_str(), amprun::usage_text());
    return 2;
  }
  if (args->help) {
    std::printf("%s", amprun::usage_text());
    return 0;
  }
  try {
    return run(*args);
  } catch (const amp::Error& e) {
    std::fprintf(stderr, "amprun: error: %s\n", e.what());
    std::printf("\nFAILED\n");
    return 1;
  }
}
