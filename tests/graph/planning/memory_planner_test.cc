#include "graph/planning/arena_planner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "graph/ir/graph_builder.h"
#include "graph/planning/memory_planner.h"

namespace amp::graph {
namespace {

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
  EXPECT_EQ(plan->buffer_root[flat], r);  // view
  EXPECT_EQ(plan->buffer_root[neg], r);   // in place over the reshaped relu
  EXPECT_NE(plan->buffer_root[r], x);     // never overwrite a graph input
  EXPECT_NE(plan->buffer_root[out], r);   // graph outputs never share
  EXPECT_EQ(plan->weights_bytes, 8u);     // the i64 shape constant
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
