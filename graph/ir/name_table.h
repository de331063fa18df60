// NameTable: unique value or node names in O(1) per query. Building a set of every name
// per query would make a pass that names one new value per node quadratic in the graph
// size (minutes for a hostile 100,000-node model); passes, planners, the importer and
// GraphBuilder keep one NameTable for the whole run instead.
//
//   NameTable names = NameTable::values_of(g);   // every value name of g is taken
//   names.claim("x");                            // false when "x" is taken
//   std::string n = names.fresh("conv1.w");      // "conv1.w", "conv1.w_1", ...
//
// A NameTable is a snapshot: names added to the graph other than through it are not
// known to it.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "graph/ir/graph.h"

namespace amp::graph {

class NameTable {
 public:
  NameTable() = default;
  static NameTable values_of(const Graph& g);
  static NameTable nodes_of(const Graph& g);

  bool contains(const std::string& name) const { return used_.count(name) != 0; }
  // Reserves `name`; false when it is already taken.
  bool claim(const std::string& name) { return used_.insert(name).second; }
  // Reserves and returns `base`, or `base_1`, `base_2`, ... when taken. The next suffix
  // to try is remembered per base, so asking for one base k times costs O(k), not O(k^2).
  std::string fresh(const std::string& base);

 private:
  std::unordered_set<std::string> used_;
  std::unordered_map<std::string, int64_t> next_suffix_;
};

}  // namespace amp::graph
