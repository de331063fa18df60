#include "graph/ir/attribute.h"

namespace amp::graph {

const char* attr_kind_name(const AttrValue& v) {
  switch (v.index()) {
    case 0:
      return "int";
    case 1:
      return "float";
    case 2:
      return "string";
    case 3:
      return "ints";
    case 4:
      return "floats";
    case 5:
      return "strings";
    case 6:
      return "tensor";
    case 7:
      return "graph";
  }
  return "?";
}

namespace {

template <typename T>
Result<T> get_typed(const std::map<std::string, AttrValue>& m, const std::string& name,
                    const T& def, const char* want) {
  auto it = m.find(name);
  if (it == m.end()) return def;
  if (const T* v = std::get_if<T>(&it->second)) return *v;
  return invalid_model("attribute '" + name + "' should be " + want + " but is " +
                       attr_kind_name(it->second));
}

}  // namespace

Result<int64_t> Attributes::get_int(const std::string& name, int64_t def) const {
  return get_typed<int64_t>(values_, name, def, "int");
}
Result<float> Attributes::get_float(const std::string& name, float def) const {
  // ONNX writers sometimes store an integral float attribute as int: accept it.
  auto it = values_.find(name);
  if (it != values_.end()) {
    if (const int64_t* i = std::get_if<int64_t>(&it->second)) return static_cast<float>(*i);
  }
  return get_typed<float>(values_, name, def, "float");
}
Result<std::string> Attributes::get_string(const std::string& name, const std::string& def) const {
  return get_typed<std::string>(values_, name, def, "string");
}
Result<std::vector<int64_t>> Attributes::get_ints(const std::string& name,
                                                  const std::vector<int64_t>& def) const {
  return get_typed<std::vector<int64_t>>(values_, name, def, "ints");
}
Result<std::vector<float>> Attributes::get_floats(const std::string& name,
                                                  const std::vector<float>& def) const {
  return get_typed<std::vector<float>>(values_, name, def, "floats");
}
Result<std::vector<std::string>> Attributes::get_strings(
    const std::string& name, const std::vector<std::string>& def) const {
  return get_typed<std::vector<std::string>>(values_, name, def, "strings");
}
Result<std::optional<TensorData>> Attributes::get_tensor(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::optional<TensorData>();
  if (const TensorData* t = std::get_if<TensorData>(&it->second))
    return std::optional<TensorData>(*t);
  return invalid_model("attribute '" + name + "' should be tensor but is " +
                       attr_kind_name(it->second));
}

Result<std::shared_ptr<const Graph>> Attributes::get_graph(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return invalid_model("missing graph attribute '" + name + "'");
  if (const SubgraphAttr* s = std::get_if<SubgraphAttr>(&it->second); s && s->graph)
    return s->graph;
  return invalid_model("attribute '" + name + "' should be graph but is " +
                       attr_kind_name(it->second));
}

}  // namespace amp::graph
