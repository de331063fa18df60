// Einsum on the GPU: the direct loop of kernels/common/einsum_plan.h, one thread per output
// element (the CPU kernel's loop, kernels/cpu/einsum.cc).
#include "kernels/common/checked_kernel.h"
#include "kernels/common/einsum_plan.h"
#include "kernels/common/reduction_family.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/reduce_util.h"

namespace amp::kernels::cuda {
namespace {

// Operand pointers by value (at most kEinsumMaxInputs).
template <typename T>
struct Operands {
  const T* p[kEinsumMaxInputs];
};

template <typename T>
__global__ void einsum_kernel(Operands<T> in, T* __restrict__ y, EinsumPlan p) {
  using C = compute_t<T>;
  for (int64_t o = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; o < p.out_numel;
       o += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    y[o] = from_compute<T>(
        einsum_output<C>(p, o, [&](int i, int64_t off) { return to_compute(in.p[i][off]); }));
  }
}

template <typename T>
class EinsumKernel : public CheckedKernel<T, EinsumPlan, check_einsum_io> {
 public:
  Status run(const KernelArgs& a) const override {
    const EinsumPlan& p = this->shape_;
    if (p.out_numel == 0) return Status::ok();
    Operands<T> in{};
    for (int i = 0; i < p.inputs; ++i) in.p[i] = a.input<T>(static_cast<size_t>(i));
    einsum_kernel<T><<<grid_for(p.out_numel), kThreads, 0, static_cast<cudaStream_t>(a.stream)>>>(
        in, a.output<T>(0), p);
    return launch_status("einsum_kernel");
  }
};

}  // namespace

void register_einsum_kernels(KernelRegistry& r) {
  add_typed_kernels<EinsumKernel>(r, graph::OpType::kEinsum, Backend::kCuda, reduction::SumTypes{});
}

}  // namespace amp::kernels::cuda
