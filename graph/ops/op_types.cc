#include "graph/ops/op_types.h"

#include <array>
#include <bit>

namespace amp::graph {
namespace {

struct OpInfo {
  std::string_view name;
  uint32_t traits;
  AmpColor color;
  OpsetMask opsets;
  InputSet keep_dtype;
  InputSet shape_inputs;
  MovedAttribute moved;
};

#define ALWAYS AmpColor::kAlways
#define FOLLOW AmpColor::kFollow
#define NEVER AmpColor::kNever
#define OPSETS(...) opset_mask({__VA_ARGS__})
#define INPUTS(...) input_set({__VA_ARGS__})
#define NO_INPUTS \
  InputSet {}
#define MOVED_INTS(attr, input, before_opset, required) \
  MovedAttribute {                                      \
    attr, input, before_opset, required                 \
  }
#define NOT_MOVED \
  MovedAttribute {}

constexpr std::array<OpInfo, kOpCount> kOps = {{
#define AMP_OP(name, traits, color, opsets, inputs, outputs, infer, keep_dtype, shape_inputs, \
               moved)                                                                         \
  {#name, static_cast<uint32_t>(traits), color, opsets, keep_dtype, shape_inputs, moved},
#include "graph/ops/op_types.def"
#undef AMP_OP
}};

#undef ALWAYS
#undef FOLLOW
#undef NEVER
#undef OPSETS
#undef INPUTS
#undef NO_INPUTS
#undef MOVED_INTS
#undef NOT_MOVED

// Every op names at least one opset, within the mask's 31 bits.
constexpr bool every_op_has_an_opset() {
  for (const OpInfo& op : kOps)
    if (op.opsets == 0 || (op.opsets & 1u) != 0) return false;
  return true;
}
static_assert(every_op_has_an_opset(), "op_types.def: an op without OPSETS(...)");

const OpInfo& info(OpType op) {
  return kOps[static_cast<size_t>(op)];
}

}  // namespace

std::string_view op_name(OpType op) {
  return info(op).name;
}

std::optional<OpType> op_from_name(std::string_view name) {
  for (size_t i = 0; i < kOps.size(); ++i) {
    if (kOps[i].name == name) return static_cast<OpType>(i);
  }
  return std::nullopt;
}

uint32_t op_traits(OpType op) {
  return info(op).traits;
}
AmpColor default_amp_color(OpType op) {
  return info(op).color;
}

std::string_view amp_color_name(AmpColor c) {
  switch (c) {
    case AmpColor::kAlways:
      return "ALWAYS";
    case AmpColor::kFollow:
      return "FOLLOW";
    case AmpColor::kNever:
      return "NEVER";
  }
  return "?";
}

int op_since_version(OpType op) {
  return std::countr_zero(info(op).opsets);
}

int op_version_for(OpType op, int opset) {
  if (opset < 1) return 0;
  const OpsetMask upto = opset >= 31 ? info(op).opsets : info(op).opsets & ((2u << opset) - 1u);
  return upto == 0 ? 0 : 31 - std::countl_zero(upto);
}

bool keeps_own_dtype(OpType op, size_t index) {
  return info(op).keep_dtype.has(index);
}

bool is_shape_input(OpType op, size_t index) {
  return info(op).shape_inputs.has(index);
}

MovedAttribute moved_attribute(OpType op) {
  return info(op).moved;
}

}  // namespace amp::graph
