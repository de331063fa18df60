// The casting checker: the color of one node for one target type, as a function of the
// node (op, attributes, constant inputs, shapes), not only its op type (the TVM AMP RFC's
// "(node, target) -> {color, accumulate dtype, output dtype}").
//
// Node-dependent rules on top of the op table:
//   - Clip whose constant bounds lie outside the low type's finite range -> NEVER (a bound
//     that overflows to Inf changes the result; apache/tvm#15461).
//   - Where / Pad whose constant fill values lie outside the range -> NEVER (attention
//     masks of -1e9 or -3.4e38 overflow fp16).
//   - AveragePool with a window of more than 65536 elements -> NEVER (fp16 storage of a
//     mean over so many terms loses the small contributions; fp32 accumulation alone
//     does not help the input rounding).
//   - Ops with no float input or output (Shape, integer arithmetic) are not colored.
// Accumulation is fp32 for every ALWAYS op and every reduction (the numerical contract).
#pragma once

#include <string>

#include "ir/graph.h"

namespace amp::graph {

struct ColorDecision {
  AmpColor color = AmpColor::kFollow;
  std::string reason;  // why, for the report
  DType accumulate = DType::kF32;
  bool float_node = true;  // false: no float data, not colored
};

// The largest finite value of a low type.
double low_type_max(DType t);
// Every element of `t` is finite and within the low type's range.
bool constant_fits(const TensorData& t, DType low);

ColorDecision check_node(const Graph& g, const Node& n, DType low);

}  // namespace amp::graph
