#include "tools/convert/summary.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

namespace amp::tools {
namespace {

using graph::Graph;
using graph::Value;
using graph::ValueId;

std::string describe_value(const Value& v) {
  std::ostringstream s;
  s << v.name << " " << dtype_name(v.dtype) << " "
    << (v.shape ? v.shape->to_string() : std::string("[rank unknown]"));
  return s.str();
}

void print_values(std::ostringstream& out, const char* title, const Graph& g,
                  const std::vector<ValueId>& ids) {
  out << title << ids.size() << "\n";
  for (ValueId id : ids) out << "  " << describe_value(g.value(id)) << "\n";
}

std::string human_bytes(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

// "Conv 20, Relu 18, Add 5" wrapped to the terminal width; most frequent first.
void print_histogram(std::ostringstream& out, const Graph& g) {
  std::map<std::string_view, int64_t> counts;
  for (const graph::Node& n : g.nodes) ++counts[graph::op_name(n.op)];
  std::vector<std::pair<std::string_view, int64_t>> sorted(counts.begin(), counts.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  constexpr size_t kWidth = 88;
  std::string line = "  ";
  for (size_t i = 0; i < sorted.size(); ++i) {
    std::string item = std::string(sorted[i].first) + " " + std::to_string(sorted[i].second);
    if (i + 1 < sorted.size()) item += ",";
    if (line.size() > 2 && line.size() + item.size() + 1 > kWidth) {
      out << line << "\n";
      line = "  ";
    }
    if (line.size() > 2) line += ' ';
    line += item;
  }
  if (line.size() > 2) out << line << "\n";
}

}  // namespace

std::string graph_summary(const Graph& g, const std::string& model_path) {
  std::ostringstream out;
  out << "model:     " << model_path << "\n";
  out << "producer:  " << (g.metadata.producer.empty() ? "(unknown)" : g.metadata.producer) << "\n";
  out << "source:    " << g.metadata.source_format << ", ai.onnx opset " << g.metadata.source_opset
      << "\n";
  print_values(out, "inputs:    ", g, g.inputs);
  print_values(out, "outputs:   ", g, g.outputs);
  out << "nodes:     " << g.nodes.size() << "\n";
  print_histogram(out, g);
  uint64_t constants = 0;
  uint64_t bytes = 0;
  for (const Value& v : g.values) {
    if (!v.is_constant()) continue;
    ++constants;
    bytes += v.constant->byte_size();
  }
  out << "constants: " << constants << " (" << human_bytes(bytes) << " of weights)\n";
  return out.str();
}

}  // namespace amp::tools
