// The CPU Attention kernel (kernels/cpu/attention.cc) in f32 against itself in f64 on the
// same values. On a CPU with AVX2 and FMA, f32 runs its query rows in strips through the
// register-blocked products (gemm_strip_avx2.h) while f64 keeps the row-at-a-time loops the
// ONNX node tests hold to their references, so any difference in masking, causal rows,
// grouped heads, softcap, the qk output or an edge of the blocking shows here. The shapes
// reach every edge: query rows that fill no strip (1, 5, 7, 13, 37), key counts and head
// sizes that fill no 16-column tile or exactly 8 (1, 9, 16, 17, 61, 70; Dv 8, 9, 24, 48,
// 80), query rows over several groups of strips and keys over several blocks (300, 520,
// 600), a fully masked row, heads split between threads, one and two threads. On a CPU with
// AVX-512, f32 runs the AVX-512 kernel over K^T and V in panels. Under
// tests/tools/run_as_avx2_cpu.sh the same runs as on an AVX2-only CPU.
#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tests/test_util/attention_case.h"
#include "tests/test_util/graph_runner.h"
#include "tests/test_util/node_tests.h"

namespace amp {
namespace {

using graph::TensorData;
using test::AttentionCase;

// Values in [-2, 2): scores reach a few units, so exp's whole range is used.
std::vector<TensorData> run(const AttentionCase& c, DType t, unsigned seed, int threads) {
  test::AttentionGraph g = test::attention_graph(c, t, seed, 2.0f);
  auto out = test::run_graph(std::move(g.graph), g.inputs, kernels::Backend::kCpu, threads);
  EXPECT_TRUE(out.is_ok()) << c.label << ": " << out.status().to_string();
  return out.is_ok() ? std::move(*out) : std::vector<TensorData>{};
}

std::vector<AttentionCase> cases() {
  std::vector<AttentionCase> all = {
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
  };
  // Keys and value columns past the AVX-512 kernel's 48-column step and 16-column panels
  // (61 keys, Dv 80); heads that do not divide among two threads, so each head's query rows
  // are split between them (3 heads; 1 head, causal).
  all.push_back({"4-D 3 heads 61 keys Dv 80", {1, 3, 29, 64}, {1, 3, 61, 64}, {1, 3, 61, 80}});
  all.push_back(
      {"4-D 1 head causal", {1, 1, 40, 16}, {1, 1, 40, 16}, {1, 1, 40, 16}, 0, 0, "", {}, true});
  // Strips in groups of 8 (48 rows) and keys in blocks of 256 (head_strips): 61 query rows
  // (a group and a partial one) over 600 keys (two blocks and a partial one); a causal head
  // of 300 rows, whose strips see ever more blocks; a padding mask over 520 keys.
  all.push_back({"4-D 61 rows 600 keys", {1, 2, 61, 32}, {1, 2, 600, 32}, {1, 2, 600, 24}});
  all.push_back({"4-D causal 300 rows",
                 {1, 1, 300, 16},
                 {1, 1, 300, 16},
                 {1, 1, 300, 16},
                 0,
                 0,
                 "",
                 {},
                 true});
  all.push_back({"3-D float mask 520 keys",
                 {1, 50, 2 * 32},
                 {1, 520, 2 * 32},
                 {1, 520, 2 * 32},
                 2,
                 2,
                 "float",
                 {1, 1, 1, 520}});
  // A strip of queries or less reads K and V in place (head_in_place): Whisper's
  // cross-attention (4 queries over many keys, 3-D), a decoder step with a past (1 query,
  // causal, GQA, the past then the new key), a 3-D bool mask over keys past a strip.
  all.push_back(
      {"3-D 4 queries 300 keys", {1, 4, 2 * 64}, {1, 300, 2 * 64}, {1, 300, 2 * 40}, 2, 2});
  {
    AttentionCase step = {
        "4-D 1 query past GQA causal", {2, 4, 1, 32}, {2, 2, 1, 32}, {2, 2, 1, 24}};
    step.causal = true;
    step.past = true;
    step.present = true;
    all.push_back(step);
  }
  all.push_back({"3-D 3 queries bool mask",
                 {1, 3, 2 * 16},
                 {1, 70, 2 * 16},
                 {1, 70, 2 * 16},
                 2,
                 2,
                 "bool",
                 {3, 70}});
  // Causal and bottom-right aligned by each batch entry's key count: entry 0 has all 45 keys
  // (offset 32: row i sees keys 0 .. i + 32), entry 1 only 9 (offset -4: its first 4 rows
  // attend to nothing).
  AttentionCase nonpad = {"4-D causal nonpad", {2, 2, 13, 16}, {2, 2, 45, 16}, {2, 2, 45, 16}};
  nonpad.causal = true;
  nonpad.nonpad = {45, 9};
  all.push_back(nonpad);
  // A per-row float mask [B, H, Sq, T] whose first row hides every key, and the
  // qk_matmul_output in three of its modes (with the present key and value).
  for (int mode : {0, 2, 3}) {
    AttentionCase c = {"4-D float mask, qk mode " + std::to_string(mode),
                       {1, 2, 6, 16},
                       {1, 2, 9, 16},
                       {1, 2, 9, 48},
                       0,
                       0,
                       "float_all_masked_row",
                       {1, 2, 6, 9}};
    c.qk_mode = mode;
    all.push_back(c);
  }
  return all;
}

TEST(CpuAttention, F32MatchesF64AtEveryEdgeOfTheBlocking) {
  const unsigned seed = std::random_device{}();
  for (const AttentionCase& c : cases())
    for (int threads : {1, 2}) {
      std::ostringstream label;
      label << c.label << ", " << threads << " thread(s), seed " << seed;
      // f32's rounding of products of a few dozen terms of magnitude <= 4.
      const std::string diff = test::compare_f32_with_f64(
          run(c, DType::kF64, seed, threads), run(c, DType::kF32, seed, threads), 1e-5, 1e-5);
      EXPECT_TRUE(diff.empty()) << label.str() << ": " << diff;
    }
}

}  // namespace
}  // namespace amp
