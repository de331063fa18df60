// Products that stream constant weights: the nodes a CPU without 16-bit arithmetic still runs
// faster in fp16 / bf16 than in fp32.
//
// Why: on such a CPU (oneDNN 2.6 computes fp16 through fp32 everywhere, and bf16 without
// AVX512-BF16) a low-precision plan is slower than fp32, so the engine kept the whole model
// fp32 (Backend::low_precision_slower). Yet a product of a few rows with a constant weight
// matrix -- a decoder generating one token -- reads each weight once and does one
// multiply-add with it: its time is the time to stream the weights from memory, and
// kernels/cpu/half_gemv.h reads them in 16 bits, half the bytes. A 4-layer Llama decoder
// step (AMD EPYC Zen 3, one thread): 5.6 ms in fp32, 4.1 ms with its products in fp16.
// So an fp16 / bf16 request on such a CPU plans those products low and everything else fp32
// (EngineImpl::plan_precision), instead of all fp32. The same where a bf16 plan would be
// timed (a CPU with AVX512-BF16) but is not -- timing off, or a decoder's past left free --
// and the backend's untimed guess is fp32 (no AMX): an AMD EPYC Zen 4, GPT-2 small's step,
// one thread, 23.2 ms fp32, 19.9 ms with its products in bf16.
//
// A node qualifies when the CPU's kernel would take it (kernels/cpu/dnnl_matmul.cc):
//   - MatMul, or Gemm with alpha 1, A not transposed and C absent or one row;
//   - B a constant whose dims before its last two are all 1;
//   - A's rows (the product of its dims but the last) static and at most `max_rows` (the
//     backend's Backend::low_precision_weight_rows): with symbolic rows the load cannot tell
//     a token from a prompt (Options::input_shapes binds them);
//   - B at least kMinStreamedBytes in fp32: smaller weights stay in the cache from one run to
//     the next, so halving their bytes saves nothing and the casts around the node cost.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "graph/ir/graph.h"

namespace amp::runtime {

inline constexpr size_t kMinStreamedBytes = size_t{1} << 20;

// The names of g's nodes that qualify, in graph order.
std::vector<std::string> weight_streaming_products(const graph::Graph& g, int64_t max_rows);

}  // namespace amp::runtime
