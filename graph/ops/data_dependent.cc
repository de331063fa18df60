#include "graph/ops/data_dependent.h"

#include <algorithm>
#include <string>

#include "graph/ops/op_types.h"

namespace amp::graph {
namespace {

Result<std::vector<int64_t>> static_dims(const Graph& g, const Node& n, size_t i) {
  if (i >= n.inputs.size() || n.inputs[i] == kNoValue) return std::vector<int64_t>();
  const Value& v = g.value(n.inputs[i]);
  if (!v.shape || !v.shape->is_static())
    return internal_error("input " + std::to_string(i) +
                          " of a data-dependent node has no static shape");
  return v.shape->static_dims();
}

int64_t product(const std::vector<int64_t>& d) {
  int64_t p = 1;
  for (int64_t x : d) p *= x;
  return p;
}

}  // namespace

Result<DataDependentDim> data_dependent_dim(const Graph& g, const Node& n) {
  AMP_ASSIGN_OR_RETURN(std::vector<int64_t> x, static_dims(g, n, 0));
  switch (n.op) {
    case OpType::kNonZero:
      // [rank, count]: at most every element.
      return DataDependentDim{1, product(x)};
    case OpType::kCompress: {
      const CompressAttrs* a = std::get_if<CompressAttrs>(&n.resolved);
      if (a == nullptr) return internal_error("Compress without its record");
      AMP_ASSIGN_OR_RETURN(std::vector<int64_t> cond, static_dims(g, n, 1));
      const int64_t len = product(cond);
      if (a->axis < 0) return DataDependentDim{0, std::min(product(x), len)};
      return DataDependentDim{static_cast<size_t>(a->axis),
                              std::min(x[static_cast<size_t>(a->axis)], len)};
    }
    case OpType::kNonMaxSuppression: {
      // [count, 3]: per batch and class at most min(boxes, max_output_boxes_per_class).
      AMP_ASSIGN_OR_RETURN(std::vector<int64_t> scores, static_dims(g, n, 1));
      if (x.size() != 3 || scores.size() != 3) return internal_error("NonMaxSuppression ranks");
      int64_t per_class = x[1];
      if (n.inputs.size() > 2 && n.inputs[2] != kNoValue) {
        const Value& m = g.value(n.inputs[2]);
        if (m.is_constant() && m.constant->numel() == 1) {
          AMP_ASSIGN_OR_RETURN(std::vector<int64_t> v, m.constant->to_i64_vector());
          per_class = std::clamp<int64_t>(v[0], 0, per_class);
        }
      } else {
        per_class = 0;  // absent: no box is selected
      }
      return DataDependentDim{0, scores[0] * scores[1] * per_class};
    }
    default:
      return internal_error(std::string(op_name(n.op)) + " is not a data-dependent op");
  }
}

}  // namespace amp::graph
