// PLACEHOLDER until the op-family rules land: every op has a permissive arity and no rule.
#pragma once
#include "ops/op_schema.h"
namespace amp::graph {
#define AMP_OP(name, traits, color) inline constexpr OpSchema kSchema##name = {0, -1, 0, 8, nullptr};
#include "ops/op_types.def"
#undef AMP_OP
}  // namespace amp::graph
