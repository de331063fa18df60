#include "tools/amprun/amprun_options.h"

#include <cstdlib>
#include <initializer_list>
#include <sstream>

namespace amprun {
namespace {

std::optional<amp::Precision> parse_precision(const std::string& s) {
  if (s == "fp32" || s == "f32") return amp::Precision::kFp32;
  if (s == "fp16" || s == "f16") return amp::Precision::kFp16;
  if (s == "bf16") return amp::Precision::kBf16;
  if (s == "auto") return amp::Precision::kAuto;
  return std::nullopt;
}

// `value` of `flag` as one of `choices` into `out`; else false with "--flag must be a, b or
// c, got 'value'" in `error`.
template <typename T>
bool parse_choice(const std::string& flag, const std::string& value,
                  std::initializer_list<std::pair<const char*, T>> choices, T& out,
                  std::string& error) {
  std::string names;
  size_t i = 0;
  for (const auto& [name, v] : choices) {
    if (value == name) {
      out = v;
      return true;
    }
    names += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + std::string(name);
    ++i;
  }
  error = flag + " must be " + names + ", got '" + value + "'";
  return false;
}

bool parse_int(const std::string& s, long long lo, long long hi, long long& out) {
  char* end = nullptr;
  out = std::strtoll(s.c_str(), &end, 10);
  return !s.empty() && *end == '\0' && out >= lo && out <= hi;
}

bool parse_double(const std::string& s, double& out) {
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return !s.empty() && *end == '\0' && out >= 0;
}

// "name=1x3x224x224"
bool parse_shape(const std::string& s, std::string& name, std::vector<int64_t>& dims) {
  const auto eq = s.rfind('=');
  if (eq == std::string::npos || eq == 0) return false;
  name = s.substr(0, eq);
  dims.clear();
  std::stringstream ss(s.substr(eq + 1));
  std::string part;
  while (std::getline(ss, part, 'x')) {
    long long v;
    if (!parse_int(part, 0, (1LL << 40), v)) return false;
    dims.push_back(v);
  }
  return true;
}

}  // namespace

const char* usage_text() {
  return R"(usage: amprun --model PATH [options]

  --model PATH                 .amp or .onnx model
  --precision fp32|fp16|bf16|auto
                               default: fp16 on CUDA, fp32 on CPU; auto: fp16, bf16 where
                               the --calib data overflows fp16
  --calib DIR                  calibration samples (input_N.pb, or test_data_set_* folders;
                               repeatable): nodes whose values fp16 cannot hold stay fp32
                               (bf16 under auto)
  --accuracy cosine=C[,max_rel_err=E]
                               with --calib: pin the nodes that make the AMP plan miss this
                               target against fp32 to fp32 (a bisection search)
  --save-policy FILE           write the plan's policy (overrides and each node's dtype from
                               --calib / --accuracy): --policy FILE reloads it
  --backend auto|cpu|cuda      default auto (CUDA when a GPU is visible)
  --policy FILE.json           AMP overrides (see README "Policy file")
  --shape NAME=1x3x224x224     bind symbolic dims (repeatable)
  --inputs DIR                 input_N.pb files (ONNX test-data layout); default: seeded
                               random data in [-1, 1] (integers: [0, 10), {0, 1} for
                               an input whose name holds "mask")
  --compare DIR                output_N.pb references: per-output accuracy, exit 1 if beyond tolerance
  --compare-precision fp32     run the model again in fp32 and report accuracy against it
  --rtol R --atol A            tolerances, |diff| <= atol * max|ref| + rtol * |ref|
                               (default by precision: fp32 1e-3/1e-4, fp16 7.8e-3/3.9e-3,
                               bf16 and auto 6.3e-2/3.1e-2: 16 and 8 units of the type's
                               rounding)
  --warmup N                   warm-up runs (default 10)
  --iterations N               timed runs (default 100)
  --duration SECONDS           minimum timed duration (keeps running past --iterations)
  --threads N                  CPU threads per run (default: all cores)
  --adaptive-threads 0|1       let a run use one thread while that measures faster (a busy
                               neighbour; default 1, see runtime/thread_governor.h)
  --emulate-low-precision 0|1  run fp16/bf16 as planned even on a CPU that runs them no
                               faster than fp32 (default 0: fp32 there, and a note says why);
                               1 previews a GPU's AMP numerics on the CPU
  --precision-timing auto|on|off
                               time the AMP plan's nodes against fp32 at load and keep fp32
                               where low precision runs slower on this device (default
                               auto: where the device cannot tell without measuring, a CPU
                               with native bf16; on: CUDA too; runtime/precision_timing.h)
  --streams N                  concurrent execution contexts, one host thread each (default 1)
  --save-outputs DIR           write output_N.pb files
  --dump-plan FILE.json        the AMP precision plan
  --dump-dot FILE.dot          the plan as a Graphviz picture (green low, red fp32)
  --json-report FILE           machine-readable report
  --profile                    per-node times (mean of up to 50 extra runs), longest first:
                               op, dtype, kernel chosen, shapes, share of the total
  --profile-json FILE          one profiled run as a Chrome trace (chrome://tracing, Perfetto)
  --keep-io-types 0|1          outputs in the model's dtypes (default 1)
  --check-numerics             report the first low-precision node that produces Inf/NaN
  --memory-limit BYTES         cap on weights + packed weights + activation arena + inputs + outputs
  --seed N                     random input seed (default 1)
  --verbose                    print the planned graph
  --help
)";
}

std::optional<Args> parse_args(int argc, char** argv, std::string& error) {
  Args a;
  auto need = [&](int& i, const std::string& flag) -> const char* {
    if (i + 1 >= argc) {
      error = flag + " needs a value";
      return nullptr;
    }
    return argv[++i];
  };
  for (int i = 1; i < argc; ++i) {
    const std::string f = argv[i];
    const char* v = nullptr;
    long long n = 0;
    double d = 0;
    if (f == "--help" || f == "-h") {
      a.help = true;
      return a;
    } else if (f == "--verbose") {
      a.verbose = true;
    } else if (f == "--check-numerics") {
      a.check_numerics = true;
    } else if (f == "--profile") {
      a.profile = true;
    } else if (f == "--model") {
      if (!(v = need(i, f))) return std::nullopt;
      a.model = v;
    } else if (f == "--precision" || f == "--compare-precision") {
      if (!(v = need(i, f))) return std::nullopt;
      auto p = parse_precision(v);
      if (!p) {
        error = f + " must be fp32, fp16, bf16 or auto, got '" + v + "'";
        return std::nullopt;
      }
      (f == "--precision" ? a.precision : a.compare_precision) = *p;
    } else if (f == "--backend") {
      if (!(v = need(i, f)) || !parse_choice(f, v,
                                             {{"auto", amp::BackendKind::kAuto},
                                              {"cpu", amp::BackendKind::kCpu},
                                              {"cuda", amp::BackendKind::kCuda}},
                                             a.backend, error))
        return std::nullopt;
    } else if (f == "--precision-timing") {
      if (!(v = need(i, f)) || !parse_choice(f, v,
                                             {{"auto", amp::PrecisionTimingMode::kAuto},
                                              {"on", amp::PrecisionTimingMode::kOn},
                                              {"off", amp::PrecisionTimingMode::kOff}},
                                             a.precision_timing, error))
        return std::nullopt;
    } else if (f == "--calib") {
      if (!(v = need(i, f))) return std::nullopt;
      a.calibration_dirs.push_back(v);
    } else if (f == "--save-policy") {
      if (!(v = need(i, f))) return std::nullopt;
      a.save_policy = v;
    } else if (f == "--accuracy") {
      if (!(v = need(i, f))) return std::nullopt;
      // cosine=0.9999[,max_rel_err=0.01]
      amp::AccuracyTarget t;
      std::stringstream ss(v);
      std::string item;
      bool ok = true;
      while (ok && std::getline(ss, item, ',')) {
        const auto eq = item.find('=');
        double x = 0;
        ok = eq != std::string::npos && parse_double(item.substr(eq + 1), x) && x > 0;
        const std::string key = ok ? item.substr(0, eq) : "";
        if (key == "cosine" && x <= 1)
          t.min_cosine = x;
        else if (key == "max_rel_err")
          t.max_rel_err = x;
        else
          ok = false;
      }
      if (!ok || (t.min_cosine <= 0 && t.max_rel_err <= 0)) {
        error =
            "--accuracy expects cosine=C (0 < C <= 1) and/or max_rel_err=E (E > 0), "
            "comma-separated, got '" +
            std::string(v) + "'";
        return std::nullopt;
      }
      a.accuracy = t;
    } else if (f == "--policy") {
      if (!(v = need(i, f))) return std::nullopt;
      a.policy = v;
    } else if (f == "--shape") {
      if (!(v = need(i, f))) return std::nullopt;
      std::string name;
      std::vector<int64_t> dims;
      if (!parse_shape(v, name, dims)) {
        error = "--shape expects NAME=D1xD2x..., got '" + std::string(v) + "'";
        return std::nullopt;
      }
      a.shapes[name] = dims;
    } else if (f == "--inputs" || f == "--compare" || f == "--save-outputs" || f == "--dump-plan" ||
               f == "--dump-dot" || f == "--json-report" || f == "--profile-json") {
      if (!(v = need(i, f))) return std::nullopt;
      std::string& dst = f == "--inputs"         ? a.inputs_dir
                         : f == "--compare"      ? a.compare_dir
                         : f == "--save-outputs" ? a.save_outputs_dir
                         : f == "--dump-plan"    ? a.dump_plan
                         : f == "--dump-dot"     ? a.dump_dot
                         : f == "--json-report"  ? a.json_report
                                                 : a.profile_json;
      dst = v;
    } else if (f == "--rtol" || f == "--atol" || f == "--duration") {
      if (!(v = need(i, f))) return std::nullopt;
      if (!parse_double(v, d)) {
        error = f + " expects a non-negative number, got '" + std::string(v) + "'";
        return std::nullopt;
      }
      if (f == "--rtol")
        a.rtol = d;
      else if (f == "--atol")
        a.atol = d;
      else
        a.duration_s = d;
    } else if (f == "--warmup" || f == "--iterations" || f == "--threads" || f == "--streams" ||
               f == "--seed" || f == "--keep-io-types" || f == "--memory-limit" ||
               f == "--adaptive-threads" || f == "--emulate-low-precision") {
      if (!(v = need(i, f))) return std::nullopt;
      const long long lo = (f == "--iterations" || f == "--streams") ? 1 : 0;
      const long long hi =
          f == "--memory-limit" ? (1LL << 50)
          : f == "--keep-io-types" || f == "--adaptive-threads" || f == "--emulate-low-precision"
              ? 1
              : 1000000;
      if (!parse_int(v, lo, hi, n)) {
        error = f + " expects an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                "], got '" + std::string(v) + "'";
        return std::nullopt;
      }
      if (f == "--warmup")
        a.warmup = static_cast<int>(n);
      else if (f == "--iterations")
        a.iterations = static_cast<int>(n);
      else if (f == "--threads")
        a.threads = static_cast<int>(n);
      else if (f == "--streams")
        a.streams = static_cast<int>(n);
      else if (f == "--seed")
        a.seed = static_cast<int>(n);
      else if (f == "--keep-io-types")
        a.keep_io_types = n != 0;
      else if (f == "--adaptive-threads")
        a.adaptive_threads = n != 0;
      else if (f == "--emulate-low-precision")
        a.emulate_low_precision = n != 0;
      else
        a.memory_limit = static_cast<size_t>(n);
    } else {
      error = "unknown option '" + f + "'";
      return std::nullopt;
    }
  }
  if (a.model.empty()) {
    error = "--model is required";
    return std::nullopt;
  }
  return a;
}

}  // namespace amprun
