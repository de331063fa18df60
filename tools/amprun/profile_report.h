// amprun --profile and --profile-json: per-node times of profiled runs
// (amp::ExecutionContext::set_profiling), as a table sorted by time and as a Chrome trace
// (the Trace Event Format that chrome://tracing and Perfetto open).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "amp/engine.h"

namespace amprun {

// One node over several runs. Nodes that run more than once a run (in a Loop or Scan
// body) are summed per run; `calls` counts them.
struct ProfileRow {
  amp::NodeProfile node;  // the first run's description; duration_ms unused
  double mean_ms = 0;     // per run
  int calls = 0;          // per run
};

// Rows in first-execution order, keyed by (depth, name, op).
std::vector<ProfileRow> aggregate_profiles(const std::vector<amp::RunProfile>& runs);

// The table, longest first. Shares are of the summed node times (control-flow spans, which
// include their bodies' nodes, are shown but not summed).
void print_profile_table(std::FILE* out, const std::vector<ProfileRow>& rows, int runs,
                         double mean_run_ms);

// For amprun's JSON report: the rows, longest first.
nlohmann::ordered_json profile_rows_json(const std::vector<ProfileRow>& rows);

// One run as a Chrome trace: a complete ("X") event per executed node, microseconds.
nlohmann::ordered_json chrome_trace(const amp::RunProfile& run, const std::string& model,
                                    const std::string& device);

}  // namespace amprun
