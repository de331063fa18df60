// One Attention node (opset 23) as a graph with seeded inputs, for the tests that run it on
// the CPU against itself in f64 (tests/kernels/cpu/attention_test.cc) and on the GPU against
// the CPU (tests/cuda/attention_test.cc).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "amp/dtype.h"
#include "graph/ir/graph.h"

namespace amp::test {

struct AttentionCase {
  std::string label;
  std::vector<int64_t> q, k, v;  // 3-D [B, S, H*D] (with the head counts) or 4-D [B, H, S, D]
  int64_t q_heads = 0, kv_heads = 0;
  // "", "float" (additive, with -inf entries), "float_all_masked_row" (its first row hides
  // every key: that row attends to nothing) or "bool".
  std::string mask;
  std::vector<int64_t> mask_dims;
  bool causal = false;
  float softcap = 0.0f;
  float scale = 0.0f;    // 0: the default 1/sqrt(D)
  bool past = false;     // 4-D past_key / past_value of 3 positions
  bool present = false;  // present_key / present_value outputs too
  int qk_mode = -1;      // >= 0: the qk_matmul_output output too (and the presents), that mode
  // nonpad_kv_seqlen (input 6): the keys each batch entry attends to; empty: none. With
  // causal, it also aligns the causal mask bottom-right (key j visible to query i iff
  // j <= i + nonpad[b] - Sq).
  std::vector<int64_t> nonpad;
};

struct AttentionGraph {
  graph::Graph graph;
  std::map<std::string, graph::TensorData> inputs;
};

// Values in [-range, range) drawn as floats (so f32 and f64 runs of one seed see the same
// numbers), stored in `t` (f16 / bf16 rounded).
graph::TensorData random_float_tensor(DType t, const std::vector<int64_t>& dims, unsigned seed,
                                      float range = 1.0f);

// The case's graph in dtype `t`, its inputs drawn from `seed`.
AttentionGraph attention_graph(const AttentionCase& c, DType t, unsigned seed, float range = 1.0f);

}  // namespace amp::test
