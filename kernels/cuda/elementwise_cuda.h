// Host-side pieces of the CUDA elementwise family (kernels/cuda/elementwise_*.cu): the
// per-file registrations and the device form of the common broadcast plan
// (kernels/common/broadcast_plan.h, the CPU's plan too). The device code (generic kernels
// and their launchers) is in elementwise_device.h; the arithmetic is
// common/elementwise_functors.h, shared with the CPU kernels.
//
// One merged axis runs a linear kernel (vectorized when every operand's stride is 0 or 1);
// more run the general kernel with an OffsetCalc (up to kMaxDims merged axes, passed by
// value).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/broadcast_plan.h"
#include "kernels/common/dtype_dispatch.h"
#include "kernels/common/kernel_checks.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/cuda_launch.h"
#include "kernels/kernel_registry.h"

namespace amp::kernels::cuda {

// A broadcast of N inputs to an output, merged (see the header comment).
template <int N>
struct DevicePlan {
  int64_t numel = 0;
  OffsetCalc<N> calc;  // rank >= 1

  bool linear() const { return calc.rank == 1; }
  int64_t linear_stride(int k) const { return calc.strides[k][0]; }
};

// The common plan (kernels/common/broadcast_plan.h) as the device kernels read it; N must be
// its number of inputs. unsupported when more than kMaxDims merged axes remain.
template <int N>
Result<DevicePlan<N>> device_plan(const kernels::BroadcastPlan& p);
extern template Result<DevicePlan<2>> device_plan<2>(const kernels::BroadcastPlan& p);
extern template Result<DevicePlan<3>> device_plan<3>(const kernels::BroadcastPlan& p);

}  // namespace amp::kernels::cuda
