// GlobalAveragePool and GlobalMaxPool: [N, C, D1..Dk] -> [N, C, 1..1], the mean (pairwise
// fp32 summation, f64 for f64) or the max (NaN-propagating) over the spatial dims, which are
// contiguous per (n, c) in the plain layout. An input kept in the convolutions' layout
// (runtime/layout_plan.h: an SE block's GlobalAveragePool reading a depthwise conv's output)
// is read in it, channels-last or 8-channel blocks, a row of adjacent channels at a time
// (tree_reduce_columns): the same elements in the same summation order, so the same result. The [N,
// C, 1..1] output is the same bytes in every layout.
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
    const C init = is_max ? C(reduction::lowest_of<T>()) : C(0);
    auto finish = [&](C r) {
      return is_max ? from_compute<T>(r) : from_compute<T>(reduce_mean_finish(r, s));
    };
    if (!conv_layout_) {
      // Plain: plane p = (n, c) is contiguous.
      parallel_for(
          this->shape_.planes, a.num_threads,
          [&](int64_t begin, int64_t end) {
            for (int64_t p = begin; p < end; ++p) {
              const T* plane = x + p * s;
              auto value = [plane](int64_t i) { return to_compute(plane[i]); };
              y[p] = finish(is_max ? tree_reduce<C>(0, s, init, max, value)
                                   : tree_reduce<C>(0, s, init, add, value));
            }
          },
          grain_for(s));
      return Status::ok();
    }
    // The conv layout: a group is up to kColumns channels of one n whose elements at one
    // position are adjacent (channels-last), or one block of 8 (8-channel blocks).
    const int64_t c = channels_, n_count = this->shape_.planes / std::max<int64_t>(c, 1);
    const int64_t width = blocked8_ ? 8 : kColumns;
    const int64_t per_n = (c + width - 1) / width;
    parallel_for(
        n_count * per_n, a.num_threads,
        [&](int64_t begin, int64_t end) {
          C sums[kColumns];
          for (int64_t g = begin; g < end; ++g) {
            const int64_t n = g / per_n, c0 = (g % per_n) * width;
            const int64_t k = std::min(width, c - c0);
            // Element (position i, channel c0 + j) of this group.
            const T* base = blocked8_ ? x + (n * per_n + g % per_n) * s * 8 : x + n * s * c + c0;
            const int64_t row = blocked8_ ? 8 : c;
            auto value = [base, row](int64_t i, int64_t j) {
              return to_compute(base[i * row + j]);
            };
            if (is_max)
              tree_reduce_columns<C>(0, s, k, init, max, value, sums);
            else
              tree_reduce_columns<C>(0, s, k, init, add, value, sums);
            for (int64_t j = 0; j < k; ++j) y[n * c + c0 + j] = finish(sums[j]);
          }
        },
        std::max<int64_t>(1, grain_for(s) / width));
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
