// The AMP precision report, for people (Graphviz DOT: green = low precision, gray = not
// colored (no float data, model casts), red = fp32) and for tools (JSON, the
// "precision_plan" object of amprun's --json-report):
//   { "target": "f16", "nodes": 120, "nodes_low": 97, "casts": 6, "cast_bytes_per_run": 1234,
//     "low_flops_fraction": 0.998, "weights_bytes_fp32": 4000, "weights_bytes": 2000,
//     "weight_values_overflowed": 0, "weights_clamped": false,
//     "fallbacks": [{"node": "...", "op": "...", "reason": "..."}],
//     "plan": [{"node": "...", "op": "Conv", "color": "ALWAYS", "dtype": "f16", "reason": "..."}] }
#pragma once

#include <string>

#include "graph/ir/graph.h"
#include "graph/passes/amp/amp_planner.h"

namespace amp::graph {

// Names that are not valid UTF-8 (a model file's bytes) are written with U+FFFD in place
// of the invalid bytes; this never throws.
std::string precision_report_json(const AmpReport& report, int indent = 2);
// `planned` is the graph after planning (casts drawn as small boxes).
std::string precision_report_dot(const Graph& planned, const AmpReport& report);

}  // namespace amp::graph
