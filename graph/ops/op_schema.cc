#include "graph/ops/op_schema.h"

#include <array>

#include "graph/ops/infer_rules.h"

namespace amp::graph {
namespace {

// {min_inputs, max_inputs (-1 variadic), min_outputs, max_outputs, rule}
constexpr std::array<OpSchema, kOpCount> kSchemas = {{
#define AMP_OP(name, traits, color) kSchema##name,
#include "graph/ops/op_types.def"
#undef AMP_OP
}};

}  // namespace

const OpSchema& op_schema(OpType op) {
  return kSchemas[static_cast<size_t>(op)];
}

}  // namespace amp::graph
