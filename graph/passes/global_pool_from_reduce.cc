#include "graph/passes/global_pool_from_reduce.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "graph/ops/infer_util.h"

namespace amp::graph {
namespace {

// The pool that `n` spells, or nullopt.
std::optional<OpType> global_pool_of(const Graph& g, const Node& n) {
  if ((n.op != OpType::kReduceMean && n.op != OpType::kReduceMax) || n.inputs.size() != 2 ||
      n.inputs[0] == kNoValue || n.inputs[1] == kNoValue || n.outputs.size() != 1)
    return std::nullopt;
  const Value& x = g.value(n.inputs[0]);
  if (!x.shape || (x.shape->rank() != 4 && x.shape->rank() != 5) ||
      (x.dtype != DType::kF32 && x.dtype != DType::kF16 && x.dtype != DType::kBF16 &&
       x.dtype != DType::kF64))
    return std::nullopt;
  const Result<int64_t> keepdims = n.attrs.get_int("keepdims", 1);
  if (!keepdims.is_ok() || *keepdims != 1) return std::nullopt;
  const Result<std::optional<std::vector<int64_t>>> axes = const_ints(g.value(n.inputs[1]), 1);
  if (!axes.is_ok() || !*axes) return std::nullopt;
  const int64_t rank = static_cast<int64_t>(x.shape->rank());
  Result<std::vector<int64_t>> normalized = normalize_axes(**axes, rank);
  if (!normalized.is_ok()) return std::nullopt;
  std::vector<int64_t> got = std::move(normalized).value();
  std::sort(got.begin(), got.end());
  std::vector<int64_t> spatial;
  for (int64_t a = 2; a < rank; ++a) spatial.push_back(a);
  if (got != spatial) return std::nullopt;
  return n.op == OpType::kReduceMean ? OpType::kGlobalAveragePool : OpType::kGlobalMaxPool;
}

}  // namespace

Result<bool> GlobalPoolFromReduce::run(Graph& g) {
  bool changed = false;
  for (Node& n : g.nodes) {
    const std::optional<OpType> pool = global_pool_of(g, n);
    if (!pool) continue;
    n.op = *pool;
    n.op_version = 1;
    n.inputs.resize(1);
    n.attrs = Attributes();
    changed = true;
  }
  return changed;
}

}  // namespace amp::graph
