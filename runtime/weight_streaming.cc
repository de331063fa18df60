#include "runtime/weight_streaming.h"

#include <optional>

namespace amp::runtime {
namespace {

using graph::Graph;
using graph::kNoValue;
using graph::Node;
using graph::OpType;
using graph::ValueId;

// The product of a value's dims but the last, when all are static.
std::optional<int64_t> static_rows(const Graph& g, ValueId v) {
  const graph::Value& val = g.value(v);
  if (!val.shape || val.shape->rank() == 0) return std::nullopt;
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < val.shape->rank(); ++i) {
    const graph::Dim& d = val.shape->dims[i];
    if (!d.is_static()) return std::nullopt;
    rows *= d.value;
  }
  return rows;
}

// B a constant of rank >= 2, its leading dims 1, of at least kMinStreamedBytes in fp32.
bool streamed_weights(const Graph& g, ValueId b) {
  const graph::Value& val = g.value(b);
  if (!val.is_constant() || val.dtype != DType::kF32) return false;
  const std::vector<int64_t>& dims = val.constant->dims();
  if (dims.size() < 2) return false;
  for (size_t i = 0; i + 2 < dims.size(); ++i)
    if (dims[i] != 1) return false;
  return val.constant->byte_size() >= kMinStreamedBytes;
}

bool qualifies(const Graph& g, const Node& n, int64_t max_rows) {
  if (n.inputs.size() < 2 || n.inputs[0] == kNoValue || n.inputs[1] == kNoValue) return false;
  if (g.value(n.inputs[0]).dtype != DType::kF32) return false;
  if (n.op == OpType::kGemm) {
    const Result<float> alpha = n.attrs.get_float("alpha", 1.0f);
    const Result<int64_t> trans_a = n.attrs.get_int("transA", 0);
    if (!alpha.is_ok() || *alpha != 1.0f || !trans_a.is_ok() || *trans_a != 0) return false;
    if (n.inputs.size() > 2 && n.inputs[2] != kNoValue) {
      const graph::Value& c = g.value(n.inputs[2]);
      if (!c.shape || (c.shape->rank() == 2 && !(c.shape->dims[0] == graph::Dim(1))))
        return false;  // C with rows: the kernel prefills it
    }
  } else if (n.op != OpType::kMatMul) {
    return false;
  }
  if (!streamed_weights(g, n.inputs[1])) return false;
  const std::optional<int64_t> rows = static_rows(g, n.inputs[0]);
  return rows && *rows > 0 && *rows <= max_rows;
}

}  // namespace

std::vector<std::string> weight_streaming_products(const Graph& g, int64_t max_rows) {
  std::vector<std::string> names;
  if (max_rows <= 0) return names;
  for (const Node& n : g.nodes)
    if (qualifies(g, n, max_rows)) names.push_back(n.name);
  return names;
}

}  // namespace amp::runtime
