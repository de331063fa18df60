#include "graph/planning/memory_planner.h"

#include <string>

namespace amp::graph {

Result<size_t> planned_bytes(const Value& v) {
  if (!v.shape || !v.shape->is_static())
    return invalid_argument("value '" + v.name + "' has no static shape " +
                            (v.shape ? v.shape->to_string() : std::string("(unknown rank)")) +
                            "; bind its dims before planning memory");
  auto n = v.shape->numel();
  if (!n || static_cast<uint64_t>(*n) > (UINT64_MAX >> 4))
    return out_of_memory("value '" + v.name + "' is too large: " + v.shape->to_string());
  return static_cast<size_t>(*n) * dtype_size(v.dtype);
}

namespace {

// Values form a forest: parent[v] is the value whose buffer v shares (v itself for a
// buffer's owner), at byte offset within[v] of it; a view or in-place output sits at 0, a
// Concat's input or a Split's output at its part's offset. A buffer's root changes only when
// the whole root moves into another buffer, so a walk may point every value it passes at the
// root directly (path compression: chains of in-place ops and nested Concats stay short).
struct Place {
  ValueId root;
  int64_t offset;  // bytes from the root's start
};

Place find_root(std::vector<ValueId>& parent, std::vector<int64_t>& within, ValueId v) {
  Place top{v, 0};
  while (parent[static_cast<size_t>(top.root)] != top.root) {
    top.offset += within[static_cast<size_t>(top.root)];
    top.root = parent[static_cast<size_t>(top.root)];
  }
  for (int64_t offset = top.offset; parent[static_cast<size_t>(v)] != v;) {
    const size_t at = static_cast<size_t>(v);
    const ValueId next = parent[at];
    const int64_t step = within[at];
    parent[at] = top.root;
    within[at] = offset;
    offset -= step;
    v = next;
  }
  return top;
}

}  // namespace

Result<MemoryPlan> plan_memory(const Graph& g, const MemoryPlanOptions& opt) {
  const size_t nv = g.values.size();
  const int32_t last_step = static_cast<int32_t>(g.nodes.size()) + 1;
  MemoryPlan plan;
  plan.value_offset.assign(nv, kNotInArena);
  plan.buffer_root.resize(nv);
  plan.workspace_offset.assign(g.nodes.size(), kNotInArena);

  std::vector<char> is_graph_input(nv, 0), is_graph_output(nv, 0);
  for (ValueId v : g.inputs) is_graph_input[static_cast<size_t>(v)] = 1;
  for (ValueId v : g.outputs) is_graph_output[static_cast<size_t>(v)] = 1;

  std::vector<ValueId>& parent = plan.buffer_root;  // the forest; flattened to roots in 5.
  std::vector<int64_t> within(nv, 0);
  std::vector<int32_t> first(nv, -1), last(nv, -1);
  std::vector<size_t> bytes(nv, 0);
  for (size_t i = 0; i < nv; ++i) parent[i] = static_cast<ValueId>(i);
  auto root_of = [&](ValueId v) { return find_root(parent, within, v); };

  for (size_t i = 0; i < nv; ++i) {
    const Value& v = g.values[i];
    if (v.is_constant()) plan.weights_bytes += v.constant->byte_size();
  }
  for (ValueId v : g.inputs) {
    AMP_ASSIGN_OR_RETURN(bytes[static_cast<size_t>(v)], planned_bytes(g.value(v)));
    first[static_cast<size_t>(v)] = 0;
    last[static_cast<size_t>(v)] = 0;
  }

  // Last use of each value (before aliasing), to decide in-place eligibility.
  std::vector<int32_t> last_use(nv, -1);
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (ValueId v : g.nodes[i].inputs)
      if (v != kNoValue) last_use[static_cast<size_t>(v)] = static_cast<int32_t>(i) + 1;
  for (ValueId v : g.outputs) last_use[static_cast<size_t>(v)] = last_step;

  // Per buffer root: the last step any sharing value is read, and whether a graph input or
  // output shares it (then it is never overwritten in place, nor placed inside another).
  std::vector<int32_t> root_last_use = last_use;
  std::vector<char> root_pinned(nv, 0);
  for (size_t i = 0; i < nv; ++i) root_pinned[i] = is_graph_input[i] || is_graph_output[i];
  // v (a root: a fresh value or a whole buffer) moves into `host`'s buffer at `offset`.
  auto join = [&](ValueId v, ValueId host, int64_t offset) {
    const size_t vs = static_cast<size_t>(v);
    const size_t rs = static_cast<size_t>(root_of(host).root);
    parent[vs] = host;
    within[vs] = offset;
    root_last_use[rs] = std::max(root_last_use[rs], root_last_use[vs]);
    root_pinned[rs] = root_pinned[rs] || root_pinned[vs];
  };
  // 4. a Concat's input or a Split's output that may lie in the whole, and whether a
  // buffer's offset there keeps the arena's alignment.
  auto movable_part = [&](ValueId part) {
    return part != kNoValue && !g.value(part).is_constant() &&
           !is_graph_output[static_cast<size_t>(part)] && bytes[static_cast<size_t>(part)] > 0;
  };
  auto aligned = [&](int64_t offset) {
    return offset % static_cast<int64_t>(std::max<size_t>(opt.alignment, 1)) == 0;
  };

  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    const int32_t step = static_cast<int32_t>(i) + 1;
    for (ValueId v : n.inputs) {
      if (v == kNoValue || g.value(v).is_constant()) continue;
      const size_t r = static_cast<size_t>(root_of(v).root);
      last[r] = std::max(last[r], step);
    }
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      ValueId out = n.outputs[k];
      if (out == kNoValue) continue;
      const size_t o = static_cast<size_t>(out);
      AMP_ASSIGN_OR_RETURN(bytes[o], planned_bytes(g.value(out)));
      first[o] = step;
      last[o] = step;
      if (k != 0 || n.inputs.empty() || is_graph_output[o]) continue;

      // 2. views share their input's buffer.
      ValueId in0 = n.inputs[0];
      const bool in0_arena = in0 != kNoValue && !g.value(in0).is_constant();
      if (in0_arena && has_trait(n.op, kView) && !is_graph_output[static_cast<size_t>(in0)] &&
          bytes[static_cast<size_t>(in0)] == bytes[o]) {
        join(out, in0, 0);
        continue;
      }
      // 3. in place, where the kernel allows and the input dies here.
      if (!opt.in_place_input) continue;
      const int k_in = opt.in_place_input(n);
      if (k_in < 0 || static_cast<size_t>(k_in) >= n.inputs.size()) continue;
      ValueId src = n.inputs[static_cast<size_t>(k_in)];
      if (src == kNoValue || g.value(src).is_constant()) continue;
      const ValueId r = root_of(src).root;
      const size_t rs = static_cast<size_t>(r);
      // The whole buffer (every value sharing it) must die at this step, and no other
      // input of this node may read it.
      bool dies_here = !root_pinned[rs] && root_last_use[rs] == step;
      for (size_t j = 0; j < n.inputs.size() && dies_here; ++j) {
        if (static_cast<int>(j) == k_in || n.inputs[j] == kNoValue ||
            g.value(n.inputs[j]).is_constant())
          continue;
        if (root_of(n.inputs[j]).root == r) dies_here = false;
      }
      // The input must be its whole buffer (not one part of a Concat's or Split's).
      if (dies_here && bytes[rs] == bytes[o] && bytes[static_cast<size_t>(src)] == bytes[o])
        join(out, src, 0);
    }

    // 4. parts in place.
    const std::vector<size_t> parts =
        opt.part_offsets ? opt.part_offsets(n) : std::vector<size_t>{};
    if (parts.empty()) continue;
    if (n.op == OpType::kSplit && parts.size() == n.outputs.size() && !n.inputs.empty() &&
        n.inputs[0] != kNoValue && !g.value(n.inputs[0]).is_constant()) {
      const Place whole = root_of(n.inputs[0]);
      for (size_t k = 0; k < parts.size(); ++k) {
        const auto offset = static_cast<int64_t>(parts[k]);
        const ValueId part = n.outputs[k];
        if (movable_part(part) && aligned(whole.offset + offset) &&
            parent[static_cast<size_t>(part)] == part)
          join(part, n.inputs[0], offset);
      }
    } else if (n.op == OpType::kConcat && parts.size() == n.inputs.size() &&
               n.outputs.size() == 1 && !is_graph_output[static_cast<size_t>(n.outputs[0])]) {
      const ValueId whole = n.outputs[0];
      const auto whole_bytes = static_cast<int64_t>(bytes[static_cast<size_t>(whole)]);
      for (size_t k = 0; k < parts.size(); ++k) {
        const ValueId part = n.inputs[k];
        // The part's buffer moves whole, to where the part belongs: at `base`. Usually the
        // part is all of it; a buffer that a Split cut into parts moves when those parts
        // are consecutive parts here too (YOLOv8's C2f: Concat(Split(x)..., m1, m2)).
        if (!movable_part(part)) continue;
        const Place p = root_of(part);
        const size_t rs = static_cast<size_t>(p.root);
        const int64_t base = static_cast<int64_t>(parts[k]) - p.offset;
        const int64_t end = base + static_cast<int64_t>(bytes[rs]);
        if (!aligned(base) || base < 0 || end > whole_bytes || root_pinned[rs] ||
            p.root == root_of(whole).root)
          continue;
        // The parts that [base, end) holds must tile it, each where the buffer has it
        // (Concat(x, x): the second x lies in the whole already, elsewhere, and is copied).
        int64_t covered = base;
        for (size_t j = 0; j < parts.size() && covered >= 0; ++j) {
          if (n.inputs[j] == kNoValue) break;
          const auto begin = static_cast<int64_t>(parts[j]);
          const int64_t size = static_cast<int64_t>(bytes[static_cast<size_t>(n.inputs[j])]);
          if (size == 0 || begin + size <= base || begin >= end) continue;
          const Place q = root_of(n.inputs[j]);
          covered =
              begin == covered && q.root == p.root && q.offset == begin - base ? begin + size : -1;
        }
        if (covered == end) join(p.root, whole, base);
      }
    }
  }
  for (ValueId v : g.outputs) {
    if (g.value(v).is_constant()) continue;
    const size_t r = static_cast<size_t>(root_of(v).root);
    last[r] = last_step;
  }

  // 5. one request per root buffer, live from its first value's write to its last read;
  // then per workspace.
  for (size_t i = 0; i < nv; ++i) {
    if (first[i] < 0) continue;  // constant, or never defined (absent outputs)
    const Place p = root_of(static_cast<ValueId>(i));
    plan.activation_bytes += bytes[i];
    if (p.root == static_cast<ValueId>(i)) continue;
    const size_t r = static_cast<size_t>(p.root);
    first[r] = std::min(first[r], first[i]);
    last[r] = std::max(last[r], last[i]);
  }
  // Each value points at its root, at its offset there (plan.buffer_root is `parent`).
  std::vector<int> members(nv, 0);  // per root: the defined values in its buffer
  for (size_t i = 0; i < nv; ++i) {
    root_of(static_cast<ValueId>(i));
    if (first[i] >= 0) ++members[static_cast<size_t>(plan.buffer_root[i])];
  }
  std::vector<BufferRequest> reqs;
  std::vector<ValueId> req_value;
  for (size_t i = 0; i < nv; ++i) {
    if (first[i] < 0 || plan.buffer_root[i] != static_cast<ValueId>(i)) continue;
    if (opt.outside_arena && (is_graph_input[i] || is_graph_output[i]) && members[i] == 1 &&
        opt.outside_arena(static_cast<ValueId>(i))) {
      plan.value_offset[i] = kOutsideArena;
      plan.outside_bytes += bytes[i];
      continue;
    }
    reqs.push_back({bytes[i], first[i], std::max(first[i], last[i])});
    req_value.push_back(static_cast<ValueId>(i));
  }
  std::vector<NodeId> req_node;
  if (opt.workspace_bytes) {
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const size_t ws = opt.workspace_bytes(static_cast<NodeId>(i));
      if (ws == 0) continue;
      const int32_t step = static_cast<int32_t>(i) + 1;
      reqs.push_back({ws, step, step});
      req_node.push_back(static_cast<NodeId>(i));
    }
  }
  ArenaPlan arena = plan_arena(reqs, opt.alignment);
  plan.arena_bytes = arena.arena_bytes;
  plan.lower_bound_bytes = arena.lower_bound_bytes;
  for (size_t k = 0; k < req_value.size(); ++k)
    plan.value_offset[static_cast<size_t>(req_value[k])] = static_cast<int64_t>(arena.offsets[k]);
  for (size_t k = 0; k < req_node.size(); ++k)
    plan.workspace_offset[static_cast<size_t>(req_node[k])] =
        static_cast<int64_t>(arena.offsets[req_value.size() + k]);
  for (size_t i = 0; i < nv; ++i)
    if (first[i] >= 0 && plan.buffer_root[i] != static_cast<ValueId>(i))
      plan.value_offset[i] =
          plan.value_offset[static_cast<size_t>(plan.buffer_root[i])] + within[i];
  return plan;
}

}  // namespace amp::graph
