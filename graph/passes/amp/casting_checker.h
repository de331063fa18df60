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

#include <cstdint>
#include <string>
#include <vector>

#include "graph/ir/graph.h"

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

// constant_fits per constant value of one graph, for one low type, computed once: a
// weight read by 100,000 nodes is scanned once, not once per reader. The graph must not
// change while the cache is used.
class ConstantFitCache {
 public:
  ConstantFitCache(const Graph& g, DType low) : g_(g), low_(low), state_(g.values.size(), -1) {}
  // `v` must be a constant value of the graph.
  bool fits(ValueId v);

 private:
  const Graph& g_;
  DType low_;
  std::vector<int8_t> state_;  // -1 not computed, else 0 / 1
};

// `cache` (optional, for the same graph and low type) saves rescanning constants.
ColorDecision check_node(const Graph& g, const Node& n, DType low,
                         ConstantFitCache* cache = nullptr);

}  // namespace amp::graph
