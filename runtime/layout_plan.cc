#include "runtime/layout_plan.h"

#include <algorithm>

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
enum class Reader : uint8_t {
  kNone,
  kConv,
  kFree,
  kChannelBroadcast,
  kGlobalPool,
  kResize,         // a Resize of the spatial axes: reads its data input, writes its output
  kConcat,         // a Concat along the channels: reads its inputs, writes its output
  kSplit,          // a Split along the channels: reads its data input, writes its outputs
  kChannelGather,  // a Gather of channels (constant indices): reads its data input
};

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

// The dims of a present value with a static shape, else none (no rank passes the checks).
std::vector<int64_t> static_dims(const Graph& g, ValueId v) {
  return g.value(v).static_dims().value_or(std::vector<int64_t>{});
}

// A Resize that keeps N and C (its CPU kernel then samples the physical dims,
// kernels/cpu/movement_resize.cc): constant parameters, not tf_crop_and_resize, and a scale
// of exactly 1 for N and C (or, with sizes, no common aspect-ratio scale over them).
bool spatial_resize(const Graph& g, const Node& n, const std::function<bool(DType)>& native) {
  const graph::ResizeAttrs* r = std::get_if<graph::ResizeAttrs>(&n.resolved);
  if (n.op != OpType::kResize || r == nullptr || n.outputs.size() != 1 || n.inputs.empty() ||
      n.inputs[0] == graph::kNoValue || r->coord == graph::ResizeSampling::kTfCropAndResize ||
      !native(g.value(n.outputs[0]).dtype))
    return false;
  const std::vector<int64_t> in = static_dims(g, n.inputs[0]), out = static_dims(g, n.outputs[0]);
  if (in.size() < 3 || in.size() > 5 || out.size() != in.size() || in[0] != out[0] ||
      in[1] != out[1])
    return false;
  for (size_t k = 1; k < n.inputs.size(); ++k)
    if (n.inputs[k] != graph::kNoValue && !g.value(n.inputs[k]).is_constant()) return false;
  // The entry of scales / sizes that addresses axis a, or -1.
  auto entry = [&](int64_t a) -> int64_t {
    if (r->axes.empty()) return a;
    for (size_t i = 0; i < r->axes.size(); ++i)
      if (r->axes[i] == a) return static_cast<int64_t>(i);
    return -1;
  };
  const bool has_scales = n.inputs.size() > 2 && n.inputs[2] != graph::kNoValue &&
                          g.value(n.inputs[2]).constant->numel() > 0;
  for (int64_t a : {0, 1}) {
    const int64_t i = entry(a);
    if (i < 0) continue;
    if (has_scales) {
      const graph::TensorData& scales = *g.value(n.inputs[2]).constant;
      if (scales.dtype() != DType::kF32 || i >= scales.numel() || scales.data<float>()[i] != 1.0f)
        return false;
    } else if (r->policy != graph::ResizeSampling::kStretch) {
      return false;  // one scale for every addressed axis: N and C would change too
    }
  }
  return true;
}

// A Concat or Split along the channels whose tensors all take the same kind of conv layout
// (8-channel blocks, or channels-last): its CPU kernel copies the parts' blocks of the
// physical dims (kernels/cpu/movement_concat_split.cc). `parts`: the inputs of a Concat, the
// outputs of a Split; `whole` the other side.
bool channel_parts(const Graph& g, const Node& n, const std::function<bool(DType)>& native,
                   const BlockedLayout& blocked8) {
  const bool concat = n.op == OpType::kConcat;
  if ((!concat && n.op != OpType::kSplit) || n.outputs.empty() || n.inputs.empty()) return false;
  const ValueId whole = concat ? n.outputs[0] : n.inputs[0];
  const std::vector<ValueId>& parts = concat ? n.inputs : n.outputs;
  if (whole == graph::kNoValue || !native(g.value(whole).dtype)) return false;
  const std::vector<int64_t> w = static_dims(g, whole);
  auto axis = n.attrs.get_int("axis", 0);
  if (w.size() < 3 || w.size() > 5 || !axis.is_ok() ||
      (*axis != 1 && *axis != 1 - static_cast<int64_t>(w.size())))
    return false;
  const bool blocks = blocked8 && blocked8(w);
  for (ValueId v : parts) {
    if (v == graph::kNoValue) {
      if (concat) return false;
      continue;  // an unused Split output
    }
    const std::vector<int64_t> d = static_dims(g, v);
    if (d.size() != w.size() || (blocked8 && blocked8(d) != blocks)) return false;
  }
  return true;
}

// A Gather along the channels with constant 1-D indices whose input and output take the same
// kind of conv layout (both 8-channel blocks, or both channels-last): its CPU kernel copies
// channels between the layouts (kernels/cpu/channel_gather.h). ShuffleNet's channel shuffle
// (graph/passes/fuse_channel_shuffle.h).
bool channel_gather(const Graph& g, const Node& n, const std::function<bool(DType)>& native,
                    const BlockedLayout& blocked8) {
  const graph::AxisAttrs* a = std::get_if<graph::AxisAttrs>(&n.resolved);
  if (n.op != OpType::kGather || a == nullptr || a->axis != 1 || n.inputs.size() != 2 ||
      n.outputs.size() != 1 || n.inputs[0] == graph::kNoValue || n.inputs[1] == graph::kNoValue)
    return false;
  const graph::Value& out = g.value(n.outputs[0]);
  const graph::Value& idx = g.value(n.inputs[1]);
  if (!native(out.dtype) || dtype_size(out.dtype) > 4 || !idx.is_constant() ||
      idx.constant->dims().size() != 1)
    return false;
  const std::vector<int64_t> in = static_dims(g, n.inputs[0]), y = static_dims(g, n.outputs[0]);
  if (in.size() < 3 || in.size() > 5 || y.size() != in.size()) return false;
  return !blocked8 || blocked8(in) == blocked8(y);
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

std::vector<char> plan_conv_layouts(const Graph& g, const std::function<bool(DType)>& native,
                                    const BlockedLayout& blocked8) {
  const size_t count = g.values.size();
  std::vector<char> in(count, 0);
  // Every value that survives descends from a convolution's output (the others must read
  // values that survive), so a graph without one keeps every tensor plain: a transformer's
  // plans skip the analysis.
  auto conv_reader = [&](const Node& n) {
    return n.op == OpType::kConv || dnnl_max_pool(g, n, native) || tiled_conv_transpose(g, n);
  };
  if (std::none_of(g.nodes.begin(), g.nodes.end(), conv_reader)) return in;
  const std::vector<graph::NodeId> producer = graph::compute_producers(g);
  const std::vector<std::vector<graph::NodeId>> consumers = graph::compute_consumers(g);
  std::vector<char> is_output(count, 0);
  for (ValueId v : g.outputs) is_output[static_cast<size_t>(v)] = 1;
  std::vector<Reader> reader(g.nodes.size(), Reader::kNone);
  std::vector<int> operand(g.nodes.size(), -1);  // kChannelBroadcast: the per-channel input
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (conv_reader(n)) {
      reader[i] = Reader::kConv;
    } else if (layout_free_elementwise(g, n, native)) {
      reader[i] = Reader::kFree;
    } else if ((operand[i] = channel_operand(g, n, native)) >= 0) {
      reader[i] = Reader::kChannelBroadcast;
    } else if (n.op == OpType::kGlobalAveragePool || n.op == OpType::kGlobalMaxPool) {
      reader[i] = Reader::kGlobalPool;
    } else if (spatial_resize(g, n, native)) {
      reader[i] = Reader::kResize;
    } else if (channel_parts(g, n, native, blocked8)) {
      reader[i] = n.op == OpType::kConcat ? Reader::kConcat : Reader::kSplit;
    } else if (channel_gather(g, n, native, blocked8)) {
      reader[i] = Reader::kChannelGather;
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
        (r == Reader::kConv || r == Reader::kFree || r == Reader::kChannelBroadcast ||
         r == Reader::kResize || r == Reader::kConcat || r == Reader::kSplit ||
         r == Reader::kChannelGather))
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
            case Reader::kConcat:
              keep = keep && in[static_cast<size_t>(n.outputs[0])];
              break;
            case Reader::kSplit:  // the data input, and every output in the layout too
              keep = keep && k == 0;
              for (ValueId o : n.outputs)
                keep = keep && (o == graph::kNoValue || in[static_cast<size_t>(o)]);
              break;
            case Reader::kChannelGather:
            case Reader::kResize:  // the data input, and the output in the layout too
              keep = keep && k == 0 && in[static_cast<size_t>(n.outputs[0])];
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
      if (reader[pi] == Reader::kResize || reader[pi] == Reader::kChannelGather ||
          reader[pi] == Reader::kSplit) {
        keep = keep && in[static_cast<size_t>(p.inputs[0])];  // the rest are constants
      } else if (reader[pi] != Reader::kConv) {
        for (size_t k = 0; k < p.inputs.size(); ++k) {
          const ValueId x = p.inputs[k];
          if (x == graph::kNoValue || in[static_cast<size_t>(x)]) continue;
          if (reader[pi] == Reader::kChannelBroadcast && static_cast<int>(k) == operand[pi])
            continue;  // the per-channel operand: the same bytes in every layout
          if (!single_element(g, x)) keep = false;  // a full-size input in plain layout
        }
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
