// Node attributes: a small typed map of the ONNX attribute kinds, subgraphs included.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "graph/ir/tensor_data.h"

namespace amp::graph {

class Graph;

// A subgraph-valued attribute: If's branches, Loop's and Scan's body (graph/ops/control_flow.h
// says how their inputs line up with the node's). Immutable and shared: copying a graph copies
// the pointer, and a pass that changes a body stores a new one, so plans built concurrently
// from one engine graph never see a body change under them. Compared deeply.
struct SubgraphAttr {
  std::shared_ptr<const Graph> graph;
  bool operator==(const SubgraphAttr& o) const;  // defined in graph.cc, where Graph is complete
};

using AttrValue =
    std::variant<int64_t, float, std::string, std::vector<int64_t>, std::vector<float>,
                 std::vector<std::string>, TensorData, SubgraphAttr>;

// The kind names used in error messages and the file format: "int", "float", "string",
// "ints", "floats", "strings", "tensor", "graph".
const char* attr_kind_name(const AttrValue& v);

class Attributes {
 public:
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  void set(const std::string& name, AttrValue v) { values_[name] = std::move(v); }
  void erase(const std::string& name) { values_.erase(name); }
  const std::map<std::string, AttrValue>& all() const { return values_; }
  bool empty() const { return values_.empty(); }
  bool operator==(const Attributes& o) const { return values_ == o.values_; }

  // Typed getters: the default when absent. A present attribute of the wrong kind is
  // an error naming it (a hostile file may put a string where an int belongs).
  Result<int64_t> get_int(const std::string& name, int64_t def) const;
  Result<float> get_float(const std::string& name, float def) const;
  Result<std::string> get_string(const std::string& name, const std::string& def) const;
  Result<std::vector<int64_t>> get_ints(const std::string& name,
                                        const std::vector<int64_t>& def = {}) const;
  Result<std::vector<float>> get_floats(const std::string& name,
                                        const std::vector<float>& def = {}) const;
  Result<std::vector<std::string>> get_strings(const std::string& name,
                                               const std::vector<std::string>& def = {}) const;
  // nullopt when absent.
  Result<std::optional<TensorData>> get_tensor(const std::string& name) const;
  // An error naming the attribute when absent or not a graph.
  Result<std::shared_ptr<const Graph>> get_graph(const std::string& name) const;

 private:
  std::map<std::string, AttrValue> values_;  // ordered: deterministic files and dumps
};

}  // namespace amp::graph
