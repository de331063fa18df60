#include "tools/amprun/profile_report.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace amprun {
namespace {

using nlohmann::ordered_json;

double summed_ms(const std::vector<ProfileRow>& rows) {
  double sum = 0;
  for (const ProfileRow& r : rows)
    if (!r.node.control_flow) sum += r.mean_ms;
  return sum;
}

std::vector<const ProfileRow*> longest_first(const std::vector<ProfileRow>& rows) {
  std::vector<const ProfileRow*> order;
  for (const ProfileRow& r : rows) order.push_back(&r);
  std::stable_sort(order.begin(), order.end(), [](const ProfileRow* a, const ProfileRow* b) {
    return a->mean_ms > b->mean_ms;
  });
  return order;
}

std::string clip(const std::string& s, size_t width) {
  return s.size() <= width ? s : s.substr(0, width - 3) + "...";
}

}  // namespace

std::vector<ProfileRow> aggregate_profiles(const std::vector<amp::RunProfile>& runs) {
  std::vector<ProfileRow> rows;
  std::map<std::tuple<int, std::string, std::string>, size_t> index;
  for (const amp::RunProfile& run : runs) {
    for (const amp::NodeProfile& n : run.nodes) {
      auto key = std::make_tuple(n.depth, n.name, n.op);
      auto it = index.find(key);
      if (it == index.end()) {
        it = index.emplace(key, rows.size()).first;
        rows.push_back(ProfileRow{n, 0, 0});
      }
      ProfileRow& r = rows[it->second];
      r.mean_ms += n.duration_ms;
      ++r.calls;
    }
  }
  const double n = runs.empty() ? 1.0 : static_cast<double>(runs.size());
  for (ProfileRow& r : rows) {
    r.mean_ms /= n;
    r.calls = static_cast<int>((r.calls + runs.size() / 2) / std::max<size_t>(1, runs.size()));
  }
  return rows;
}

void print_profile_table(std::FILE* out, const std::vector<ProfileRow>& rows, int runs,
                         double mean_run_ms) {
  const double sum = summed_ms(rows);
  std::fprintf(out, "  %d profiled runs: mean %.3f ms a run, %.3f ms of it in nodes\n", runs,
               mean_run_ms, sum);
  std::fprintf(out, "  %9s %6s %6s  %-28s %-18s %-5s %-52s %s\n", "ms", "share", "calls", "node",
               "op", "dtype", "implementation", "shapes");
  for (const ProfileRow* r : longest_first(rows)) {
    const amp::NodeProfile& n = r->node;
    const std::string name = std::string(static_cast<size_t>(2 * n.depth), ' ') + n.name;
    char share[16];
    if (n.control_flow)
      std::snprintf(share, sizeof share, "%s", "(span)");
    else
      std::snprintf(share, sizeof share, "%5.1f%%", sum > 0 ? 100.0 * r->mean_ms / sum : 0.0);
    std::fprintf(out, "  %9.4f %6s %6d  %-28s %-18s %-5s %-52s %s\n", r->mean_ms, share, r->calls,
                 clip(name, 28).c_str(), clip(n.op, 18).c_str(), n.dtype.c_str(),
                 clip(n.implementation, 52).c_str(), n.shapes.c_str());
  }
}

ordered_json profile_rows_json(const std::vector<ProfileRow>& rows) {
  const double sum = summed_ms(rows);
  ordered_json j = ordered_json::array();
  for (const ProfileRow* r : longest_first(rows)) {
    const amp::NodeProfile& n = r->node;
    j.push_back({{"node", n.name},
                 {"op", n.op},
                 {"implementation", n.implementation},
                 {"dtype", n.dtype},
                 {"shapes", n.shapes},
                 {"depth", n.depth},
                 {"control_flow", n.control_flow},
                 {"calls", r->calls},
                 {"mean_ms", r->mean_ms},
                 {"share", n.control_flow || sum <= 0 ? 0.0 : r->mean_ms / sum}});
  }
  return j;
}

ordered_json chrome_trace(const amp::RunProfile& run, const std::string& model,
                          const std::string& device) {
  ordered_json events = ordered_json::array();
  events.push_back({{"name", "process_name"},
                    {"ph", "M"},
                    {"pid", 1},
                    {"tid", 1},
                    {"args", {{"name", "amprun " + model + " (" + device + ")"}}}});
  for (const amp::NodeProfile& n : run.nodes) {
    events.push_back({{"name", n.name},
                      {"cat", n.control_flow ? "control_flow" : "node"},
                      {"ph", "X"},
                      {"ts", n.start_ms * 1000.0},
                      {"dur", n.duration_ms * 1000.0},
                      {"pid", 1},
                      {"tid", 1},
                      {"args",
                       {{"op", n.op},
                        {"implementation", n.implementation},
                        {"dtype", n.dtype},
                        {"shapes", n.shapes}}}});
  }
  ordered_json j;
  j["traceEvents"] = std::move(events);
  j["displayTimeUnit"] = "ms";
  j["otherData"] = {{"model", model}, {"device", device}, {"run_ms", run.total_ms}};
  return j;
}

}  // namespace amprun
