// OpType, op traits and default AMP colors, all generated from op_types.def.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace amp::graph {

enum class OpType : int32_t {
#define AMP_OP(name, traits, color) k##name,
#include "graph/ops/op_types.def"
#undef AMP_OP
};

inline constexpr int kOpCount = 0
#define AMP_OP(name, traits, color) +1
#include "graph/ops/op_types.def"
#undef AMP_OP
    ;

// What passes ask about instead of op names (tinygrad style).
enum OpTrait : uint32_t {
  kElementwise = 1u << 0,    // output[i] depends on input[i] only (after broadcasting)
  kUnary = 1u << 1,          // one data input
  kBinary = 1u << 2,         // two data inputs, multidirectional broadcasting
  kVariadic = 1u << 3,       // any number of broadcast inputs (Max, Min)
  kMovement = 1u << 4,       // moves/copies elements without arithmetic
  kView = 1u << 5,           // output is the input's bytes reinterpreted (may alias)
  kReduction = 1u << 6,      // reduces over axes
  kComputeBound = 1u << 7,   // conv / matmul: the FLOPs of a network
  kNormalization = 1u << 8,  // softmax, layer/instance/batch norm
  kPooling = 1u << 9,
  kActivation = 1u << 10,
  kComparison = 1u << 11,  // bool output
  kLogical = 1u << 12,     // bool inputs and output
  kShapeOp = 1u << 13,     // reads only the input's shape
  kSource = 1u << 14,      // no data input (Constant, ConstantOfShape, Range)
  kCastOp = 1u << 15,
  kPromote = 1u << 16,      // AMP: any fp32 float input makes the node fp32 (Concat)
  kIndexOutput = 1u << 17,  // integer index output (ArgMax)
};

// Default AMP color (ARCHITECTURE.md, "The AMP planner").
enum class AmpColor : uint8_t {
  kAlways,  // run in the low type, accumulate in fp32
  kFollow,  // low iff every float input is already low (or a constant that fits)
  kNever,   // fp32
};

std::string_view op_name(OpType op);
std::optional<OpType> op_from_name(std::string_view name);
uint32_t op_traits(OpType op);
inline bool has_trait(OpType op, OpTrait t) {
  return (op_traits(op) & t) != 0;
}
AmpColor default_amp_color(OpType op);
std::string_view amp_color_name(AmpColor c);

}  // namespace amp::graph
