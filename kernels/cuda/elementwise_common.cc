// The device form of the common broadcast plan (kernels/common/broadcast_plan.h), so both
// backends accept and reject the same nodes with the same messages. Host code only.
#include <algorithm>
#include <string>

#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/elementwise_cuda.h"

namespace amp::kernels::cuda {

template <int N>
Result<DevicePlan<N>> device_plan(const kernels::BroadcastPlan& p) {
  if (p.num_inputs != N)
    return internal_error("device broadcast plan for " + std::to_string(N) +
                          " inputs from one of " + std::to_string(p.num_inputs));
  if (p.rank > kMaxDims)
    return unsupported("broadcast over " + std::to_string(p.rank) +
                       " non-mergeable axes (the CUDA kernels take at most " +
                       std::to_string(kMaxDims) + ")");
  DevicePlan<N> d;
  d.numel = p.numel;
  d.calc.rank = p.rank;
  for (int a = 0; a < p.rank; ++a) {
    d.calc.dims[a] = p.dims[static_cast<size_t>(a)];
    for (int k = 0; k < N; ++k)
      d.calc.strides[k][a] = p.strides[static_cast<size_t>(k)][static_cast<size_t>(a)];
  }
  return d;
}
template Result<DevicePlan<2>> device_plan<2>(const kernels::BroadcastPlan& p);
template Result<DevicePlan<3>> device_plan<3>(const kernels::BroadcastPlan& p);

}  // namespace amp::kernels::cuda
