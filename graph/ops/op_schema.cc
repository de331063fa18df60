#include "graph/ops/op_schema.h"

#include <array>

#include "graph/ops/infer_rules.h"

namespace amp::graph {
namespace {

#define ARITY(min, max) min, max
constexpr std::array<OpSchema, kOpCount> kSchemas = {{
#define AMP_OP(name, traits, color, opsets, inputs, outputs, infer, keep_dtype, shape_inputs, \
               moved)                                                                         \
  {inputs, outputs, &infer},
#include "graph/ops/op_types.def"
#undef AMP_OP
}};
#undef ARITY

}  // namespace

const OpSchema& op_schema(OpType op) {
  return kSchemas[static_cast<size_t>(op)];
}

}  // namespace amp::graph
