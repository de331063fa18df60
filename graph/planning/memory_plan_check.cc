#include "graph/planning/memory_plan_check.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "graph/ir/node_label.h"

namespace amp::graph {
namespace {

// Bytes [offset, offset + length) of `origin`'s own content; origin kNoValue: nothing (or
// scratch) whose bytes no value may expect.
struct Piece {
  ValueId origin = kNoValue;
  uint64_t offset = 0;
  uint64_t length = 0;
};
using Content = std::vector<Piece>;

// Who put a segment's bytes there: a value (>= 0), node k's workspace (-2 - k), or nobody.
using Writer = int64_t;
constexpr Writer kNobody = -1;
Writer workspace_of(size_t node) {
  return -2 - static_cast<Writer>(node);
}

// Appends `p`, merged into the last piece where it continues it.
void append(Content& c, const Piece& p) {
  if (p.length == 0) return;
  if (!c.empty() && c.back().origin == p.origin && p.origin != kNoValue &&
      c.back().offset + c.back().length == p.offset)
    c.back().length += p.length;
  else
    c.push_back(p);
}

Content slice(const Content& whole, uint64_t begin, uint64_t length) {
  Content out;
  uint64_t at = 0;
  for (const Piece& p : whole) {
    const uint64_t lo = std::max(at, begin), hi = std::min(at + p.length, begin + length);
    if (lo < hi) append(out, {p.origin, p.offset + (lo - at), hi - lo});
    at += p.length;
  }
  return out;
}

// The arena's bytes as segments that cover it exactly, each tagged with its piece and
// writer; writes split the segments they cut.
class ArenaTags {
 public:
  explicit ArenaTags(uint64_t bytes) {
    if (bytes > 0) segments_[0] = {bytes, {kNoValue, 0, bytes}, kNobody};
  }

  void write(uint64_t at, const Content& content, Writer writer) {
    uint64_t end = at;
    for (const Piece& p : content) end += p.length;
    if (end == at) return;
    split(at);
    split(end);
    segments_.erase(segments_.lower_bound(at), segments_.lower_bound(end));
    for (const Piece& p : content) {
      if (p.length == 0) continue;
      segments_[at] = {at + p.length, p, writer};
      at += p.length;
    }
  }

  struct Mismatch {
    uint64_t at;
    Writer writer;
  };
  // The first byte from `at` on that does not hold what `want` says, if any; adds the
  // segments it looked at to *visited (a value copied piece by piece may span many).
  std::optional<Mismatch> first_mismatch(uint64_t at, const Content& want, size_t* visited) const {
    for (const Piece& p : want) {
      for (uint64_t done = 0; done < p.length; ++*visited) {
        auto it = std::prev(segments_.upper_bound(at));
        const uint64_t into = at - it->first;
        const Segment& s = it->second;
        if (p.origin == kNoValue || s.piece.origin != p.origin ||
            s.piece.offset + into != p.offset + done)
          return Mismatch{at, s.writer};
        const uint64_t n = std::min(s.end - at, p.length - done);
        at += n;
        done += n;
      }
    }
    return std::nullopt;
  }

 private:
  struct Segment {
    uint64_t end;
    Piece piece;
    Writer writer;
  };
  void split(uint64_t at) {
    auto it = segments_.upper_bound(at);
    if (it == segments_.begin()) return;
    --it;
    if (it->first == at || it->second.end <= at) return;
    Segment tail = it->second;
    const uint64_t cut = at - it->first;
    tail.piece.offset += cut;
    tail.piece.length -= cut;
    it->second.end = at;
    it->second.piece.length = cut;
    segments_[at] = tail;
  }
  std::map<uint64_t, Segment> segments_;  // by start
};

bool overlap(uint64_t a, uint64_t an, uint64_t b, uint64_t bn) {
  return an > 0 && bn > 0 && a < b + bn && b < a + an;
}

// The simulation; sets *exhausted (and fails) when it would handle more than max_pieces.
Status simulate(const Graph& g, const MemoryPlan& plan, const MemoryPlanOptions& opt,
                size_t max_pieces, bool* exhausted) {
  size_t work = 0;
  auto charge = [&](size_t pieces) {
    work += pieces;
    *exhausted = work > max_pieces;
    return !*exhausted;
  };
  const Status gave_up = internal_error("memory plan check: over its budget");
  const size_t nv = g.values.size();
  std::vector<uint64_t> bytes(nv, 0);
  // Where each placed value is: its arena offset, or for a graph input or output outside the
  // arena a region of its own past the arena's end (so no other value can reach it).
  std::vector<uint64_t> where(nv, 0);
  uint64_t regions_end = plan.arena_bytes;
  std::vector<char> is_io(nv, 0);
  for (ValueId v : g.inputs) is_io[static_cast<size_t>(v)] = 1;
  for (ValueId v : g.outputs) is_io[static_cast<size_t>(v)] = 1;
  std::vector<char> has_place(nv, 0);  // in the arena, or in a region of its own
  std::vector<NodeId> producer(nv, -1);
  std::vector<ValueId> defined(g.inputs.begin(), g.inputs.end());
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (ValueId v : g.nodes[i].outputs)
      if (v != kNoValue) {
        producer[static_cast<size_t>(v)] = static_cast<NodeId>(i);
        defined.push_back(v);
      }
  for (ValueId v : defined) {
    const size_t i = static_cast<size_t>(v);
    const Value& val = g.values[i];
    if (val.is_constant()) continue;
    AMP_ASSIGN_OR_RETURN(bytes[i], planned_bytes(val));
    if (bytes[i] == 0) continue;
    if (plan.value_offset[i] == kNotInArena)
      return internal_error("memory plan: value '" + val.name + "' has no place in the arena");
    has_place[i] = 1;
    if (plan.value_offset[i] == kOutsideArena) {
      if (!is_io[i] || plan.buffer_root[i] != v)
        return internal_error("memory plan: value '" + val.name +
                              "' is outside the arena but not a graph input or output of its own");
      where[i] = regions_end;
      regions_end += bytes[i];
      continue;
    }
    if (plan.value_offset[i] < 0 || bytes[i] > plan.arena_bytes ||
        static_cast<uint64_t>(plan.value_offset[i]) > plan.arena_bytes - bytes[i])
      return internal_error("memory plan: value '" + val.name + "' lies outside the arena");
    where[i] = static_cast<uint64_t>(plan.value_offset[i]);
  }
  auto placed = [&](ValueId v) { return v != kNoValue && has_place[static_cast<size_t>(v)]; };
  auto size_of = [&](ValueId v) { return bytes[static_cast<size_t>(v)]; };
  auto at = [&](ValueId v) { return where[static_cast<size_t>(v)]; };
  auto name = [&](ValueId v) { return "'" + g.value(v).name + "'"; };
  auto label = [&](size_t node) { return node_label(g.nodes[node]); };
  // Who reads, for an error: built only on failure (a plan build checks every step). Step
  // nodes.size() is the caller, reading the outputs.
  auto reader_of = [&](size_t step) {
    if (step == g.nodes.size()) return std::string("the caller, after the last step,");
    return label(step) + " (step " + std::to_string(step + 1) + ")";
  };

  // Expected contents. A constant (read by a copy) is its own origin.
  std::vector<Content> want(nv);
  // What a value's pieces add up to: its bytes (none where it is not in the arena).
  auto content_bytes = [&](ValueId v) -> uint64_t {
    const Value& val = g.value(v);
    return val.is_constant() ? static_cast<uint64_t>(val.constant->byte_size()) : size_of(v);
  };
  auto content = [&](ValueId v) -> Content& {
    Content& c = want[static_cast<size_t>(v)];
    if (c.empty() && g.value(v).is_constant()) c = {{v, 0, content_bytes(v)}};
    return c;
  };

  ArenaTags arena(regions_end);
  auto holds = [&](ValueId v, size_t step) -> Status {
    if (!placed(v)) return Status::ok();
    size_t visited = 0;
    const std::optional<ArenaTags::Mismatch> bad =
        arena.first_mismatch(at(v), content(v), &visited);
    if (!charge(visited)) return gave_up;
    if (!bad) return Status::ok();
    std::string by = "nothing (never written)";
    if (bad->writer >= 0) {
      const auto w = static_cast<ValueId>(bad->writer);
      const NodeId p = producer[static_cast<size_t>(w)];
      by = name(w) + (p >= 0 ? " of " + label(static_cast<size_t>(p)) : ", a graph input,");
    } else if (bad->writer != kNobody) {
      by = "the workspace of " + label(static_cast<size_t>(-2 - bad->writer));
    }
    return internal_error("memory plan: " + reader_of(step) + " reads " + name(v) +
                          ", but its bytes at arena offset " + std::to_string(bad->at) +
                          " hold what " + by + " wrote");
  };
  // `v` copied to `dest` by a view, Concat or Split kernel, which writes it as `writer`:
  // nothing to do where it is there already; a memcpy otherwise, from bytes that hold it
  // and do not overlap `dest`.
  auto copy = [&](ValueId v, uint64_t source, uint64_t dest, const Content& c, ValueId writer,
                  size_t step) -> Status {
    if (placed(v)) {
      AMP_RETURN_IF_ERROR(holds(v, step));
      if (source == dest) return Status::ok();
      if (overlap(source, size_of(v), dest, size_of(v)))
        return internal_error("memory plan: " + reader_of(step) + " copies " + name(v) +
                              " onto bytes that overlap it");
    }
    arena.write(dest, c, writer);
    return Status::ok();
  };

  for (ValueId v : g.inputs) {
    if (!placed(v)) continue;
    content(v) = {{v, 0, size_of(v)}};
    arena.write(at(v), content(v), v);
  }

  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    const size_t step = i;  // who reads, in errors
    uint64_t ws_at = 0, ws_bytes = 0;
    if (plan.workspace_offset[i] != kNotInArena && opt.workspace_bytes) {
      ws_at = static_cast<uint64_t>(plan.workspace_offset[i]);
      ws_bytes = opt.workspace_bytes(static_cast<NodeId>(i));
      if (plan.workspace_offset[i] < 0 || ws_bytes > plan.arena_bytes ||
          ws_at > plan.arena_bytes - ws_bytes)
        return internal_error("memory plan: the workspace of " + label(i) +
                              " lies outside the arena");
      arena.write(ws_at, {{kNoValue, 0, ws_bytes}}, workspace_of(i));
    }
    for (ValueId v : n.inputs) AMP_RETURN_IF_ERROR(holds(v, step));

    const ValueId in0 = n.inputs.empty() ? kNoValue : n.inputs[0];
    const ValueId out0 = n.outputs.empty() ? kNoValue : n.outputs[0];
    const std::vector<size_t> parts =
        opt.part_offsets ? opt.part_offsets(n) : std::vector<size_t>{};

    if (has_trait(n.op, kView) && in0 != kNoValue && placed(out0) &&
        content_bytes(in0) == size_of(out0)) {
      if (!charge(content(in0).size())) return gave_up;
      content(out0) = content(in0);
      AMP_RETURN_IF_ERROR(
          copy(in0, placed(in0) ? at(in0) : 0, at(out0), content(out0), out0, step));
    } else if (n.op == OpType::kConcat && !parts.empty() && parts.size() == n.inputs.size() &&
               placed(out0)) {
      // The parts at their offsets, in order; bytes between them (none, for the kernels'
      // contiguous parts) are the Concat's own.
      Content& whole = content(out0);
      std::vector<Piece> gaps;
      uint64_t filled = 0;
      for (size_t k = 0; k < parts.size(); ++k) {
        if (n.inputs[k] == kNoValue) continue;
        if (parts[k] < filled || parts[k] + content_bytes(n.inputs[k]) > size_of(out0))
          return internal_error("memory plan: " + reader_of(step) +
                                " reports part offsets that overlap or leave its output");
        if (!charge(content(n.inputs[k]).size())) return gave_up;
        if (parts[k] > filled) gaps.push_back({out0, filled, parts[k] - filled});
        if (parts[k] > filled) append(whole, gaps.back());
        for (const Piece& p : content(n.inputs[k])) append(whole, p);
        filled = parts[k] + content_bytes(n.inputs[k]);
      }
      if (filled < size_of(out0)) {
        gaps.push_back({out0, filled, size_of(out0) - filled});
        append(whole, gaps.back());
      }
      for (size_t k = 0; k < parts.size(); ++k) {
        const ValueId part = n.inputs[k];
        if (part == kNoValue) continue;
        AMP_RETURN_IF_ERROR(copy(part, placed(part) ? at(part) : 0, at(out0) + parts[k],
                                 content(part), out0, step));
      }
      for (const Piece& gap : gaps) arena.write(at(out0) + gap.offset, {gap}, out0);
    } else if (n.op == OpType::kSplit && !parts.empty() && parts.size() == n.outputs.size() &&
               in0 != kNoValue) {
      for (size_t k = 0; k < parts.size(); ++k) {
        const ValueId part = n.outputs[k];
        if (!placed(part)) continue;
        if (parts[k] + size_of(part) > content_bytes(in0))
          return internal_error("memory plan: " + reader_of(step) +
                                " reports a part offset past its input");
        content(part) = slice(content(in0), parts[k], size_of(part));
        if (placed(in0)) {
          AMP_RETURN_IF_ERROR(holds(in0, step));
          if (at(in0) + parts[k] == at(part)) continue;
          if (overlap(at(in0), size_of(in0), at(part), size_of(part)))
            return internal_error("memory plan: " + reader_of(step) + " writes " + name(part) +
                                  " over its input, elsewhere than at the part's offset");
        }
        arena.write(at(part), content(part), part);
      }
    } else {
      // A kernel that computes: an output may overlap an input only where the kernel may
      // overwrite that input elementwise (the same bytes, at the same place).
      const int in_place = opt.in_place_input ? opt.in_place_input(n) : -2;
      for (size_t k = 0; k < n.outputs.size(); ++k) {
        const ValueId o = n.outputs[k];
        if (!placed(o)) continue;
        if (overlap(at(o), size_of(o), ws_at, ws_bytes))
          return internal_error("memory plan: " + name(o) + " of " + reader_of(step) +
                                " overlaps the node's workspace");
        for (size_t j = 0; j < n.outputs.size(); ++j) {
          const ValueId p = n.outputs[j];
          if (j != k && placed(p) && overlap(at(o), size_of(o), at(p), size_of(p)))
            return internal_error("memory plan: outputs " + name(o) + " and " + name(p) + " of " +
                                  reader_of(step) + " overlap");
        }
        for (size_t j = 0; j < n.inputs.size(); ++j) {
          const ValueId v = n.inputs[j];
          if (!placed(v) || !overlap(at(o), size_of(o), at(v), size_of(v))) continue;
          const bool may = k == 0 && (in_place == -2 || in_place == static_cast<int>(j));
          if (!may || at(o) != at(v) || size_of(o) != size_of(v))
            return internal_error("memory plan: " + name(o) + " of " + reader_of(step) +
                                  " overlaps its input " + name(v));
        }
      }
      for (ValueId o : n.outputs) {
        if (!placed(o)) continue;
        content(o) = {{o, 0, size_of(o)}};
        arena.write(at(o), content(o), o);
      }
    }
  }
  for (ValueId v : g.outputs) AMP_RETURN_IF_ERROR(holds(v, g.nodes.size()));
  return Status::ok();
}

}  // namespace

Result<bool> check_memory_plan(const Graph& g, const MemoryPlan& plan,
                               const MemoryPlanOptions& options, size_t max_pieces) {
  bool exhausted = false;
  const Status s = simulate(g, plan, options, max_pieces, &exhausted);
  if (exhausted) return false;
  AMP_RETURN_IF_ERROR(s);
  return true;
}

}  // namespace amp::graph
