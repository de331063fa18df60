// Attention on the GPU (kernels/cuda/attention.cu) against the CPU kernel: the cuBLAS GEMM
// path and the flash path (fp32 / fp16 / bf16; 3-D and 4-D layouts, grouped-query heads,
// float and bool masks, causal masking, a fully masked row, softcap, lengths that fill no
// tile, present key/value without a past), the flash path taken on its own for a long
// sequence, and the direct path (f64, a past key/value). Each case is a one-node graph run
// on both backends by the test runners, with outputs poisoned before the run.
//
// Tolerances: both accumulate in fp32; the GPU's GEMM path rounds the probabilities to the
// storage type before the second product, the flash path and the CPU keep them in fp32, so
// f16 / bf16 differ by a few ulps of the output type.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "graph/ir/graph_builder.h"
#include "tests/test_util/attention_case.h"
#include "tests/test_util/cuda_graph_runner.h"
#include "tests/test_util/graph_runner.h"
#include "tests/test_util/node_tests.h"
#include "tests/test_util/require_gpu.h"

namespace amp {
namespace {

using graph::GraphBuilder;
using graph::OpType;
using graph::TensorData;
using graph::ValueId;

using AttnCase = test::AttentionCase;

void check_case(const AttnCase& c, DType t, unsigned seed) {
  const test::AttentionGraph g = test::attention_graph(c, t, seed);
  std::ostringstream label;
  label << c.label << " " << dtype_name(t) << " seed " << seed;
  auto cpu = test::run_graph(g.graph, g.inputs);
  ASSERT_TRUE(cpu.is_ok()) << label.str() << ": CPU: " << cpu.status().to_string();
  auto gpu = test::run_graph_cuda(g.graph, g.inputs);
  ASSERT_TRUE(gpu.is_ok()) << label.str() << ": CUDA: " << gpu.status().to_string();
  const double tol = t == DType::kBF16 ? 3e-2 : t == DType::kF16 ? 4e-3 : 1e-4;
  ASSERT_EQ(cpu->size(), gpu->size());
  for (size_t o = 0; o < cpu->size(); ++o) {
    const std::string diff = test::compare_tensors((*cpu)[o], (*gpu)[o], tol, tol);
    EXPECT_TRUE(diff.empty()) << label.str() << " output " << o << ": " << diff;
  }
}

// Sets AMP_CUDA_ATTENTION (kernels/cuda/attention.cu) for one scope: kernels prepared inside
// take that path.
class ForcedAttentionPath {
 public:
  explicit ForcedAttentionPath(const char* path) { ::setenv("AMP_CUDA_ATTENTION", path, 1); }
  ~ForcedAttentionPath() { ::unsetenv("AMP_CUDA_ATTENTION"); }
};

const std::vector<AttnCase>& cases() {
  static const std::vector<AttnCase> all = {
      // BERT-like, 3-D, HF's additive mask [B, 1, 1, T].
      {"3-D float mask",
       {2, 37, 4 * 64},
       {2, 37, 4 * 64},
       {2, 37, 4 * 64},
       4,
       4,
       "float",
       {2, 1, 1, 37}},
      // Cross attention (T != Sq), grouped-query heads, Dv != D, 4-D, causal.
      {"4-D GQA causal", {2, 4, 19, 32}, {2, 2, 45, 32}, {2, 2, 45, 48}, 0, 0, "", {}, true},
      // Bool mask [Sq, T], softcap, explicit scale.
      {"3-D bool mask softcap",
       {1, 33, 2 * 16},
       {1, 70, 2 * 16},
       {1, 70, 2 * 16},
       2,
       2,
       "bool",
       {33, 70},
       false,
       30.0f,
       0.3f},
      // A fully masked row gives zeros (not NaN).
      {"4-D all-masked row",
       {1, 2, 5, 16},
       {1, 2, 9, 16},
       {1, 2, 9, 16},
       0,
       0,
       "float_all_masked_row",
       {1, 1, 5, 9}},
  };
  return all;
}

TEST(CudaAttention, GemmPathMatchesTheCpuKernel) {
  AMP_REQUIRE_GPU();
  const unsigned seed = std::random_device{}();
  ForcedAttentionPath gemm("gemm");
  for (const AttnCase& c : cases())
    for (DType t : {DType::kF32, DType::kF16, DType::kBF16}) check_case(c, t, seed);
}

TEST(CudaAttention, FlashPathMatchesTheCpuKernel) {
  AMP_REQUIRE_GPU();
  const unsigned seed = std::random_device{}();
  ForcedAttentionPath flash("flash");
  for (const AttnCase& c : cases())
    for (DType t : {DType::kF32, DType::kF16, DType::kBF16}) check_case(c, t, seed);
  // Head sizes at the path's limit (128), keys in many tiles with a ragged last one.
  const AttnCase wide = {
      "4-D D=128 causal", {1, 2, 40, 128}, {1, 2, 77, 128}, {1, 2, 77, 128}, 0, 0, "", {}, true};
  for (DType t : {DType::kF32, DType::kF16, DType::kBF16}) check_case(wide, t, seed);
  // An odd head size (the K tile's odd row stride) and a partial last block of query rows
  // (21 = 2 x 8 + 5) over several key tiles.
  const AttnCase odd = {"4-D D=31 Sq=21", {2, 3, 21, 31}, {2, 3, 70, 31}, {2, 3, 70, 31}};
  for (DType t : {DType::kF32, DType::kF16}) check_case(odd, t, seed);
  // Causal with each batch entry's key count (nonpad_kv_seqlen): the key tiles a block of
  // rows never sees are skipped. Entry 0: offset 70 - 21 = 49, its blocks stop at key 57,
  // 65, 70; entry 1: 12 keys, offset -9, so its first 9 rows attend to nothing (zeros) and
  // its first block visits no tile at all.
  AttnCase nonpad = {"4-D causal nonpad", {2, 3, 21, 32}, {2, 3, 70, 32}, {2, 3, 70, 32}};
  nonpad.causal = true;
  nonpad.nonpad = {70, 12};
  for (DType t : {DType::kF32, DType::kF16}) check_case(nonpad, t, seed);
}

// One Attention over Q = K = V of `dims` (random fp32) with AMP_CUDA_ATTENTION=`forced`:
// the CUDA run's status.
Status forced_attention_status(const char* forced, const std::vector<int64_t>& dims) {
  GraphBuilder b;
  const graph::Shape s4 = graph::Shape::from_static(dims);
  ValueId q = b.input("q", DType::kF32, s4), k = b.input("k", DType::kF32, s4),
          v = b.input("v", DType::kF32, s4);
  b.output(b.node(OpType::kAttention, {q, k, v}));
  const graph::Graph g = b.build();
  std::map<std::string, TensorData> in = {{"q", test::random_float_tensor(DType::kF32, dims, 1)},
                                          {"k", test::random_float_tensor(DType::kF32, dims, 2)},
                                          {"v", test::random_float_tensor(DType::kF32, dims, 3)}};
  ForcedAttentionPath path(forced);
  auto gpu = test::run_graph_cuda(g, in);
  return gpu.is_ok() ? Status::ok() : gpu.status();
}

// Forcing flash where it cannot serve the node (head size 256) is an error naming the
// variable, not a quiet run on another path.
TEST(CudaAttention, AForcedPathThatDoesNotApplyIsAnError) {
  AMP_REQUIRE_GPU();
  const Status s = forced_attention_status("flash", {1, 1, 4, 256});
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.to_string().find("AMP_CUDA_ATTENTION=flash"), std::string::npos) << s.to_string();
}

// Every path writes present_key / present_value (copies of K and V without a past).
TEST(CudaAttention, PresentWithoutAPastOnEveryPath) {
  AMP_REQUIRE_GPU();
  const unsigned seed = std::random_device{}();
  AttnCase c = {"4-D present", {1, 2, 7, 16}, {1, 2, 9, 16}, {1, 2, 9, 16}};
  c.present = true;
  for (const char* path : {"gemm", "flash", "direct"}) {
    ForcedAttentionPath forced(path);
    c.label = std::string("4-D present, ") + path;
    check_case(c, DType::kF16, seed);
  }
}

// A misspelt forced path is an error naming it, not the automatic choice.
TEST(CudaAttention, AnUnknownForcedPathIsAnError) {
  AMP_REQUIRE_GPU();
  const Status s = forced_attention_status("flsh", {1, 2, 4, 8});
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.to_string().find("AMP_CUDA_ATTENTION='flsh'"), std::string::npos) << s.to_string();
}

// A long sequence, unforced: the GEMM path's scores would need 8 x 1024 x 2048 x (4 + 2)
// bytes = 96 MiB of workspace, over the flash path's 64 MiB threshold.
TEST(CudaAttention, LongSequenceMatchesTheCpuKernel) {
  AMP_REQUIRE_GPU();
  const unsigned seed = std::random_device{}();
  const AttnCase long_seq = {
      "3-D long", {1, 1024, 8 * 64}, {1, 2048, 8 * 64}, {1, 2048, 8 * 64}, 8, 8, "", {}, true};
  check_case(long_seq, DType::kF16, seed);
}

TEST(CudaAttention, DirectPathForF64AndAPast) {
  AMP_REQUIRE_GPU();
  const unsigned seed = std::random_device{}();
  check_case(cases()[1], DType::kF64, seed);
  AttnCase past = {"4-D past", {1, 2, 4, 16}, {1, 2, 6, 16}, {1, 2, 6, 16}};
  past.past = true;
  for (DType t : {DType::kF32, DType::kF16}) check_case(past, t, seed);
}

}  // namespace
}  // namespace amp
