#include "kernels/cpu/small_gemm.h"

#include <algorithm>

#include "kernels/common/elementwise_functors.h"
#include "kernels/cpu/cpu_common.h"

namespace amp::kernels::cpu {
namespace {

// y[j] += sum_k x[k] b[k][j] for j in [j0, j1): K passes over contiguous rows of B.
AMP_ISA_CLONES void accumulate_rows(const float* __restrict__ x, const float* __restrict__ b,
                                    int64_t k_count, int64_t n, int64_t j0, int64_t j1,
                                    float* __restrict__ y) {
  for (int64_t k = 0; k < k_count; ++k) {
    const float xk = x[k];
    const float* __restrict__ row = b + k * n;
    for (int64_t j = j0; j < j1; ++j) y[j] += xk * row[j];
  }
}

}  // namespace

void SmallGemm::prepare(int64_t rows, int64_t k, int64_t n, const float* b, int64_t stride_k,
                        int64_t stride_n, const float* bias, const graph::FusedActivation& act) {
  rows_ = rows;
  k_ = k;
  n_ = n;
  act_ = act;
  b_.resize(static_cast<size_t>(k * n));
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t j = 0; j < n; ++j) b_[kk * n + j] = b[kk * stride_k + j * stride_n];
  if (bias != nullptr) bias_.assign(bias, bias + n);
}

void SmallGemm::run(const float* x, const float* bias, float* y, int threads) const {
  const float* b = bias_.empty() ? bias : bias_.data();
  // Columns per thread: enough multiply-adds (~32K) to pay for waking a thread.
  const int64_t grain = std::max<int64_t>(16, 32768 / std::max<int64_t>(1, rows_ * k_));
  parallel_for(
      n_, threads,
      [&](int64_t j0, int64_t j1) {
        for (int64_t r = 0; r < rows_; ++r) {
          float* yr = y + r * n_;
          for (int64_t j = j0; j < j1; ++j) yr[j] = b != nullptr ? b[j] : 0.0f;
          accumulate_rows(x + r * k_, b_.data(), k_, n_, j0, j1, yr);
          if (act_.kind != graph::ActivationKind::kNone)
            for (int64_t j = j0; j < j1; ++j) yr[j] = ew::apply_activation(act_, yr[j]);
        }
      },
      grain);
}

}  // namespace amp::kernels::cpu
