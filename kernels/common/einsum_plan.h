// Einsum as both backends run it: every output element is a sum, over the contracted labels'
// index space, of the product of one element per operand (fp32 accumulation for f16/bf16,
// f64 for f64, int64 for integers). The plan orders the labels output first, contracted
// after, and gives each operand one stride per label: the sum of the strides of its axes
// with that label (so a repeated label walks a diagonal), 0 where the operand lacks the
// label or broadcasts it (size 1). Plain data: the CUDA kernel takes it by value.
//
// A direct loop, not a GEMM: right for the small contractions exporters write (traces,
// transposes, batched dot products); a large matmul-shaped Einsum runs at loop speed.
#pragma once

#include <cstdint>

#include "amp/dtype.h"
#include "kernels/kernel.h"
#include "runtime/common/host_device.h"
#include "runtime/common/status.h"

namespace amp::kernels {

inline constexpr int kEinsumMaxLabels = 16;
inline constexpr int kEinsumMaxInputs = 4;

struct EinsumPlan {
  int inputs = 0;
  int out_labels = 0, sum_labels = 0;
  int64_t sizes[kEinsumMaxLabels] = {};
  int64_t strides[kEinsumMaxInputs][kEinsumMaxLabels] = {};
  int64_t out_numel = 1, sum_numel = 1;
};
Result<EinsumPlan> check_einsum_io(const KernelConfig& cfg, DType t);

// Adds label coordinates `index` (row-major over sizes[first, first + count)) to offsets.
AMP_HOST_DEVICE void einsum_advance(const EinsumPlan& p, int first, int count, int64_t index,
                                    int64_t* offsets) {
  for (int l = first + count - 1; l >= first; --l) {
    const int64_t c = index % p.sizes[l];
    index /= p.sizes[l];
    for (int i = 0; i < p.inputs; ++i) offsets[i] += c * p.strides[i][l];
  }
}

// Output element o: the sum over the contracted labels of the product of one element per
// operand, load(i, offset) reading operand i in the compute type C.
template <typename C, typename Load>
AMP_HOST_DEVICE C einsum_output(const EinsumPlan& p, int64_t o, Load load) {
  int64_t base[kEinsumMaxInputs] = {};
  einsum_advance(p, 0, p.out_labels, o, base);
  C acc = C(0);
  for (int64_t s = 0; s < p.sum_numel; ++s) {
    int64_t off[kEinsumMaxInputs] = {};
    for (int i = 0; i < p.inputs; ++i) off[i] = base[i];
    einsum_advance(p, p.out_labels, p.sum_labels, s, off);
    C prod = load(0, off[0]);
    for (int i = 1; i < p.inputs; ++i) prod *= load(i, off[i]);
    acc += prod;
  }
  return acc;
}

}  // namespace amp::kernels
