// GlobalAveragePool and GlobalMaxPool: [N, C, D1..Dk] -> [N, C, 1..1], the mean (pairwise
// fp32 summation, f64 for f64) or the max (NaN-propagating; f32/f64 planes vectorized by
// row_max.h) over the spatial dims, which are contiguous per (n, c) in the plain layout. An input
// kept in the convolutions' layout (runtime/layout_plan.h: an SE block's GlobalAveragePool reading
// a depthwise conv's output) is read in it, channels-last or 8-channel blocks, a row of adjacent
// channels at a time (tree_reduce_columns): the same elements in the same summation order, so the
// same result. The [N, C, 1..1] output is the same bytes in every layout.
//
// Threads in the conv layout: with two or more, each half of the positions is one task's,
// every channel of it, cut where tree_reduce cuts [0, S) first (more than 256 positions), so
// the two halves' partial results combine into the same result bit for bit. Splitting by
// channel groups instead made each thread read every cache line of the input, half of
// them from the other core (which had just written them), and gave 144 channels to two
// threads as 128 + 16: an EfficientNet SE block's pool of 144 x 56 x 56 took 0.079 ms on
// one thread and 0.098 on two (Intel Xeon model 167).
#include "kernels/common/checked_kernel.h"
#include "kernels/common/reduction_family.h"
#include "kernels/common/reduction_functors.h"
#include "kernels/common/reduction_io.h"
#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/dnnl_common.h"
#include "kernels/cpu/reduce_util.h"
#include "kernels/cpu/row_max.h"

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
              if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
                if (is_max && s > 0) {  // vectorized (kernels/cpu/row_max.h)
                  y[p] = row_max_propagating(plane, s);
                  continue;
                }
              }
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
    const int64_t per_n = (c + width - 1) / width, groups = n_count * per_n;
    // Halves of the positions (header): partial results in the workspace, [2, N C].
    const bool halves = in_halves(a.num_threads) && a.workspace != nullptr;
    const int64_t mid = halves ? (s / 2) & ~int64_t{7} : s;
    C* partial = static_cast<C*>(a.workspace);
    parallel_for(
        groups * (halves ? 2 : 1), a.num_threads,
        [&](int64_t begin, int64_t end) {
          C sums[kColumns];
          for (int64_t t = begin; t < end; ++t) {
            const int64_t half = t / groups, g = t % groups;
            const int64_t i0 = half == 0 ? 0 : mid, i1 = halves && half == 0 ? mid : s;
            const int64_t n = g / per_n, c0 = (g % per_n) * width;
            const int64_t k = std::min(width, c - c0);
            // Element (position i, channel c0 + j) of this group.
            const T* base = blocked8_ ? x + (n * per_n + g % per_n) * s * 8 : x + n * s * c + c0;
            const int64_t row = blocked8_ ? 8 : c;
            auto value = [base, row](int64_t i, int64_t j) {
              return to_compute(base[i * row + j]);
            };
            if (is_max)
              tree_reduce_columns<C>(i0, i1, k, init, max, value, sums);
            else
              tree_reduce_columns<C>(i0, i1, k, init, add, value, sums);
            C* dst = halves ? partial + half * n_count * c : nullptr;
            for (int64_t j = 0; j < k; ++j) {
              if (halves)
                dst[n * c + c0 + j] = sums[j];
              else
                y[n * c + c0 + j] = finish(sums[j]);
            }
          }
        },
        halves ? 1 : std::max<int64_t>(1, grain_for(s) / width));
    if (halves) {
      const int64_t planes = n_count * c;
      for (int64_t p = 0; p < planes; ++p)
        y[p] = finish(is_max ? max(partial[p], partial[planes + p])
                             : add(partial[p], partial[planes + p]));
    }
    return Status::ok();
  }

 protected:
  Status prepare_params(const KernelConfig& cfg) override {
    const TensorDesc& x = cfg.inputs[0];
    conv_layout_ = x.conv_layout;
    channels_ = x.rank() >= 2 ? x.dims[1] : 1;
    blocked8_ = conv_layout_ && conv_layout_blocked8(x.dims);
    threads_ = cfg.num_threads;
    return Status::ok();
  }

 public:
  size_t workspace_bytes() const override {
    return in_halves(threads_) ? 2 * static_cast<size_t>(this->shape_.planes) * sizeof(compute_t<T>)
                               : 0;
  }

 private:
  // Whether `threads` split the conv layout's positions in halves (header).
  bool in_halves(int threads) const {
    return conv_layout_ && threads >= 2 && this->shape_.spatial > 256;
  }

  int threads_ = 1;
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
