// Node attributes: a small typed map, ONNX attribute kinds minus subgraphs.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "graph/ir/tensor_data.h"

namespace amp::graph {

using AttrValue = std::variant<int64_t, float, std::string, std::vector<int64_t>,
                               std::vector<float>, std::vector<std::string>, TensorData>;

// The kind names used in error messages and the file format: "int", "float", "string",
// "ints", "floats", "strings", "tensor".
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

 private:
  std::map<std::string, AttrValue> values_;  // ordered: deterministic files and dumps
};

}  // namespace amp::graph
