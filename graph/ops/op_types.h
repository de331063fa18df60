// OpType, op traits, default AMP colors and the per-op facts of op_types.def (opset
// versions, inputs that keep their dtype under AMP, inputs whose values decide shapes),
// all generated from that one list.
//
//   if (has_trait(n.op, kElementwise)) ...
//   if (opset < op_since_version(op)) return unsupported(...);
//   if (is_shape_input(n.op, 1)) ...  // Reshape's shape, Reduce* axes, ...
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string_view>

namespace amp::graph {

enum class OpType : int32_t {
#define AMP_OP(name, traits, color, opsets, inputs, outputs, infer, keep_dtype, shape_inputs, \
               moved)                                                                         \
  k##name,
#include "graph/ops/op_types.def"
#undef AMP_OP
};

inline constexpr int kOpCount = 0
#define AMP_OP(name, traits, color, opsets, inputs, outputs, infer, keep_dtype, shape_inputs, \
               moved)                                                                         \
  +1
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
  // One dim of output 0 is known only after the kernel ran (NonZero's count): the runtime
  // plans it at its bound and continues the model once the size is known
  // (graph/ops/data_dependent.h, runtime/execution_plan.h).
  kDataDependent = 1u << 18,
  // If, Loop, Scan: bodies in graph attributes (graph/ops/control_flow.h); no kernel, the
  // ExecutionContext runs the bodies' plans (runtime/control_flow.h).
  kControlFlow = 1u << 19,
};

// Default AMP color (ARCHITECTURE.md, "The AMP planner").
enum class AmpColor : uint8_t {
  kAlways,  // run in the low type, accumulate in fp32
  kFollow,  // low iff every float input is already low (or a constant that fits)
  kNever,   // fp32
};

// The opsets in which an op's versions appeared: bit v for ai.onnx opset v (1..31).
using OpsetMask = uint32_t;
constexpr OpsetMask opset_mask(std::initializer_list<int> versions) {
  OpsetMask m = 0;
  for (int v : versions) m |= OpsetMask{1} << v;
  return m;
}

// A set of input positions (0..31), for the keep_dtype and shape_inputs columns.
struct InputSet {
  uint32_t bits = 0;
  constexpr bool has(size_t i) const { return i < 32 && ((bits >> i) & 1u) != 0; }
};
constexpr InputSet input_set(std::initializer_list<int> positions) {
  InputSet s;
  for (int i : positions) s.bits |= uint32_t{1} << i;
  return s;
}

// An input that older opsets took as an INTS attribute (the `moved` column): before
// `before_opset`, attribute `name` is input `input`.
struct MovedAttribute {
  const char* name = nullptr;  // nullptr: nothing moved
  int input = 0;
  int before_opset = 0;
  bool required = false;
};

// "Any number" in an ARITY column (variadic inputs of Concat/Max/Min, Split's outputs).
inline constexpr int kAnyCount = std::numeric_limits<int>::max();

std::string_view op_name(OpType op);
std::optional<OpType> op_from_name(std::string_view name);
uint32_t op_traits(OpType op);
inline bool has_trait(OpType op, OpTrait t) {
  return (op_traits(op) & t) != 0;
}
AmpColor default_amp_color(OpType op);
std::string_view amp_color_name(AmpColor c);

// The first ai.onnx opset that defines `op`.
int op_since_version(OpType op);
// The version of `op` a model of `opset` uses: the newest one that appeared at or before
// it; 0 when the op did not exist yet.
int op_version_for(OpType op, int opset);
// Whether float input `index` of `op` keeps its own dtype under AMP (Resize's roi, scales).
bool keeps_own_dtype(OpType op, size_t index);
// Whether input `index` of `op` is read for its VALUES to compute output shapes.
bool is_shape_input(OpType op, size_t index);
// The attribute older opsets of `op` took instead of an input (name nullptr when none).
MovedAttribute moved_attribute(OpType op);

}  // namespace amp::graph
