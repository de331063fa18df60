#include "graph/planning/arena_planner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <random>

#include "graph/ir/graph_builder.h"
#include "graph/planning/memory_plan_check.h"
#include "graph/planning/memory_planner.h"

namespace amp::graph {
namespace {

// check_memory_plan passes, having checked (not given up over its budget).
::testing::AssertionResult plan_checks(const Graph& g, const MemoryPlan& plan,
                                       const MemoryPlanOptions& opt) {
  Result<bool> checked = check_memory_plan(g, plan, opt);
  if (!checked.is_ok()) return ::testing::AssertionFailure() << checked.status().to_string();
  if (!*checked) return ::testing::AssertionFailure() << "not checked: over its budget";
  return ::testing::AssertionSuccess();
}

TEST(ArenaPlanner, RandomIntervalsNeverOverlapAndStayNearTheBound) {
  std::mt19937 rng(42);
  double worst_ratio = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 60);
    std::vector<BufferRequest> reqs;
    for (int i = 0; i < n; ++i) {
      const int32_t a = static_cast<int32_t>(rng() % 50);
      const int32_t len = static_cast<int32_t>(rng() % 8);
      reqs.push_back({1 + rng() % 100000, a, a + len});
    }
    ArenaPlan plan = plan_arena(reqs, 64);
    ASSERT_TRUE(arena_plan_is_valid(reqs, plan, 64)) << "trial " << trial;
    ASSERT_GE(plan.arena_bytes, plan.lower_bound_bytes);
    worst_ratio = std::max(worst_ratio, double(plan.arena_bytes) / plan.lower_bound_bytes);
  }
  // Random interval soups are harder than real networks; this only guards against a
  // planner that stops reusing memory at all.
  EXPECT_LT(worst_ratio, 2.0);
}

// The greedy-by-size best-fit placement exactly as first written: a scan over every
// placed request. plan_arena finds the overlapping ones through an interval index and
// must place everything at the same offsets.
std::vector<size_t> reference_offsets(const std::vector<BufferRequest>& reqs, size_t alignment) {
  std::vector<size_t> offsets(reqs.size(), 0), order(reqs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (reqs[a].bytes != reqs[b].bytes) return reqs[a].bytes > reqs[b].bytes;
    return reqs[a].first_step < reqs[b].first_step;
  });
  std::vector<size_t> placed;
  for (size_t idx : order) {
    const size_t size = align_up(reqs[idx].bytes, alignment);
    if (size == 0) continue;
    std::vector<size_t> over;
    for (size_t p : placed)
      if (reqs[idx].first_step <= reqs[p].last_step && reqs[p].first_step <= reqs[idx].last_step)
        over.push_back(p);
    std::sort(over.begin(), over.end(),
              [&](size_t a, size_t b) { return offsets[a] < offsets[b]; });
    size_t best_offset = 0, best_gap = SIZE_MAX, cursor = 0;
    for (size_t p : over) {
      if (offsets[p] > cursor && offsets[p] - cursor >= size && offsets[p] - cursor < best_gap) {
        best_gap = offsets[p] - cursor;
        best_offset = cursor;
      }
      cursor = std::max(cursor, offsets[p] + align_up(reqs[p].bytes, alignment));
    }
    offsets[idx] = best_gap == SIZE_MAX ? cursor : best_offset;
    placed.push_back(idx);
  }
  return offsets;
}

TEST(ArenaPlanner, IndexedPlacementMatchesTheFullScan) {
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 300; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 200);
    std::vector<BufferRequest> reqs;
    for (int i = 0; i < n; ++i) {
      const int32_t a = static_cast<int32_t>(rng() % 100);
      const int32_t len = static_cast<int32_t>(rng() % (trial % 3 == 0 ? 100 : 6));
      reqs.push_back({(rng() % 4 == 0) ? 0 : 1 + rng() % 5000, a, a + len});
    }
    ArenaPlan plan = plan_arena(reqs, 64);
    ASSERT_EQ(plan.offsets, reference_offsets(reqs, 64)) << "trial " << trial;
  }
}

// A 200,000-buffer chain (each live for two steps) plans in well under a second: the
// full scan made this 2 x 10^10 comparisons.
TEST(ArenaPlanner, LongChainPlansInNearLinearTime) {
  std::vector<BufferRequest> reqs;
  for (int32_t i = 0; i < 200000; ++i) reqs.push_back({size_t{1024} + (i % 7) * 64, i, i + 1});
  ArenaPlan plan = plan_arena(reqs, 64);
  EXPECT_LE(plan.arena_bytes, 2 * plan.lower_bound_bytes);
}

TEST(ArenaPlanner, ChainReusesTwoBuffers) {
  // a -> b -> c -> d, each 1 KiB: two buffers suffice at any time.
  std::vector<BufferRequest> reqs = {{1024, 0, 1}, {1024, 1, 2}, {1024, 2, 3}, {1024, 3, 4}};
  ArenaPlan plan = plan_arena(reqs, 64);
  EXPECT_EQ(plan.arena_bytes, 2048u);
  EXPECT_EQ(plan.lower_bound_bytes, 2048u);
}

TEST(ArenaPlanner, BestFitUsesTheSmallestGap) {
  // Two long-lived blocks leave a 512-byte hole and a 2048-byte hole; a 512-byte request
  // that overlaps both must go into the small hole.
  std::vector<BufferRequest> reqs = {{4096, 0, 10}, {512, 0, 1},   {1024, 0, 10},
                                     {2048, 0, 1},  {1024, 0, 10}, {512, 5, 6}};
  ArenaPlan plan = plan_arena(reqs, 64);
  ASSERT_TRUE(arena_plan_is_valid(reqs, plan, 64));
  EXPECT_EQ(plan.arena_bytes, plan.lower_bound_bytes);
}

// Random DAGs of elementwise ops and reshapes: the value plan never lets two values that
// are live at the same time share bytes (aliases excepted: they are the same buffer).
TEST(ValueMemoryPlan, RandomGraphsHaveNoLiveOverlap) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 100; ++trial) {
    GraphBuilder b;
    std::vector<ValueId> avail = {b.input("x", DType::kF32, {4, 16})};
    const int n = 2 + static_cast<int>(rng() % 30);
    for (int i = 0; i < n; ++i) {
      ValueId a = avail[rng() % avail.size()];
      ValueId c = avail[rng() % avail.size()];
      ValueId y;
      switch (rng() % 3) {
        case 0:
          y = b.node(OpType::kRelu, {a});
          break;
        case 1:
          y = b.node(OpType::kAdd, {a, c});
          break;
        default:
          y = b.node(OpType::kIdentity, {a});
          break;
      }
      Value& v = b.graph().value(y);
      v.dtype = DType::kF32;
      v.shape = Shape{4, 16};
      avail.push_back(y);
    }
    b.output(avail.back());
    if (rng() % 2) b.output(avail[avail.size() / 2]);
    Graph g = b.build();

    MemoryPlanOptions opt;
    opt.in_place_input = [](const Node& node) { return node.op == OpType::kIdentity ? -1 : 0; };
    auto plan = plan_memory(g, opt);
    ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
    ASSERT_LE(plan->lower_bound_bytes, plan->arena_bytes);
    ASSERT_TRUE(plan_checks(g, *plan, opt)) << "trial " << trial;

    // Simulate: at each step, every live value's bytes must hold that value only.
    const size_t steps = g.nodes.size() + 2;
    std::vector<int32_t> def(g.values.size(), 0), last(g.values.size(), 0);
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      for (ValueId v : g.nodes[i].outputs) def[v] = static_cast<int32_t>(i) + 1;
      for (ValueId v : g.nodes[i].inputs) last[v] = static_cast<int32_t>(i) + 1;
    }
    for (ValueId v : g.outputs) last[v] = static_cast<int32_t>(steps);
    for (size_t a = 0; a < g.values.size(); ++a) {
      for (size_t c = a + 1; c < g.values.size(); ++c) {
        if (plan->buffer_root[a] == plan->buffer_root[c]) continue;
        // Live ranges: [def, last]; a value written at step s may reuse a buffer whose last
        // read is at step s only through in-place (same root), so ranges are inclusive.
        const bool live_together =
            def[a] <= std::max(last[c], def[c]) && def[c] <= std::max(last[a], def[a]);
        if (!live_together) continue;
        const int64_t a0 = plan->value_offset[a], c0 = plan->value_offset[c];
        const bool overlap = a0 < c0 + 256 && c0 < a0 + 256;
        ASSERT_FALSE(overlap) << "trial " << trial << ": '" << g.values[a].name << "' and '"
                              << g.values[c].name << "' share bytes while both are live";
      }
    }
  }
}

TEST(ValueMemoryPlan, ReshapeAliasesAndReluRunsInPlace) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, {2, 8});
  ValueId r = b.node(OpType::kRelu, {x});
  ValueId s = b.constant("shape", TensorData::vector_i64({16}));
  ValueId flat = b.node(OpType::kReshape, {r, s});
  ValueId neg = b.node(OpType::kNeg, {flat});
  ValueId out = b.node(OpType::kAbs, {neg});
  b.output(out);
  Graph g = b.build();
  for (ValueId v : {r, neg, out}) {
    g.value(v).dtype = DType::kF32;
    g.value(v).shape = v == r ? Shape{2, 8} : Shape{16};
  }
  g.value(flat).dtype = DType::kF32;
  g.value(flat).shape = Shape{16};
  MemoryPlanOptions opt;
  opt.in_place_input = [](const Node&) { return 0; };
  auto plan = plan_memory(g, opt);
  ASSERT_TRUE(plan.is_ok());
  EXPECT_TRUE(plan_checks(g, *plan, opt));
  EXPECT_EQ(plan->buffer_root[flat], r);  // view
  EXPECT_EQ(plan->buffer_root[neg], r);   // in place over the reshaped relu
  EXPECT_NE(plan->buffer_root[r], x);     // never overwrite a graph input
  EXPECT_NE(plan->buffer_root[out], r);   // graph outputs never share
  EXPECT_EQ(plan->weights_bytes, 8u);     // the i64 shape constant
}

// Part offsets as the CPU Concat / Split kernels report them for parts that are each one
// block of the whole (axis 0 here): the running sum of the parts' bytes.
std::vector<size_t> running_offsets(const Graph& g, const std::vector<ValueId>& parts) {
  std::vector<size_t> offsets;
  size_t at = 0;
  for (ValueId v : parts) {
    offsets.push_back(at);
    at += static_cast<size_t>(*g.value(v).shape->numel()) * dtype_size(g.value(v).dtype);
  }
  return offsets;
}

MemoryPlanOptions parts_in_place_options(const Graph& g) {
  MemoryPlanOptions opt;
  opt.in_place_input = [](const Node& n) {
    return n.op == OpType::kRelu || n.op == OpType::kAdd ? 0 : -1;
  };
  opt.part_offsets = [&g](const Node& n) {
    if (n.op == OpType::kConcat) return running_offsets(g, n.inputs);
    if (n.op == OpType::kSplit) return running_offsets(g, n.outputs);
    return std::vector<size_t>{};
  };
  return opt;
}

// plan_memory with parts in place, then check_memory_plan: whether it checked the plan.
Result<bool> plan_then_check(const Graph& g) {
  const MemoryPlanOptions opt = parts_in_place_options(g);
  AMP_ASSIGN_OR_RETURN(MemoryPlan plan, plan_memory(g, opt));
  return check_memory_plan(g, plan, opt);
}

void set_f32(Graph& g, ValueId v, std::vector<int64_t> dims) {
  g.value(v).dtype = DType::kF32;
  g.value(v).shape = Shape::from_static(dims);
}

// relu(x) and neg(x) are written where Concat puts them, and the Split of the result reads
// its halves in place: no copy, one 128-byte buffer for all five values.
TEST(ValueMemoryPlan, ConcatInputsAndSplitOutputsLieInTheWhole) {
  GraphBuilder b;
  const ValueId x = b.input("x", DType::kF32, {1, 16});
  const ValueId a = b.node(OpType::kRelu, {x});
  const ValueId c = b.node(OpType::kNeg, {x});
  const ValueId y = b.node(OpType::kConcat, {a, c});
  const std::vector<ValueId> parts = b.node_multi(OpType::kSplit, {y}, 2);
  const ValueId out = b.node(OpType::kSub, {parts[0], parts[1]});
  b.output(out);
  Graph g = b.build();
  for (ValueId v : {a, c, parts[0], parts[1], out}) set_f32(g, v, {1, 16});
  set_f32(g, y, {2, 16});
  auto plan = plan_memory(g, parts_in_place_options(g));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  ASSERT_TRUE(plan_checks(g, *plan, parts_in_place_options(g)));
  for (ValueId v : {a, c, parts[0], parts[1]}) EXPECT_EQ(plan->buffer_root[v], y);
  const int64_t at = plan->value_offset[y];
  EXPECT_EQ(plan->value_offset[a], at);
  EXPECT_EQ(plan->value_offset[c], at + 64);
  EXPECT_EQ(plan->value_offset[parts[0]], at);
  EXPECT_EQ(plan->value_offset[parts[1]], at + 64);
}

// YOLOv8's C2f: Concat(Split(x)..., m). x's buffer moves into the Concat's output, so both
// halves are in place and only m is written there by its producer; with the halves swapped
// they do not tile x in order, and are copied.
TEST(ValueMemoryPlan, ASplitBufferMovesIntoAConcatOfItsParts) {
  for (bool swapped : {false, true}) {
    GraphBuilder b;
    const ValueId in = b.input("in", DType::kF32, {2, 16});
    const ValueId x = b.node(OpType::kRelu, {in});
    const std::vector<ValueId> halves = b.node_multi(OpType::kSplit, {x}, 2);
    const ValueId m = b.node(OpType::kNeg, {halves[1]});
    const ValueId y =
        b.node(OpType::kConcat, swapped ? std::vector<ValueId>{halves[1], halves[0], m}
                                        : std::vector<ValueId>{halves[0], halves[1], m});
    b.output(b.node(OpType::kAbs, {y}));
    Graph g = b.build();
    set_f32(g, x, {2, 16});
    for (ValueId v : {halves[0], halves[1], m}) set_f32(g, v, {1, 16});
    set_f32(g, y, {3, 16});
    set_f32(g, g.outputs[0], {3, 16});
    auto plan = plan_memory(g, parts_in_place_options(g));
    ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
    ASSERT_TRUE(plan_checks(g, *plan, parts_in_place_options(g)));
    const int64_t at = plan->value_offset[y];
    EXPECT_EQ(plan->buffer_root[m], y);
    EXPECT_EQ(plan->value_offset[m], at + 128);
    EXPECT_EQ(plan->buffer_root[x] == y, !swapped);
    if (!swapped) {
      EXPECT_EQ(plan->value_offset[halves[0]], at);
      EXPECT_EQ(plan->value_offset[halves[1]], at + 64);
    }
  }
}

// What stays a copy: a graph input (its buffer is the caller's data), the same value twice,
// a graph output, a part that is itself a piece of another buffer (a Split's output), and a
// part whose offset breaks the alignment.
TEST(ValueMemoryPlan, PartsThatCannotMoveAreCopied) {
  GraphBuilder b;
  const ValueId x = b.input("x", DType::kF32, {1, 16});
  const ValueId a = b.node(OpType::kRelu, {x});
  const ValueId shown = b.node(OpType::kNeg, {x});
  const ValueId y = b.node(OpType::kConcat, {x, a, a, shown});
  const std::vector<ValueId> halves = b.node_multi(OpType::kSplit, {y}, 2);
  const ValueId z = b.node(OpType::kConcat, {halves[1], halves[0]});
  const ValueId narrow = b.node(OpType::kAbs, {x});
  const ValueId small = b.node(OpType::kSlice, {narrow});  // 3 floats: a 12-byte part
  const ValueId tail = b.node(OpType::kRelu, {narrow});
  const ValueId w = b.node(OpType::kConcat, {small, tail});
  b.output(shown);
  b.output(z);
  b.output(w);
  Graph g = b.build();
  for (ValueId v : {a, shown, narrow, tail}) set_f32(g, v, {1, 16});
  set_f32(g, small, {1, 3});
  set_f32(g, w, {1, 19});
  set_f32(g, y, {4, 16});
  for (ValueId v : {halves[0], halves[1], z})
    set_f32(g, v, v == z ? std::vector<int64_t>{4, 16} : std::vector<int64_t>{2, 16});
  auto plan = plan_memory(g, parts_in_place_options(g));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  ASSERT_TRUE(plan_checks(g, *plan, parts_in_place_options(g)));
  EXPECT_NE(plan->buffer_root[x], y);                            // a graph input
  EXPECT_EQ(plan->buffer_root[a], y);                            // the first a moves in ...
  EXPECT_EQ(plan->value_offset[a], plan->value_offset[y] + 64);  // ... at part 1, not 2
  EXPECT_NE(plan->buffer_root[shown], y);                        // a graph output
  EXPECT_EQ(plan->buffer_root[halves[0]], y);                    // views of y,
  EXPECT_NE(plan->buffer_root[z], y);                            // so z, an output, copies them
  EXPECT_NE(plan->buffer_root[small], w);                        // w is an output too
  // Without outputs in the way: the 12-byte part goes in, the next one (at byte 12) not.
  GraphBuilder b2;
  const ValueId x2 = b2.input("x", DType::kF32, {1, 16});
  const ValueId s2 = b2.node(OpType::kSlice, {x2});
  const ValueId t2 = b2.node(OpType::kRelu, {x2});
  const ValueId w2 = b2.node(OpType::kConcat, {s2, t2});
  b2.output(b2.node(OpType::kRelu, {w2}));
  Graph g2 = b2.build();
  set_f32(g2, s2, {1, 3});
  set_f32(g2, t2, {1, 16});
  set_f32(g2, w2, {1, 19});
  set_f32(g2, g2.outputs[0], {1, 19});
  auto plan2 = plan_memory(g2, parts_in_place_options(g2));
  ASSERT_TRUE(plan2.is_ok()) << plan2.status().to_string();
  EXPECT_EQ(plan2->buffer_root[s2], w2);
  EXPECT_NE(plan2->buffer_root[t2], w2);
}

// The kernels of the random graphs below run on element ids over `plan`'s arena: Relu and
// Add make new ids (in place or not), Identity copies unless at its input's place, a Concat
// or Split copies only the parts it does not find where they belong (axis 0: the running
// offsets). Returns why an input or graph output did not hold what it should, or "".
// Graph inputs and outputs outside the arena (kOutsideArena) each get memory of their own
// after it.
std::string misread(const Graph& g, const MemoryPlan& plan, int* placed_parts) {
  std::vector<std::vector<int64_t>> want(g.values.size());
  std::vector<size_t> outside_at(g.values.size(), 0);
  size_t floats = plan.arena_bytes / 4;
  for (size_t v = 0; v < g.values.size(); ++v)
    if (plan.value_offset[v] == kOutsideArena) {
      outside_at[v] = floats;
      floats += static_cast<size_t>(*g.values[v].shape->numel());
    }
  std::vector<int64_t> arena(floats, -1);
  int64_t next_id = 0;
  auto fresh = [&](size_t count) {
    std::vector<int64_t> ids(count);
    for (int64_t& id : ids) id = next_id++;
    return ids;
  };
  auto at = [&](ValueId v) {
    return plan.value_offset[v] == kOutsideArena ? outside_at[v]
                                                 : static_cast<size_t>(plan.value_offset[v]) / 4;
  };
  auto write = [&](ValueId v) {
    std::copy(want[v].begin(), want[v].end(), arena.begin() + static_cast<ptrdiff_t>(at(v)));
  };
  auto holds = [&](ValueId v) {
    return std::equal(want[v].begin(), want[v].end(),
                      arena.begin() + static_cast<ptrdiff_t>(at(v)));
  };
  const ValueId x = g.inputs[0];
  want[x] = fresh(static_cast<size_t>(*g.value(x).shape->numel()));
  write(x);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& node = g.nodes[i];
    for (ValueId v : node.inputs)
      if (!holds(v))
        return "step " + std::to_string(i + 1) + " (" + std::string(op_name(node.op)) +
               "): input '" + g.value(v).name + "' was overwritten";
    const ValueId y = node.outputs[0];
    const size_t count = static_cast<size_t>(*g.value(y).shape->numel());
    switch (node.op) {
      case OpType::kRelu:
      case OpType::kAdd:
        want[y] = fresh(count);
        write(y);
        break;
      case OpType::kIdentity:
        want[y] = want[node.inputs[0]];
        write(y);
        break;
      case OpType::kConcat: {
        size_t offset = 0;
        for (ValueId v : node.inputs) {
          want[y].insert(want[y].end(), want[v].begin(), want[v].end());
          if (at(v) == at(y) + offset)
            ++*placed_parts;
          else
            std::copy(want[v].begin(), want[v].end(),
                      arena.begin() + static_cast<ptrdiff_t>(at(y) + offset));
          offset += want[v].size();
        }
        break;
      }
      default: {  // Split
        const std::vector<int64_t>& whole = want[node.inputs[0]];
        size_t offset = 0;
        for (ValueId part : node.outputs) {
          const size_t size = static_cast<size_t>(*g.value(part).shape->numel());
          want[part].assign(whole.begin() + static_cast<ptrdiff_t>(offset),
                            whole.begin() + static_cast<ptrdiff_t>(offset + size));
          if (at(part) == at(node.inputs[0]) + offset)
            ++*placed_parts;
          else
            write(part);
          offset += size;
        }
        break;
      }
    }
  }
  for (ValueId v : g.outputs)
    if (!holds(v)) return "output '" + g.value(v).name + "' was overwritten";
  return "";
}

// A random DAG of `n` Relu / Add, Identity, Concat and Split nodes along axis 0 (16 floats,
// 64 bytes, a row) from an input of 2 rows; one or two graph outputs.
Graph random_parts_graph(std::mt19937& rng) {
  GraphBuilder b;
  std::vector<ValueId> avail = {b.input("x", DType::kF32, {2, 16})};
  std::vector<int64_t> rows = {2};  // per avail entry
  auto add = [&](ValueId v, int64_t r) {
    avail.push_back(v);
    rows.push_back(r);
  };
  const int n = 2 + static_cast<int>(rng() % 25);
  for (int i = 0; i < n; ++i) {
    const size_t ia = rng() % avail.size();
    const ValueId a = avail[ia];
    switch (rng() % 5) {
      case 0:
        add(b.node(OpType::kRelu, {a}), rows[ia]);
        break;
      case 1: {
        size_t ic = rng() % avail.size();
        if (rows[ic] != rows[ia]) ic = ia;
        add(b.node(OpType::kAdd, {a, avail[ic]}), rows[ia]);
        break;
      }
      case 2:
        add(b.node(OpType::kIdentity, {a}), rows[ia]);
        break;
      case 3: {
        const size_t ic = rng() % avail.size(), id = rng() % avail.size();
        std::vector<ValueId> ins = {a, avail[ic]};
        int64_t r = rows[ia] + rows[ic];
        if (rng() % 2) {
          ins.push_back(avail[id]);
          r += rows[id];
        }
        add(b.node(OpType::kConcat, ins), r);
        break;
      }
      default: {
        if (rows[ia] < 2) {
          add(b.node(OpType::kRelu, {a}), rows[ia]);
          break;
        }
        const int64_t first_rows = 1 + static_cast<int64_t>(rng() % (rows[ia] - 1));
        std::vector<ValueId> outs = b.node_multi(OpType::kSplit, {a}, 2);
        add(outs[0], first_rows);
        add(outs[1], rows[ia] - first_rows);
        break;
      }
    }
  }
  b.output(avail.back());
  if (rng() % 2) b.output(avail[avail.size() / 2]);
  Graph g = b.build();
  for (size_t k = 1; k < avail.size(); ++k) set_f32(g, avail[k], {rows[k], 16});
  return g;
}

// Random graphs with parts placed in place: the kernels, run on element ids, read at every
// step the contents each input should have, and the graph outputs hold theirs at the end;
// check_memory_plan agrees.
// Every other trial puts the graph inputs and outputs it may outside the arena (a host
// executor's callers' inputs and returned tensors).
TEST(ValueMemoryPlan, RandomGraphsWithPartsInPlaceReadWhatWasWritten) {
  std::mt19937 rng(11);
  int placed_parts = 0, outside = 0;
  for (int trial = 0; trial < 300; ++trial) {
    Graph g = random_parts_graph(rng);
    MemoryPlanOptions opt = parts_in_place_options(g);
    if (trial % 2) opt.outside_arena = [](ValueId) { return true; };
    auto plan = plan_memory(g, opt);
    ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
    ASSERT_TRUE(plan_checks(g, *plan, opt)) << "trial " << trial;
    const std::string why = misread(g, *plan, &placed_parts);
    ASSERT_EQ(why, "") << "trial " << trial;
    outside += static_cast<int>(
        std::count(plan->value_offset.begin(), plan->value_offset.end(), kOutsideArena));
  }
  EXPECT_GT(placed_parts, 100);  // the rule is exercised, not only the copies
  EXPECT_GT(outside, 100);
}

// x -> early = Relu(x) (an output, done at step 1), then a chain to late (an output); a
// Split of `shared` (an output) lies in its buffer, an Identity of input z lies in z's, and
// x is an output too. Outside the arena: x, early and late; not shared nor z (a view or
// part lies in each). Early no longer holds its bytes through the chain: the arena shrinks.
TEST(ValueMemoryPlan, GraphInputsAndOutputsOfTheirOwnLeaveTheArena) {
  GraphBuilder b;
  const ValueId x = b.input("x", DType::kF32, {2, 16});
  const ValueId z = b.input("z", DType::kF32, {2, 16});
  const ValueId early = b.node(OpType::kRelu, {x});
  const ValueId n1 = b.node(OpType::kNeg, {x});
  const ValueId zv = b.node(OpType::kIdentity, {z});
  const ValueId n2 = b.node(OpType::kAdd, {n1, zv});
  const ValueId shared = b.node(OpType::kNeg, {n2});
  const std::vector<ValueId> halves = b.node_multi(OpType::kSplit, {shared}, 2);
  const ValueId late = b.node(OpType::kAdd, {halves[0], halves[1]});
  for (ValueId v : {early, shared, late, x}) b.output(v);
  Graph g = b.build();
  for (ValueId v : {early, n1, zv, n2, shared}) set_f32(g, v, {2, 16});
  for (ValueId v : {halves[0], halves[1], late}) set_f32(g, v, {1, 16});
  MemoryPlanOptions opt = parts_in_place_options(g);
  auto inside = plan_memory(g, opt);
  ASSERT_TRUE(inside.is_ok()) << inside.status().to_string();
  std::vector<ValueId> asked;
  opt.outside_arena = [&asked](ValueId v) {
    asked.push_back(v);
    return true;
  };
  auto plan = plan_memory(g, opt);
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  ASSERT_TRUE(plan_checks(g, *plan, opt));
  int unused = 0;
  EXPECT_EQ(misread(g, *plan, &unused), "");
  for (ValueId v : {x, early, late}) EXPECT_EQ(plan->value_offset[v], kOutsideArena);
  EXPECT_GE(plan->value_offset[shared], 0);
  EXPECT_EQ(plan->buffer_root[halves[0]], shared);
  EXPECT_GE(plan->value_offset[z], 0);
  EXPECT_EQ(plan->buffer_root[zv], z);
  EXPECT_EQ(plan->outside_bytes, 128u + 128u + 64u);
  EXPECT_LT(plan->arena_bytes, inside->arena_bytes);
  EXPECT_LT(plan->lower_bound_bytes, inside->lower_bound_bytes);
  // Asked only of those that could leave.
  std::sort(asked.begin(), asked.end());
  EXPECT_EQ(asked, (std::vector<ValueId>{x, early, late}));

  // An executor that cannot take `late` there: it stays in the arena.
  opt.outside_arena = [late](ValueId v) { return v != late; };
  auto kept = plan_memory(g, opt);
  ASSERT_TRUE(kept.is_ok());
  EXPECT_EQ(kept->value_offset[early], kOutsideArena);
  EXPECT_GE(kept->value_offset[late], 0);
  EXPECT_TRUE(plan_checks(g, *kept, opt));
}

// The check refuses a value outside the arena that is not a graph input or output of its own.
TEST(ValueMemoryPlan, CheckRefusesAnIntermediateValueOutsideTheArena) {
  GraphBuilder b;
  const ValueId x = b.input("x", DType::kF32, {1, 16});
  const ValueId a = b.node(OpType::kRelu, {x});
  const ValueId y = b.node(OpType::kNeg, {a});
  b.output(y);
  Graph g = b.build();
  for (ValueId v : {a, y}) set_f32(g, v, {1, 16});
  MemoryPlanOptions opt;
  opt.outside_arena = [](ValueId) { return true; };
  auto plan = plan_memory(g, opt);
  ASSERT_TRUE(plan.is_ok());
  ASSERT_TRUE(plan_checks(g, *plan, opt));
  MemoryPlan bad = *plan;
  bad.value_offset[a] = kOutsideArena;
  const Result<bool> check = check_memory_plan(g, bad, opt);
  ASSERT_FALSE(check.is_ok());
  EXPECT_NE(check.status().to_string().find("not a graph input or output"), std::string::npos)
      << check.status().to_string();
}

// The same plans with one value moved (by a multiple of 64 bytes, inside the arena): where
// the kernels on element ids then read something else, check_memory_plan must say so,
// including where the value moved within its own buffer (a part onto another part), which
// a check of pairs of buffers cannot see.
TEST(ValueMemoryPlan, CheckCatchesEveryMisreadOfAMovedValue) {
  std::mt19937 rng(5);
  int misreads = 0, within_buffer = 0, rejected_harmless = 0;
  for (int trial = 0; trial < 600; ++trial) {
    Graph g = random_parts_graph(rng);
    const MemoryPlanOptions opt = parts_in_place_options(g);
    auto plan = plan_memory(g, opt);
    ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
    MemoryPlan moved = *plan;
    const auto v = static_cast<ValueId>(rng() % g.values.size());
    const int64_t bytes = *g.value(v).shape->numel() * 4;
    const int64_t slots = (static_cast<int64_t>(moved.arena_bytes) - bytes) / 64;
    if (slots < 1) continue;
    moved.value_offset[v] = 64 * static_cast<int64_t>(rng() % static_cast<uint64_t>(slots + 1));
    if (moved.value_offset[v] == plan->value_offset[v]) continue;
    int unused = 0;
    const std::string why = misread(g, moved, &unused);
    const Result<bool> check = check_memory_plan(g, moved, opt);
    ASSERT_TRUE(!check.is_ok() || *check) << "trial " << trial << ": not checked";
    if (why.empty()) {
      rejected_harmless += !check.is_ok();  // e.g. a memcpy onto overlapping bytes
      continue;
    }
    ++misreads;
    const ValueId root = plan->buffer_root[v];
    const int64_t root_bytes = *g.value(root).shape->numel() * 4;
    within_buffer += root != v && moved.value_offset[v] >= plan->value_offset[root] &&
                     moved.value_offset[v] + bytes <= plan->value_offset[root] + root_bytes;
    EXPECT_FALSE(check.is_ok()) << "trial " << trial << ": " << why;
  }
  EXPECT_GT(misreads, 200);
  EXPECT_GT(within_buffer, 5);
  std::cout << "[check] " << misreads << " moved values misread, " << within_buffer
            << " of them within their own buffer; " << rejected_harmless
            << " harmless moves rejected\n";
}

// A part placed onto its sibling inside the Concat's buffer: both share one root, so a check
// of pairs of buffers skipped them; the simulation names the value and its writer.
TEST(ValueMemoryPlan, CheckNamesAPartWrittenOverItsSibling) {
  GraphBuilder b;
  const ValueId x = b.input("x", DType::kF32, {1, 16});
  const ValueId a = b.node(OpType::kRelu, {x});
  const ValueId c = b.node(OpType::kNeg, {x});
  const ValueId y = b.node(OpType::kConcat, {a, c});
  b.output(b.node(OpType::kAbs, {y}));
  Graph g = b.build();
  for (ValueId v : {a, c}) set_f32(g, v, {1, 16});
  for (ValueId v : {y, g.outputs[0]}) set_f32(g, v, {2, 16});
  g.value(a).name = "a";
  g.value(c).name = "c";
  const MemoryPlanOptions opt = parts_in_place_options(g);
  auto plan = plan_memory(g, opt);
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  ASSERT_EQ(plan->buffer_root[a], y);
  ASSERT_EQ(plan->buffer_root[c], y);
  MemoryPlan bad = *plan;
  bad.value_offset[c] = bad.value_offset[a];
  const Status check = check_memory_plan(g, bad, opt).status();
  ASSERT_FALSE(check.is_ok());
  EXPECT_NE(check.message().find("reads 'a'"), std::string::npos) << check.to_string();
  EXPECT_NE(check.message().find("hold what 'c'"), std::string::npos) << check.to_string();
}

// 20,000 nested Concats, each one's output moving into the next: one buffer holds them all,
// every part at its offset in the outermost (the buffer forest is 20,000 deep before path
// compression flattens it). check_memory_plan's cost grows with the nesting (each Concat's
// pieces are its parts'): it checks 500 levels and gives up on 20,000 within its budget.
TEST(ValueMemoryPlan, DeeplyNestedConcatsShareOneBuffer) {
  for (int depth : {500, 20000}) {
    GraphBuilder b;
    const ValueId x = b.input("x", DType::kF32, {1, 16});
    ValueId whole = b.node(OpType::kRelu, {x});
    std::vector<ValueId> made = {whole};
    for (int k = 0; k < depth; ++k) {
      const ValueId part = b.node(OpType::kNeg, {x});
      whole = b.node(OpType::kConcat, {whole, part});
      made.push_back(part);
      made.push_back(whole);
    }
    b.output(b.node(OpType::kAbs, {whole}));
    Graph g = b.build();
    for (ValueId v : made) set_f32(g, v, {1, 16});
    int64_t rows = 1;
    for (size_t k = 2; k < made.size(); k += 2) set_f32(g, made[k], {++rows, 16});
    set_f32(g, g.outputs[0], {rows, 16});
    const MemoryPlanOptions opt = parts_in_place_options(g);
    auto plan = plan_memory(g, opt);
    ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
    EXPECT_EQ(plan->buffer_root[made[0]], whole);
    EXPECT_EQ(plan->value_offset[made[1]], plan->value_offset[whole] + 64);
    EXPECT_EQ(plan->value_offset[made[made.size() - 2]], plan->value_offset[whole] + 64 * depth);
    const Result<bool> checked = check_memory_plan(g, *plan, opt);
    ASSERT_TRUE(checked.is_ok()) << checked.status().to_string();
    EXPECT_EQ(*checked, depth == 500) << "depth " << depth;
  }
}

// Concat(c, c) on Concat(c, c) ...: the pieces double at each level (the second c is a
// copy of the first). 10 deep is checked; at 26 deep the check gives up within its budget
// instead of building 2^26 pieces.
TEST(ValueMemoryPlan, CheckGivesUpOnSelfConcatsDoublingTheirPieces) {
  for (int depth : {10, 26}) {
    GraphBuilder b;
    const ValueId x = b.input("x", DType::kF32, {1, 16});
    ValueId whole = b.node(OpType::kRelu, {x});
    std::vector<ValueId> made = {whole};
    for (int k = 0; k < depth; ++k) made.push_back(whole = b.node(OpType::kConcat, {whole, whole}));
    b.output(b.node(OpType::kAbs, {whole}));
    Graph g = b.build();
    for (size_t k = 0; k < made.size(); ++k) set_f32(g, made[k], {int64_t{1} << k, 16});
    set_f32(g, g.outputs[0], {int64_t{1} << depth, 16});
    const Result<bool> checked = plan_then_check(g);
    ASSERT_TRUE(checked.is_ok()) << checked.status().to_string();
    EXPECT_EQ(*checked, depth == 10) << "depth " << depth;
  }
}

// A graph input Split into K rows and Concatenated again is copied row by row (the input
// is the caller's and never moves), so the result spans K arena segments though its
// expected content is one piece; M views of it read them all. The work counts the
// segments read: K = M = 64 is checked, K = M = 4,096 (16 M segment reads) gives up.
TEST(ValueMemoryPlan, CheckCountsTheSegmentsItReads) {
  for (int k : {64, 4096}) {
    GraphBuilder b;
    const ValueId x = b.input("x", DType::kF32, {k, 16});
    const std::vector<ValueId> rows = b.node_multi(OpType::kSplit, {x}, k);
    ValueId whole = b.node(OpType::kConcat, rows);
    std::vector<ValueId> views = {whole};
    for (int m = 0; m < k; ++m) views.push_back(whole = b.node(OpType::kIdentity, {whole}));
    b.output(b.node(OpType::kAbs, {whole}));
    Graph g = b.build();
    for (ValueId v : rows) set_f32(g, v, {1, 16});
    for (ValueId v : views) set_f32(g, v, {k, 16});
    set_f32(g, g.outputs[0], {k, 16});
    const Result<bool> checked = plan_then_check(g);
    ASSERT_TRUE(checked.is_ok()) << checked.status().to_string();
    EXPECT_EQ(*checked, k == 64) << "K = M = " << k;
  }
}

TEST(ValueMemoryPlan, SymbolicShapesMustBeBoundFirst) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, Shape({Dim::symbolic("N"), Dim(4)}));
  ValueId y = b.node(OpType::kRelu, {x});
  b.output(y);
  Graph g = b.build();
  auto plan = plan_memory(g, {});
  ASSERT_FALSE(plan.is_ok());
  EXPECT_NE(plan.status().message().find("'x'"), std::string::npos);
}

}  // namespace
}  // namespace amp::graph
