// Einsum on the CPU: the direct loop of kernels/common/einsum_plan.h, output elements split
// over threads.
#include <algorithm>

#include "kernels/common/checked_kernel.h"
#include "kernels/common/einsum_plan.h"
#include "kernels/common/reduction_family.h"
#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/reduce_util.h"

namespace amp::kernels::cpu {
namespace {

template <typename T>
class EinsumKernel : public CheckedKernel<T, EinsumPlan, check_einsum_io> {
 public:
  Status run(const KernelArgs& a) const override {
    const EinsumPlan& p = this->shape_;
    T* y = a.output<T>(0);
    using C = compute_t<T>;
    parallel_for(
        p.out_numel, a.num_threads,
        [&](int64_t begin, int64_t end) {
          for (int64_t o = begin; o < end; ++o)
            y[o] = from_compute<T>(einsum_output<C>(
                p, o, [&](int i, int64_t off) { return to_compute(a.input<T>(i)[off]); }));
        },
        std::max<int64_t>(1, 4096 / std::max<int64_t>(p.sum_numel, 1)));
    return Status::ok();
  }
};

}  // namespace

void register_einsum_kernels(KernelRegistry& r) {
  add_typed_kernels<EinsumKernel>(r, graph::OpType::kEinsum, Backend::kCpu, reduction::SumTypes{});
}

}  // namespace amp::kernels::cpu
