#include "graph/ops/op_types.h"

#include <array>

namespace amp::graph {
namespace {

#define ALWAYS AmpColor::kAlways
#define FOLLOW AmpColor::kFollow
#define NEVER AmpColor::kNever

struct OpInfo {
  std::string_view name;
  uint32_t traits;
  AmpColor color;
};

constexpr std::array<OpInfo, kOpCount> kOps = {{
#define AMP_OP(name, traits, color) {#name, static_cast<uint32_t>(traits), color},
#include "graph/ops/op_types.def"
#undef AMP_OP
}};

#undef ALWAYS
#undef FOLLOW
#undef NEVER

}  // namespace

std::string_view op_name(OpType op) {
  return kOps[static_cast<size_t>(op)].name;
}

std::optional<OpType> op_from_name(std::string_view name) {
  for (size_t i = 0; i < kOps.size(); ++i) {
    if (kOps[i].name == name) return static_cast<OpType>(i);
  }
  return std::nullopt;
}

uint32_t op_traits(OpType op) {
  return kOps[static_cast<size_t>(op)].traits;
}
AmpColor default_amp_color(OpType op) {
  return kOps[static_cast<size_t>(op)].color;
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

}  // namespace amp::graph
