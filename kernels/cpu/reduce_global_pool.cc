// GlobalAveragePool and GlobalMaxPool: [N, C, D1..Dk] -> [N, C, 1..1], the mean (pairwise
// fp32 summation, f64 for f64) or the max (NaN-propagating) over the spatial dims, which are
// contiguous per (n, c) in the plain layout. An input kept in the convolutions' layout
// (runtime/layout_plan.h: an SE block's GlobalAveragePool reading a depthwise conv's output)
// is read with its strides, channels-last or 8-channel blocks: the same elements in the same
// summation order, so the same result. The [N, C, 1..1] output is the same bytes in every
// layout.
#include "kernels/common/checked_kernel.h"
#include "kernels/common/reduction_family.h"
#include "kernels/common/reduction_functors.h"
#include "kernels/common/reduction_io.h"
#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/dnnl_common.h"
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
    const int64_t c = channels_;
    const bool blocked = blocked8_, plain = !conv_layout_;
    parallel_for(
        this->shape_.planes, a.num_threads,
        [&](int64_t begin, int64_t end) {
          for (int64_t p = begin; p < end; ++p) {
            // Plane p = (n, ch): its first element and the step between its elements.
            const int64_t n = plain ? 0 : p / c, ch = plain ? 0 : p % c;
            const int64_t first = plain     ? p * s
                                  : blocked ? ((n * (c / 8) + ch / 8) * s) * 8 + ch % 8
                                            : n * s * c + ch;
            const int64_t step = plain ? 1 : blocked ? 8 : c;
            const T* plane = x + first;
            auto value = [plane, step](int64_t i) { return to_compute(plane[i * step]); };
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

 protected:
  Status prepare_params(const KernelConfig& cfg) override {
    const TensorDesc& x = cfg.inputs[0];
    conv_layout_ = x.conv_layout;
    channels_ = x.rank() >= 2 ? x.dims[1] : 1;
    blocked8_ = conv_layout_ && conv_layout_blocked8(x.dims);
    return Status::ok();
  }

 private:
  bool conv_layout_ = false, blocked8_ = false;
  int64_t channels_ = 1;
};

}  // namespace

void register_global_pool_kernels(KernelRegistry& r) {
  add_typed_kernels<GlobalPoolKernel>(r, graph::OpType::kGlobalAveragePool, Backend::kCpu,
                                      reduction::FloatTypes{});
  add_typed_kernels<GlobalPoolKernel>(r, graph::OpType::kGlobalMaxPool, Backend::kCpu,
                                      reduction::FloatTypes{});
}

}  // namespace amp::kernels::cpu
