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
// Algorithm: prepare() packs B row-major [K, N] (from any strides: W^T, a transposed B), so
// each step of the sum is an axpy over a contiguous row of N outputs (vectorized per ISA,
// AMP_ISA_CLONES; no cross-lane reduction). The bias initializes the row; the fused
// activation runs over it at the end. Threads split the columns once a share has ~32K
// multiply-adds. oneDNN keeps every product over kMaxMacs: its register-blocked GEMM
// reuses B across rows, which this loop does not.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/ops/fused_activation.h"

namespace amp::kernels::cpu {

class SmallGemm {
 public:
  static constexpr int64_t kMaxMacs = int64_t{1} << 18;

  // Whether a product of this size runs here.
  static bool pays(int64_t rows, int64_t k, int64_t n) {
    // Each factor is checked first, so the product cannot overflow.
    return rows > 0 && k > 0 && n > 0 && rows <= kMaxMacs && k <= kMaxMacs && n <= kMaxMacs &&
           rows * k * n <= kMaxMacs;
  }

  // B's element (k, j) is b[k * stride_k + j * stride_n]. `bias`: [N] kept from here on, or
  // null (none, or given to run()).
  void prepare(int64_t rows, int64_t k, int64_t n, const float* b, int64_t stride_k,
               int64_t stride_n, const float* bias, const graph::FusedActivation& act);

  // x: [rows, K] dense; y: [rows, N] dense. `bias`: [N] when prepare() kept none (may be
  // null: no bias), else ignored.
  void run(const float* x, const float* bias, float* y, int threads) const;

 private:
  int64_t rows_ = 0, k_ = 0, n_ = 0;
  std::vector<float> b_;     // [K, N]
  std::vector<float> bias_;  // [N]; empty: none or given at run
  graph::FusedActivation act_;
};

}  // namespace amp::kernels::cpu
