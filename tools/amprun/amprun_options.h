// amprun's command line: parsing and validation (every bad flag is a usage error that
// names the flag).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "amp/options.h"

namespace amprun {

struct Args {
  std::string model;
  std::optional<amp::Precision> precision;  // default: fp16 on CUDA, fp32 on CPU
  amp::BackendKind backend = amp::BackendKind::kAuto;
  std::string policy;
  std::vector<std::string> calibration_dirs;    // --calib DIR (repeatable)
  std::optional<amp::AccuracyTarget> accuracy;  // --accuracy cosine=0.9999,max_rel_err=0.01
  std::string save_policy;                      // --save-policy FILE
  std::map<std::string, std::vector<int64_t>> shapes;
  std::string inputs_dir;
  std::string compare_dir;
  std::optional<amp::Precision> compare_precision;
  std::optional<double> rtol, atol;
  int warmup = 10;
  int iterations = 100;
  double duration_s = 0;
  int threads = 0;
  int streams = 1;
  std::string save_outputs_dir;
  std::string dump_plan;
  std::string dump_dot;
  std::string json_report;
  bool profile = false;      // per-node table
  std::string profile_json;  // Chrome trace of one profiled run
  bool keep_io_types = true;
  bool adaptive_threads = true;
  bool emulate_low_precision = false;
  amp::PrecisionTimingMode precision_timing = amp::PrecisionTimingMode::kAuto;
  bool check_numerics = false;
  size_t memory_limit = 0;
  int seed = 1;
  bool verbose = false;
  bool help = false;
};

// Returns the parsed arguments or an error message for the usage line.
std::optional<Args> parse_args(int argc, char** argv, std::string& error);
const char* usage_text();

}  // namespace amprun
