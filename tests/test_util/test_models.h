// Small .amp models written on the fly for runtime tests (no ../shared needed). Each
// write_* function writes <dir>/<name>.amp and returns the path.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "amp/engine.h"
#include "graph/ir/graph.h"
#include "graph/ir/tensor_data.h"

namespace amp::test {

// `g` written to a temporary .amp file and loaded with `o` on the CPU; the file is removed
// once loaded. Load errors propagate (amp::Error).
Engine load_on_cpu(const graph::Graph& g, Options o);

// An f32 tensor of seeded uniform values in [-scale, scale] (mt19937): weights and inputs
// that are the same on every machine.
graph::TensorData random_f32(std::vector<int64_t> dims, float scale, unsigned seed);

// y = MatMul(x [1, 4], W [4, 4] filled with 300). For x = 100 every output is 120000:
// finite in fp32 and bf16, past fp16's 65504 (Inf) -- the MatMul is the node that overflows.
std::string write_overflow_model(const std::filesystem::path& dir);

// y = MatMul(x [1, 4], W = 10) * 4000. For x = 1: the MatMul gives 40 (finite), the Mul
// 160000 (Inf in fp16). The Mul may run in place over the MatMul's output, so a numerics
// check that looked at its input after the fact would see Inf there and blame propagation.
std::string write_inplace_overflow_model(const std::filesystem::path& dir);

// A feed-forward block whose first product overflows fp16 on its real inputs (x in
// [0.5, 1.5], as T5's feed-forward layers do on real text): x [8, 64] -> MatMul(W1, entries
// 1000..2500: outputs ~1.1e5) "hot_matmul" -> Mul 1e-3 "scale" -> Relu -> MatMul(W2 [64, 16],
// seeded in [-0.1, 0.1]) "out_matmul" -> y [8, 16]. Everything after the first MatMul is
// ordinary in size.
std::string write_hot_matmul_model(const std::filesystem::path& dir);

// Two branches that lose everything to fp16's rounding without overflowing: for b in 1, 2,
// y<b> = MatMul((MatMul(x, W<b>) + 2048) - 2048, V<b>), x [4, 32] in [0, 1], W/V seeded in
// [-0.1, 0.1]. fp16's spacing at 2048 is 2, so the +-0.3 that the first product adds is
// rounded away ("mm<b>", "shift<b>", "unshift<b>", "out<b>"); fp32 keeps it.
std::string write_cancelling_model(const std::filesystem::path& dir);

// One chain of `layers` stages, h = Tanh(MatMul(h, W<k>)) ("mm<k>", "act<k>"), x [4, 32] in
// [0, 1], with the same +c / -c cancellation after the stages in `shifts` (stage -> c:
// "shift<k>", "unshift<k>"), then y = MatMul(h, V) ("out"). Errors that fp16 makes at one
// stage travel through the later ones: an accuracy search with culprits that interact.
std::string write_layered_cancelling_model(const std::filesystem::path& dir, int layers,
                                           const std::map<int, float>& shifts);

// y = Expand(x [1] f32, shape) with `shape` an i64 [2] graph input: the values of `shape`
// decide every size in the plan.
std::string write_expand_model(const std::filesystem::path& dir);

// A small CNN with a symbolic batch N: x [N, 3, 16, 16] -> Conv 3x3 (8) + Relu -> MaxPool
// 2x2 -> Conv 3x3 (16) + Sigmoid*x (SiLU) -> GlobalAveragePool -> Flatten -> Gemm (10)
// -> Softmax. Seeded random weights; covers cuDNN, cuBLASLt and own kernels.
std::string write_small_cnn(const std::filesystem::path& dir);

}  // namespace amp::test
