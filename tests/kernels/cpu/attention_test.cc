// The CPU Attention kernel (kernels/cpu/attention.cc) in f32 against itself in f64 on the
// same values. On a CPU with AVX2 and FMA, f32 runs its query rows in strips through the
// register-blocked products (gemm_strip_avx2.h) while f64 keeps the row-at-a-time loops the
// ONNX node tests hold to their references, so any difference in masking, causal rows,
// grouped heads, softcap, the qk output or an edge of the blocking shows here. The shapes
// reach every edge: query rows that fill no strip (1, 5, 7, 13, 37), key counts and head
// sizes that fill no 16-column tile or exactly 8 (1, 9, 16, 17, 70; Dv 8, 9, 24, 48), a
// fully masked row, one and two threads. Under tests/tools/run_as_avx2_cpu.sh the same runs
// as on an AVX2-only CPU.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "graph/ir/graph_builder.h"
#include "tests/test_util/graph_runner.h"
#include "tests/test_util/node_tests.h"

namespace amp {
namespace {

using graph::Attributes;
using graph::GraphBuilder;
using graph::OpType;
using graph::TensorData;
using graph::ValueId;

struct Case {
  std::string label;
  std::vector<int64_t> q, k, v;  // 3-D [B, S, H*D] (with the head counts) or 4-D [B, H, S, D]
  int64_t q_heads = 0, kv_heads = 0;
  std::string mask;  // "", "float" (with -inf and a fully masked first row), "bool"
  std::vector<int64_t> mask_dims;
  bool causal = false;
  float softcap = 0.0f;
  int qk_mode = -1;  // >= 0: the qk_matmul_output output too, in that mode
};

int64_t count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// Values in [-2, 2) (scores reach a few units, so exp's whole range is used), the same
// numbers stored as f32 and as f64.
std::vector<double> random_values(const std::vector<int64_t>& dims, std::mt19937& gen) {
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  std::vector<double> v(static_cast<size_t>(count(dims)));
  for (double& x : v) x = u(gen);
  return v;
}

TensorData as(DType t, const std::vector<int64_t>& dims, const std::vector<double>& v) {
  if (t == DType::kF64) return TensorData::from_vector<double>(t, dims, v);
  return TensorData::from_vector<float>(t, dims, {v.begin(), v.end()});
}

std::vector<TensorData> run(const Case& c, DType t, unsigned seed, int threads) {
  std::mt19937 gen(seed);
  GraphBuilder b;
  std::map<std::string, TensorData> in;
  auto input = [&](const std::string& name, TensorData data) {
    const ValueId id = b.input(name, data.dtype(), graph::Shape::from_static(data.dims()));
    in[name] = std::move(data);
    return id;
  };
  std::vector<ValueId> ins = {input("q", as(t, c.q, random_values(c.q, gen))),
                              input("k", as(t, c.k, random_values(c.k, gen))),
                              input("v", as(t, c.v, random_values(c.v, gen)))};
  const size_t n = static_cast<size_t>(count(c.mask_dims));
  if (c.mask == "bool") {
    std::vector<uint8_t> m(n);
    for (size_t i = 0; i < n; ++i) m[i] = (i * 7 + 3) % 5 != 0;  // some keys hidden
    ins.push_back(input("mask", TensorData::from_vector<uint8_t>(DType::kBool, c.mask_dims, m)));
  } else if (c.mask == "float") {
    std::vector<double> m(n);
    for (size_t i = 0; i < n; ++i) m[i] = (i % 4 == 1) ? -INFINITY : 0.25 * (i % 3);
    for (int64_t j = 0; j < c.mask_dims.back(); ++j) m[static_cast<size_t>(j)] = -INFINITY;
    ins.push_back(input("mask", as(t, c.mask_dims, m)));
  }
  Attributes at;
  if (c.q_heads) at.set("q_num_heads", c.q_heads);
  if (c.kv_heads) at.set("kv_num_heads", c.kv_heads);
  if (c.causal) at.set("is_causal", int64_t{1});
  if (c.softcap > 0) at.set("softcap", c.softcap);
  if (c.qk_mode >= 0) {
    at.set("qk_matmul_output_mode", int64_t{c.qk_mode});
    std::vector<ValueId> outs = b.node_multi(OpType::kAttention, ins, 4, at);
    b.output(outs[0]);
    b.output(outs[3]);
  } else {
    b.output(b.node(OpType::kAttention, ins, at));
  }
  auto out = test::run_graph(b.build(), in, kernels::Backend::kCpu, threads);
  EXPECT_TRUE(out.is_ok()) << c.label << ": " << out.status().to_string();
  return out.is_ok() ? std::move(*out) : std::vector<TensorData>{};
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      // BERT at 128 tokens' proportions, HF's additive mask [B, 1, 1, T].
      {"3-D float mask",
       {2, 37, 4 * 64},
       {2, 37, 4 * 64},
       {2, 37, 4 * 64},
       4,
       4,
       "float",
       {2, 1, 1, 37}},
      // Query rows of one strip and less, keys of exactly one tile and one more.
      {"4-D 5 rows 16 keys", {1, 2, 5, 16}, {1, 2, 16, 16}, {1, 2, 16, 8}},
      {"4-D 7 rows 17 keys", {1, 3, 7, 9}, {1, 3, 17, 9}, {1, 3, 17, 9}},
      {"4-D 1 row 1 key", {2, 2, 1, 64}, {2, 2, 1, 64}, {2, 2, 1, 64}},
      // Cross attention, grouped-query heads, Dv != D, causal.
      {"4-D GQA causal", {2, 4, 13, 32}, {2, 2, 45, 32}, {2, 2, 45, 24}, 0, 0, "", {}, true},
      // Bool mask [Sq, T] and softcap.
      {"3-D bool mask softcap",
       {1, 33, 2 * 16},
       {1, 70, 2 * 16},
       {1, 70, 2 * 16},
       2,
       2,
       "bool",
       {33, 70},
       false,
       30.0f},
      // A per-row float mask [B, H, Sq, T] with a fully masked first row, and the
      // qk_matmul_output in each mode.
      {"4-D float mask qk 0",
       {1, 2, 6, 16},
       {1, 2, 9, 16},
       {1, 2, 9, 48},
       0,
       0,
       "float",
       {1, 2, 6, 9},
       false,
       0.0f,
       0},
      {"4-D float mask qk 2",
       {1, 2, 6, 16},
       {1, 2, 9, 16},
       {1, 2, 9, 48},
       0,
       0,
       "float",
       {1, 2, 6, 9},
       false,
       0.0f,
       2},
      {"4-D float mask qk 3",
       {1, 2, 6, 16},
       {1, 2, 9, 16},
       {1, 2, 9, 48},
       0,
       0,
       "float",
       {1, 2, 6, 9},
       false,
       0.0f,
       3},
  };
  return all;
}

TEST(CpuAttention, F32MatchesF64AtEveryEdgeOfTheBlocking) {
  const unsigned seed = std::random_device{}();
  for (const Case& c : cases())
    for (int threads : {1, 2}) {
      std::ostringstream label;
      label << c.label << ", " << threads << " thread(s), seed " << seed;
      const std::vector<TensorData> f64 = run(c, DType::kF64, seed, threads);
      const std::vector<TensorData> f32 = run(c, DType::kF32, seed, threads);
      ASSERT_EQ(f64.size(), f32.size()) << label.str();
      for (size_t o = 0; o < f64.size(); ++o) {
        // f32's rounding of products of a few dozen terms of magnitude <= 4.
        const TensorData expected = as(DType::kF32, f64[o].dims(), f64[o].to_f64_vector());
        const std::string diff = test::compare_tensors(expected, f32[o], 1e-5, 1e-5);
        EXPECT_TRUE(diff.empty()) << label.str() << ", output " << o << ": " << diff;
      }
    }
}

}  // namespace
}  // namespace amp
