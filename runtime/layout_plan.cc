#include "runtime/layout_plan.h"

#include "graph/ops/op_types.h"
#include "graph/ops/window_geometry.h"

namespace amp::runtime {
namespace {

using graph::Graph;
using graph::Node;
using graph::OpType;
using graph::ValueId;

bool full_size(const Graph& g, ValueId v, const graph::Shape& out) {
  return g.value(v).shape && *g.value(v).shape == out;
}

bool single_element(const Graph& g, ValueId v) {
  const std::optional<int64_t> numel = g.value(v).shape ? g.value(v).shape->numel() : std::nullopt;
  return numel && *numel == 1;
}

// An elementwise node that computes element i of its output from element i of each input
// whatever the layout: every input has the output's shape or is a single element.
bool layout_free_elementwise(const Graph& g, const Node& n,
                             const std::function<bool(DType)>& native) {
  if (!graph::has_trait(n.op, graph::kElementwise) || n.outputs.size() != 1 ||
      n.outputs[0] == graph::kNoValue)
    return false;
  const graph::Value& out = g.value(n.outputs[0]);
  if (!out.shape || !native(out.dtype)) return false;
  for (ValueId v : n.inputs) {
    if (v == graph::kNoValue || single_element(g, v)) continue;
    if (!full_size(g, v, *out.shape)) return false;
  }
  return true;
}

// `dims` right-aligned to `rank` (numpy broadcasting), padded with leading 1s.
std::vector<int64_t> right_aligned(const std::vector<int64_t>& dims, size_t rank) {
  std::vector<int64_t> out(rank - std::min(rank, dims.size()), 1);
  out.insert(out.end(), dims.begin(), dims.end());
  return out;
}

// Per node: how it may touch a value kept in the conv layout.
enum class Reader : uint8_t { kNone, kConv, kFree, kChannelBroadcast, kGlobalPool };

// A MaxPool that oneDNN runs (kernels/cpu/dnnl_pool.cc: no Indices output, f32 / bf16):
// like a Conv, it reads and writes the conv layout.
bool dnnl_max_pool(const Graph& g, const Node& n, const std::function<bool(DType)>& native) {
  if (n.op != OpType::kMaxPool || n.outputs.empty() || n.outputs[0] == graph::kNoValue)
    return false;
  for (size_t k = 1; k < n.outputs.size(); ++k)
    if (n.outputs[k] != graph::kNoValue) return false;  // Indices: the loop
  return native(g.value(n.outputs[0]).dtype);
}

// A ConvTranspose that the CPU runs as a 1x1 convolution and a depth-to-space
// (kernels/cpu/dnnl_conv.cc, the same condition): like a Conv, it reads and writes the
// conv layout.
bool tiled_conv_transpose(const Graph& g, const Node& n) {
  if (n.op != OpType::kConvTranspose || n.outputs.size() != 1 || n.inputs.size() < 2) return false;
  const graph::ConvAttrs* conv = std::get_if<graph::ConvAttrs>(&n.resolved);
  auto constant = [&](size_t k) {
    return k < n.inputs.size() && n.inputs[k] != graph::kNoValue &&
           g.value(n.inputs[k]).is_constant();
  };
  const bool bias_ok = n.inputs.size() < 3 || n.inputs[2] == graph::kNoValue || constant(2);
  return conv != nullptr && graph::conv_transpose_tiles_output(*conv) && constant(1) && bias_ok &&
         g.value(n.outputs[0]).dtype == DType::kF32;
}

}  // namespace

int channel_operand(const Graph& g, const Node& n, const std::function<bool(DType)>& native) {
  if (!graph::has_trait(n.op, graph::kElementwise) || n.inputs.size() != 2 ||
      n.outputs.size() != 1 || n.outputs[0] == graph::kNoValue || n.inputs[0] == graph::kNoValue ||
      n.inputs[1] == graph::kNoValue)
    return -1;
  const graph::Value& out = g.value(n.outputs[0]);
  if (!out.shape || !out.shape->is_static() || !native(out.dtype)) return -1;
  const std::vector<int64_t> od = out.shape->static_dims();
  if (od.size() < 3 || od.size() > 5) return -1;
  for (int k = 0; k < 2; ++k) {
    const ValueId full = n.inputs[static_cast<size_t>(k)],
                  other = n.inputs[1 - static_cast<size_t>(k)];
    const graph::Value& o = g.value(other);
    if (!full_size(g, full, *out.shape) || single_element(g, other) || !o.shape ||
        !o.shape->is_static() || o.shape->rank() > od.size())
      continue;
    const std::vector<int64_t> d = right_aligned(o.shape->static_dims(), od.size());
    bool per_channel = (d[0] == 1 || d[0] == od[0]) && d[1] == od[1];
    for (size_t i = 2; i < d.size(); ++i) per_channel = per_channel && d[i] == 1;
    if (per_channel) return 1 - k;
  }
  return -1;
}

std::vector<int64_t> physical_conv_dims(const std::vector<int64_t>& logical, size_t rank,
                                        bool blocked8) {
  const std::vector<int64_t> d = right_aligned(logical, rank);
  std::vector<int64_t> out = {d[0]};
  if (blocked8) {
    out.push_back(d[1] / 8);
    out.insert(out.end(), d.begin() + 2, d.end());
    out.push_back(8);
  } else {
    out.insert(out.end(), d.begin() + 2, d.end());
    out.push_back(d[1]);
  }
  return out;
}

std::vector<char> plan_conv_layouts(const Graph& g, const std::function<bool(DType)>& native) {
  const size_t count = g.values.size();
  std::vector<char> in(count, 0);
  const std::vector<graph::NodeId> producer = graph::compute_producers(g);
  const std::vector<std::vector<graph::NodeId>> consumers = graph::compute_consumers(g);
  std::vector<char> is_output(count, 0);
  for (ValueId v : g.outputs) is_output[static_cast<size_t>(v)] = 1;
  std::vector<Reader> reader(g.nodes.size(), Reader::kNone);
  std::vector<int> operand(g.nodes.size(), -1);  // kChannelBroadcast: the per-channel input
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.op == OpType::kConv || dnnl_max_pool(g, n, native) || tiled_conv_transpose(g, n)) {
      reader[i] = Reader::kConv;
    } else if (layout_free_elementwise(g, n, native)) {
      reader[i] = Reader::kFree;
    } else if ((operand[i] = channel_operand(g, n, native)) >= 0) {
      reader[i] = Reader::kChannelBroadcast;
    } else if (n.op == OpType::kGlobalAveragePool || n.op == OpType::kGlobalMaxPool) {
      reader[i] = Reader::kGlobalPool;
    }
  }

  // Candidates: natively computed activations of rank 3..5 made by a Conv or an elementwise
  // node of the rule.
  for (size_t v = 0; v < count; ++v) {
    const graph::Value& val = g.values[v];
    const graph::NodeId p = producer[v];
    if (val.is_constant() || is_output[v] || !native(val.dtype) || !val.shape || p < 0 ||
        consumers[v].empty())
      continue;
    const size_t rank = val.shape->rank();
    const Reader r = reader[static_cast<size_t>(p)];
    if (rank >= 3 && rank <= 5 &&
        (r == Reader::kConv || r == Reader::kFree || r == Reader::kChannelBroadcast))
      in[v] = 1;
  }
  // Drop candidates until every one is read only as a Conv's data, by elementwise nodes of
  // the rule whose output is a candidate (as their full-size input), or by a global pooling;
  // and every candidate made elementwise reads candidates for its full-size inputs. Each
  // round removes at least one value, so it ends.
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t v = 0; v < count; ++v) {
      if (!in[v]) continue;
      bool keep = true;
      for (graph::NodeId c : consumers[v]) {
        const size_t ci = static_cast<size_t>(c);
        const Node& n = g.nodes[ci];
        for (size_t k = 0; k < n.inputs.size(); ++k) {
          if (n.inputs[k] != static_cast<ValueId>(v)) continue;
          switch (reader[ci]) {
            case Reader::kConv:
            case Reader::kGlobalPool:
              keep = keep && k == 0;  // not a weight or bias
              break;
            case Reader::kFree:
              keep = keep && in[static_cast<size_t>(n.outputs[0])];
              break;
            case Reader::kChannelBroadcast:
              keep = keep && static_cast<int>(k) != operand[ci] &&
                     in[static_cast<size_t>(n.outputs[0])];
              break;
            case Reader::kNone:
              keep = false;
          }
        }
      }
      const size_t pi = static_cast<size_t>(producer[v]);
      const Node& p = g.nodes[pi];
      if (reader[pi] != Reader::kConv)
        for (size_t k = 0; k < p.inputs.size(); ++k) {
          const ValueId x = p.inputs[k];
          if (x == graph::kNoValue || in[static_cast<size_t>(x)]) continue;
          if (reader[pi] == Reader::kChannelBroadcast && static_cast<int>(k) == operand[pi])
            continue;  // the per-channel operand: the same bytes in every layout
          if (!single_element(g, x)) keep = false;  // a full-size input in plain layout
        }
      if (!keep) {
        in[v] = 0;
        changed = true;
      }
    }
  }
  return in;
}

}  // namespace amp::runtime
