// Products too small for oneDNN's call overhead, computed by our own loop:
//   y[r, j] = act(bias[j] + sum_k x[r, k] B[k, j])   for r < rows, j < N,
// with f32 operands and B a constant. The kernels that use it:
//   - Conv whose window covers its whole input (kernels/cpu/dnnl_conv.cc): B = W^T, one row
//     per batch entry. Squeeze-and-excitation blocks (MobileNetV3, EfficientNet, PaddleOCR's
//     backbones) apply two 1x1 convolutions to a global pooling's [N, C, 1, 1]; classifier
//     heads are often a conv over the last feature map.
//   - MatMul and Gemm with a constant 2-D B and a row bias (kernels/cpu/dnnl_matmul.cc):
//     classifier heads, a decoder's one-token steps on small models.
//
// Why: oneDNN spends ~2 us per primitive call (more with a reorder in and out of its
// blocked layouts), which is most of the time of a product of a few thousand multiply-adds.
// Measured with AVX-512 hidden from CPUID (tools/bench/as_avx2_cpu.cc) on an Intel Xeon
// (Emerald Rapids), one thread: ch_ppocr_mobile_v2.0_cls's 18 SE convolutions took 1.5-9 us
// each on oneDNN, 0.1-1.7 us here, and the model 0.76-0.79 -> 0.67 ms; with AVX-512
// 0.60-0.61 -> 0.54-0.55 ms.
//
// Algorithm: prepare() packs B in tiles of 32 columns, each tile's K rows contiguous. A
// tile of one or two rows of y stays in registers for the whole sum over K: per k, one
// broadcast of x and a contiguous load of the tile's row (one row alternates two sets of
// sums, so consecutive FMAs do not wait on each other). Vectorized per ISA (AMP_ISA_CLONES).
// The bias initializes y; the fused activation runs over each finished tile (the vectorized
// epilogue, vector_activation.h, which packed_gemm.h uses too). Threads split the
// tiles once a share has ~32K multiply-adds.
//
// kMaxMacs is where oneDNN catches up: its packed, register-blocked GEMM streams B faster.
// One thread, MatMul with a constant B, median per node (us), own loop / oneDNN, AVX-512
// hidden (same with it within noise):
//   1x128x128 0.8 / 2.5   1x128x256 2.2 / 2.9   4x128x128 2.4 / 4.0   1x256x256 5.2 / 5.3
//   8x128x128 4.3 / 5.9   1x256x512 7.9 / 7.1   1x960x240 14.5 / 10.9   1x512x512 15.5 / 12.3
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "graph/ops/fused_activation.h"
#include "kernels/kernel.h"

namespace amp::kernels::cpu {

class SmallGemm {
 public:
  static constexpr int64_t kMaxMacs = int64_t{1} << 17;

  // Whether a product of this size runs here.
  static bool pays(int64_t rows, int64_t k, int64_t n) {
    // Each factor is checked first, so the product cannot overflow.
    return rows > 0 && k > 0 && n > 0 && rows <= kMaxMacs && k <= kMaxMacs && n <= kMaxMacs &&
           rows * k * n <= kMaxMacs;
  }

  // B's element (k, j) is b[k * stride_k + j * stride_n]. `bias`: [N] kept from here on, or
  // null (none, or given to run()). With `owner` (what keeps a model constant's bytes
  // alive) the tiles of B are shared with every SmallGemm that tiles the same bytes the same
  // way (shared_constants.h); without, they are this one's.
  void prepare(int64_t rows, int64_t k, int64_t n, const float* b, int64_t stride_k,
               int64_t stride_n, const float* bias, const graph::FusedActivation& act,
               const std::shared_ptr<const void>& owner = nullptr);

  // x: [rows, K] dense; y: [rows, N] dense. `bias`: [N] when prepare() kept none (may be
  // null: no bias), else ignored.
  void run(const float* x, const float* bias, float* y, int threads) const;

  // The tiles of B, for the memory report.
  HeldConstant held_constant() const;

 private:
  int64_t rows_ = 0, k_ = 0, n_ = 0;
  std::shared_ptr<const std::vector<float>> b_;  // [N / kTile][K][kTile]
  std::vector<float> bias_;                      // [N]; empty: none or given at run
  graph::FusedActivation act_;
};

}  // namespace amp::kernels::cpu
