// AmpPolicy: what the AMP planner may do, and the user's overrides.
//
// Precedence (lowest to highest): the built-in color table (ops/op_types.def, from
// ../shared/amp-default-colors.md) < node-dependent rules (casting_checker.h) < the JSON
// policy file's "op_types" < its "nodes" (exact name or glob, later entries win) < the C++
// callback. An override that cannot be obeyed (no kernel for the low type) is an error,
// never silently ignored.
//
// Policy file (JSON):
//   {
//     "target": "fp16",               // optional: "fp16" | "bf16"; Options.precision wins
//     "keep_io_types": true,          // optional
//     "clamp_weights": false,         // clamp out-of-range weights to the low type's max
//     "op_types": { "Softmax": "ALWAYS", "Add": "NEVER" },
//     "nodes":    { "/decoder/logits/MatMul": "NEVER", "/encoder/*/LayerNorm*": "ALWAYS" },
//     "node_dtypes": { "/ff/wi/MatMul": "bf16", "/ff/wo/MatMul": "fp32" }
//   }
// "node_dtypes" (exact names) sets node_hints below: what calibration and the accuracy
// search decide, saved (amp_policy_json, amprun --save-policy) so a later load skips them.
// Colors: "ALWAYS" (low), "NEVER" (fp32), "FOLLOW" (the default rule). Unknown keys, op
// names or colors are errors naming the key.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "graph/ir/graph.h"
#include "runtime/common/status.h"

namespace amp::graph {

// The AMP planner's converted constants, by source buffer and target dtype. Valid while the
// source graph's constants live (the key is their storage address); thread-safe.
class ConvertedWeights {
 public:
  struct Entry {
    TensorData data;
    int64_t overflowed = 0;  // elements beyond the low type's range
  };
  std::optional<Entry> find(const TensorData& src, DType want) const;
  void put(const TensorData& src, DType want, Entry e);

 private:
  using Key = std::tuple<const uint8_t*, int64_t, DType, DType>;
  static Key key(const TensorData& src, DType want) {
    return {src.bytes(), src.numel(), src.dtype(), want};
  }
  mutable std::mutex mu_;
  std::map<Key, Entry> entries_;
};

struct AmpPolicy {
  DType target = DType::kF16;  // kF16 or kBF16
  bool keep_io_types = true;
  bool clamp_weights = false;
  std::vector<std::pair<OpType, AmpColor>> op_overrides;
  std::vector<std::pair<std::string, AmpColor>> node_overrides;  // name or glob (*, ?)
  // Highest precedence: return a color to pin the node, nullopt to leave it.
  std::function<std::optional<AmpColor>(const Node&)> callback;
  // Per-node precision from observed data (runtime/calibration.h), by node name: kF32 keeps
  // the node fp32 (color NEVER), kF16 / kBF16 is the low type it computes in when it runs
  // low (instead of `target`). A user's pin (op_types, nodes, callback) wins over a hint.
  struct NodeHint {
    DType dtype = DType::kF32;
    std::string reason;  // for the report, naming its source: "calibration: observed ..."
  };
  std::map<std::string, NodeHint> node_hints;
  // Set by callers that plan the same graph many times (the accuracy search, precision
  // timing): the planner's converted weights, reused instead of converted again per plan.
  std::shared_ptr<ConvertedWeights> weight_cache;
};

// Parses a policy file's text into `policy` (fields not in the text keep their values).
Status parse_amp_policy_json(const std::string& json_text, AmpPolicy& policy);
Status load_amp_policy_file(const std::string& path, AmpPolicy& policy);

// The policy as policy-file JSON (the callback, which has no text form, left out).
std::string amp_policy_json(const AmpPolicy& policy);

// Glob match with '*' (any run, including '/') and '?' (one char).
bool glob_match(const std::string& pattern, const std::string& text);

}  // namespace amp::graph
