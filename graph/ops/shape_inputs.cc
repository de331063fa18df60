#include "graph/ops/shape_inputs.h"

#include <optional>

#include "graph/ir/name_table.h"

namespace amp::graph {

std::vector<size_t> shape_determining_inputs(const Graph& g) {
  std::vector<size_t> out;
  for (size_t k = 0; k < g.inputs.size(); ++k) {
    const ValueId v = g.inputs[k];
    bool used = false;
    for (const Node& n : g.nodes)
      for (size_t i = 0; i < n.inputs.size() && !used; ++i)
        used = n.inputs[i] == v && is_shape_input(n.op, i);
    if (used) out.push_back(k);
  }
  return out;
}

Status bind_shape_input_values(Graph& g, const std::vector<std::optional<TensorData>>& values) {
  if (values.size() != g.inputs.size())
    return internal_error("bind_shape_input_values: one value slot per graph input expected");
  // One table for all inputs (O(1) per name), built only when a value is bound: a plan
  // build calls this with every slot empty for most models.
  std::optional<NameTable> names;
  for (size_t k = 0; k < values.size(); ++k) {
    if (!values[k]) continue;
    if (!names) names = NameTable::values_of(g);
    const ValueId in = g.inputs[k];
    if (values[k]->dtype() != g.value(in).dtype)
      return invalid_input("input '" + g.value(in).name + "' has dtype " +
                           std::string(dtype_name(values[k]->dtype())) + ", expected " +
                           std::string(dtype_name(g.value(in).dtype)));
    Value c;
    c.name = names->fresh(g.value(in).name + ".bound");
    c.dtype = values[k]->dtype();
    c.shape = Shape::from_static(values[k]->dims());
    c.constant = *values[k];
    const ValueId cid = g.add_value(std::move(c));
    for (Node& n : g.nodes)
      for (size_t i = 0; i < n.inputs.size(); ++i)
        if (n.inputs[i] == in && is_shape_input(n.op, i)) n.inputs[i] = cid;
  }
  return Status::ok();
}

}  // namespace amp::graph
