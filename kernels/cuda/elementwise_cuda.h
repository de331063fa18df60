// Host-side pieces of the CUDA elementwise family (kernels/cuda/elementwise_*.cu): the
// per-file registrations, prepare()-time checks and the broadcast plan. The device code
// (generic kernels and their launchers) is in elementwise_device.h; the arithmetic is
// common/elementwise_functors.h, shared with the CPU kernels.
//
// Broadcasting (the same algorithm as the CPU's kernels/cpu/elementwise_broadcast.cc):
// prepare() drops output axes of size 1 and merges adjacent axes along which every input is
// contiguous, so "same shape" becomes one axis, "tensor + scalar" one axis with stride 0,
// and "NCHW + C11" three axes. One merged axis runs a linear kernel (vectorized when every
// operand's stride is 0 or 1); more run the general kernel with an OffsetCalc (up to
// kMaxDims merged axes, passed by value).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/kernel_params.h"
#include "kernels/cuda/cuda_launch.h"
#include "kernels/kernel_registry.h"

namespace amp::kernels::cuda_ew {

using amp::cuda::kMaxDims;
using amp::cuda::OffsetCalc;

// Per-file registrations, called by register_cuda_elementwise_kernels().
void register_unary(KernelRegistry& registry);    // elementwise_unary.cu (+ Clip, Not)
void register_cast(KernelRegistry& registry);     // elementwise_cast.cu
void register_binary(KernelRegistry& registry);   // elementwise_binary.cu (+ Max, Min, Pow)
void register_compare(KernelRegistry& registry);  // elementwise_compare.cu (+ And, Where)

// The registry factory of kernel class K.
template <typename K>
std::function<std::unique_ptr<Kernel>()> make_factory() {
  return [] { return std::make_unique<K>(); };
}

// ---- prepare() helpers --------------------------------------------------------------------

Status check_same_shape(const KernelConfig& cfg);  // output 0 dims == input 0 dims

// numpy multidirectional broadcast of `shapes`; invalid_model when they do not broadcast.
Result<std::vector<int64_t>> broadcast_dims(const std::vector<std::vector<int64_t>>& shapes);

// A broadcast of N inputs to an output, merged (see the header comment).
template <int N>
struct BroadcastPlan {
  int64_t numel = 0;
  OffsetCalc<N> calc;  // rank >= 1

  bool linear() const { return calc.rank == 1; }
  int64_t linear_stride(int k) const { return calc.strides[k][0]; }
};

// Builds the merged broadcast of `inputs` (2 or 3 of them) to `out`. With `exact`,
// `out` must be the broadcast of the inputs (shape inference and kernel agree); without, each
// input only has to broadcast to it (a step of variadic Max/Min). unsupported when more than
// kMaxDims axes remain after merging.
Result<BroadcastPlan<2>> make_plan2(const std::vector<std::vector<int64_t>>& inputs,
                                    const std::vector<int64_t>& out, bool exact);
Result<BroadcastPlan<3>> make_plan3(const std::vector<std::vector<int64_t>>& inputs,
                                    const std::vector<int64_t>& out, bool exact);

}  // namespace amp::kernels::cuda_ew
