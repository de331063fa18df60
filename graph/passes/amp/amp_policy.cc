#include "graph/passes/amp/amp_policy.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace amp::graph {
namespace {

Result<AmpColor> parse_color(const nlohmann::ordered_json& v, const std::string& where) {
  if (!v.is_string()) return invalid_argument(where + ": color must be a string");
  const std::string s = v.get<std::string>();
  if (s == "ALWAYS") return AmpColor::kAlways;
  if (s == "NEVER") return AmpColor::kNever;
  if (s == "FOLLOW") return AmpColor::kFollow;
  return invalid_argument(where + ": unknown color '" + s + "' (use ALWAYS, NEVER or FOLLOW)");
}

}  // namespace

bool glob_match(const std::string& p, const std::string& t) {
  // Iterative wildcard matching with backtracking to the last '*'.
  size_t pi = 0, ti = 0, star = std::string::npos, mark = 0;
  while (ti < t.size()) {
    if (pi < p.size() && (p[pi] == '?' || p[pi] == t[ti])) {
      ++pi;
      ++ti;
    } else if (pi < p.size() && p[pi] == '*') {
      star = pi++;
      mark = ti;
    } else if (star != std::string::npos) {
      pi = star + 1;
      ti = ++mark;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

Status parse_amp_policy_json(const std::string& text, AmpPolicy& policy) {
  nlohmann::ordered_json j =
      nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return invalid_argument("AMP policy: not valid JSON");
  if (!j.is_object()) return invalid_argument("AMP policy: the top level must be an object");
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    const nlohmann::ordered_json& v = it.value();
    if (key == "target") {
      if (!v.is_string()) return invalid_argument("AMP policy: 'target' must be a string");
      const std::string s = v.get<std::string>();
      if (s == "fp16" || s == "f16")
        policy.target = DType::kF16;
      else if (s == "bf16")
        policy.target = DType::kBF16;
      else
        return invalid_argument("AMP policy: 'target' must be fp16 or bf16, got '" + s + "'");
    } else if (key == "keep_io_types" || key == "clamp_weights") {
      if (!v.is_boolean())
        return invalid_argument("AMP policy: '" + key + "' must be true or false");
      (key == "keep_io_types" ? policy.keep_io_types : policy.clamp_weights) = v.get<bool>();
    } else if (key == "op_types") {
      if (!v.is_object()) return invalid_argument("AMP policy: 'op_types' must be an object");
      for (auto o = v.begin(); o != v.end(); ++o) {
        auto op = op_from_name(o.key());
        if (!op) return invalid_argument("AMP policy: op_types: unknown op type '" + o.key() + "'");
        AMP_ASSIGN_OR_RETURN(AmpColor c, parse_color(o.value(), "AMP policy: op_types." + o.key()));
        policy.op_overrides.emplace_back(*op, c);
      }
    } else if (key == "nodes") {
      if (!v.is_object()) return invalid_argument("AMP policy: 'nodes' must be an object");
      for (auto o = v.begin(); o != v.end(); ++o) {
        AMP_ASSIGN_OR_RETURN(AmpColor c, parse_color(o.value(), "AMP policy: nodes." + o.key()));
        policy.node_overrides.emplace_back(o.key(), c);
      }
    } else if (key == "node_dtypes") {
      if (!v.is_object()) return invalid_argument("AMP policy: 'node_dtypes' must be an object");
      for (auto o = v.begin(); o != v.end(); ++o) {
        const std::string where = "AMP policy: node_dtypes." + o.key();
        if (!o.value().is_string()) return invalid_argument(where + ": must be a string");
        const std::string s = o.value().get<std::string>();
        const DType t = s == "fp32" || s == "f32"   ? DType::kF32
                        : s == "fp16" || s == "f16" ? DType::kF16
                        : s == "bf16"               ? DType::kBF16
                                                    : DType::kUndefined;
        if (t == DType::kUndefined)
          return invalid_argument(where + ": unknown dtype '" + s + "' (use fp32, fp16 or bf16)");
        policy.node_hints[o.key()] = {t, "policy node_dtypes: " + s};
      }
    } else {
      return invalid_argument(
          "AMP policy: unknown key '" + key +
          "' (expected target, keep_io_types, clamp_weights, op_types, nodes, node_dtypes)");
    }
  }
  return Status::ok();
}

std::string amp_policy_json(const AmpPolicy& policy) {
  auto color = [](AmpColor c) { return std::string(amp_color_name(c)); };
  nlohmann::ordered_json j;
  j["target"] = policy.target == DType::kBF16 ? "bf16" : "fp16";
  j["keep_io_types"] = policy.keep_io_types;
  j["clamp_weights"] = policy.clamp_weights;
  j["op_types"] = nlohmann::ordered_json::object();
  for (const auto& [op, c] : policy.op_overrides)
    j["op_types"][std::string(op_name(op))] = color(c);
  j["nodes"] = nlohmann::ordered_json::object();
  for (const auto& [pattern, c] : policy.node_overrides) j["nodes"][pattern] = color(c);
  j["node_dtypes"] = nlohmann::ordered_json::object();
  for (const auto& [name, hint] : policy.node_hints)
    j["node_dtypes"][name] = hint.dtype == DType::kF32    ? "fp32"
                             : hint.dtype == DType::kBF16 ? "bf16"
                                                          : "fp16";
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::optional<ConvertedWeights::Entry> ConvertedWeights::find(const TensorData& src,
                                                              DType want) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(key(src, want));
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

void ConvertedWeights::put(const TensorData& src, DType want, Entry e) {
  std::lock_guard<std::mutex> lock(mu_);
  entries_.emplace(key(src, want), std::move(e));
}

Status load_amp_policy_file(const std::string& path, AmpPolicy& policy) {
  std::ifstream f(path);
  if (!f) return not_found("cannot open AMP policy file '" + path + "'");
  std::stringstream ss;
  ss << f.rdbuf();
  return parse_amp_policy_json(ss.str(), policy).with_context(path);
}

}  // namespace amp::graph
