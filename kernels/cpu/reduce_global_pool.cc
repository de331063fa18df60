// GlobalAveragePool and GlobalMaxPool: [N, C, D1..Dk] -> [N, C, 1..1], the mean (pairwise
// fp32 summation, f64 for f64) or the max (NaN-propagating) over the spatial dims, which are
// contiguous per (n, c).
#include "kernels/common/checked_kernel.h"
#include "kernels/common/reduction_family.h"
#include "kernels/common/reduction_functors.h"
#include "kernels/common/reduction_io.h"
#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/reduce_util.h"

namespace amp::kernels::cpu {
namespace {

template <typename T>
class GlobalPoolKernel : public CheckedKernel<T, GlobalPoolShape, check_global_pool_io> {
 public:
  Status run(const KernelArgs& a) const override {
    using C = compute_t<T>;
    const T* x = a.input<T>(0);
    T* y = a.output<T>(0);
    const int64_t s = this->shape_.spatial;
    auto add = [](C u, C v) { return reduce_sum_step(u, v); };
    auto max = [](C u, C v) { return reduce_max_step(u, v); };
    const bool is_max = this->shape_.max;
    parallel_for(
        this->shape_.planes, a.num_threads,
        [&](int64_t begin, int64_t end) {
          for (int64_t p = begin; p < end; ++p) {
            const T* plane = x + p * s;
            auto value = [plane](int64_t i) { return to_compute(plane[i]); };
            y[p] =
                is_max
                    ? from_compute<T>(tree_reduce<C>(0, s, reduction::lowest_of<T>(), max, value))
                    : from_compute<T>(
                          reduce_mean_finish(tree_reduce<C>(0, s, C(0), add, value), s));
          }
        },
        grain_for(s));
    return Status::ok();
  }
};

}  // namespace

void register_global_pool_kernels(KernelRegistry& r) {
  add_typed_kernels<GlobalPoolKernel>(r, graph::OpType::kGlobalAveragePool, Backend::kCpu,
                                      reduction::FloatTypes{});
  add_typed_kernels<GlobalPoolKernel>(r, graph::OpType::kGlobalMaxPool, Backend::kCpu,
                                      reduction::FloatTypes{});
}

}  // namespace amp::kernels::cpu
