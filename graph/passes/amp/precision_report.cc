#include "graph/passes/amp/precision_report.h"

#include <nlohmann/json.hpp>

#include <map>
#include <sstream>

namespace amp::graph {

std::string precision_report_json(const AmpReport& r, int indent) {
  nlohmann::ordered_json j;
  j["target"] = std::string(dtype_name(r.target));
  j["nodes"] = r.nodes_total;
  j["nodes_low"] = r.nodes_low;
  j["casts"] = r.casts;
  j["cast_bytes_per_run"] = r.cast_bytes_per_run;
  j["low_flops_fraction"] = r.low_flops_fraction();
  j["weights_bytes_fp32"] = r.weights_bytes_before;
  j["weights_bytes"] = r.weights_bytes_after;
  j["weight_values_overflowed"] = r.weight_values_overflowed;
  j["weights_clamped"] = r.weights_clamped;
  j["fallbacks"] = nlohmann::ordered_json::array();
  for (const auto& f : r.fallbacks)
    j["fallbacks"].push_back({{"node", f.node}, {"op", f.op}, {"reason", f.reason}});
  j["plan"] = nlohmann::ordered_json::array();
  for (const auto& n : r.nodes)
    j["plan"].push_back({{"node", n.node},
                         {"op", n.op},
                         {"color", n.color},
                         {"dtype", std::string(dtype_name(n.dtype))},
                         {"reason", n.reason}});
  // Node and op names come from the model file, which need not be UTF-8 (ONNX strings are
  // proto2 bytes); the default handler would throw. Invalid bytes become U+FFFD.
  return j.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

namespace {

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

namespace {

using ReportIndex = std::map<std::string, const AmpNodeReport*>;

// One graph's nodes and edges; an If/Loop/Scan body becomes a dashed cluster after its node,
// its nodes looked up in the report as "<node>/<attribute>/<body node>" and given DOT ids
// under the node's ("n3_body_n0").
void emit_graph(std::ostringstream& os, const Graph& g, const ReportIndex& by_name,
                const std::string& report_prefix, const std::string& id_prefix) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    const std::string id = id_prefix + "n" + std::to_string(i);
    std::string color = "lightgray";
    DType dt = DType::kF32;
    for (ValueId v : n.outputs)
      if (v != kNoValue && is_float(g.value(v).dtype)) dt = g.value(v).dtype;
    auto it = by_name.find(report_prefix + n.name);
    const bool inserted = it == by_name.end();
    if (!inserted && it->second->color != "-")
      // Three colors: fp16, bf16 (a calibrated plan mixes them), fp32.
      color = it->second->dtype == DType::kF16    ? "palegreen"
              : it->second->dtype == DType::kBF16 ? "lightskyblue"
                                                  : "lightcoral";
    os << "  " << id << " [label=\"" << escape(n.name) << "\\n"
       << op_name(n.op) << " " << dtype_name(dt) << "\", fillcolor=" << color
       << (inserted ? ", shape=ellipse, fontsize=9" : "") << "];\n";
    for (const auto& [name, attr] : n.attrs.all()) {
      const auto* sub = std::get_if<SubgraphAttr>(&attr);
      if (!sub) continue;
      const std::string body_id = id + "_" + name + "_";
      os << "  subgraph cluster_" << id << "_" << name << " {\n  label=\"" << escape(n.name) << ": "
         << name << "\"; style=dashed;\n";
      emit_graph(os, *sub->graph, by_name, report_prefix + n.name + "/" + name + "/", body_id);
      os << "  }\n";
      if (!sub->graph->nodes.empty())
        os << "  " << id << " -> " << body_id << "n0 [style=dotted];\n";
    }
  }
  std::vector<NodeId> producer = compute_producers(g);
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (ValueId v : g.nodes[i].inputs)
      if (v != kNoValue && producer[static_cast<size_t>(v)] >= 0)
        os << "  " << id_prefix << "n" << producer[static_cast<size_t>(v)] << " -> " << id_prefix
           << "n" << i << ";\n";
}

}  // namespace

std::string precision_report_dot(const Graph& g, const AmpReport& r) {
  ReportIndex by_name;
  for (const auto& n : r.nodes) by_name[n.node] = &n;
  std::ostringstream os;
  os << "digraph amp_plan {\n  rankdir=TB;\n  node [shape=box, style=filled, "
        "fontname=\"Helvetica\"];\n";
  emit_graph(os, g, by_name, "", "");
  os << "}\n";
  return os.str();
}

}  // namespace amp::graph
