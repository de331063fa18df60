// ArgMax and ArgMin: the index (i64) of the largest (smallest) element along `axis`
// (default 0), keepdims (default 1), select_last_index (default 0: the first of equal
// extremes). NaN counts as the extreme, as in numpy.argmax and numpy.argmin. Comparisons are done
// in the compute type, which is exact for every storage type (f16/bf16 widen to fp32 without
// rounding).
#include <algorithm>

#include "kernels/common/checked_kernel.h"
#include "kernels/common/reduction_family.h"
#include "kernels/common/reduction_functors.h"
#include "kernels/common/reduction_io.h"
#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/reduce_util.h"

namespace amp::kernels::cpu {
namespace {

template <typename T>
class ArgMaxKernel : public CheckedKernel<T, ArgReduceShape, check_arg_reduce_io> {
 public:
  Status run(const KernelArgs& a) const override {
    const T* x = a.input<T>(0);
    int64_t* y = a.output<int64_t>(0);
    const bool last = this->shape_.select_last_index;
    const bool smallest = this->shape_.smallest;
    const int64_t len = this->shape_.len, inner = this->shape_.inner;
    if (inner == 1) {
      parallel_for(
          this->shape_.outer, a.num_threads,
          [&](int64_t begin, int64_t end) {
            for (int64_t o = begin; o < end; ++o) {
              const T* row = x + o * len;
              auto best = to_compute(row[0]);
              int64_t idx = 0;
              for (int64_t i = 1; i < len; ++i) {
                const auto v = to_compute(row[i]);
                if (arg_takes(v, best, last, smallest)) {
                  best = v;
                  idx = i;
                }
              }
              y[o] = idx;
            }
          },
          grain_for(len));
      return Status::ok();
    }
    // Axis not innermost: scan rows of kTile columns with per-column state on the stack.
    const int64_t tiles = (inner + kTile - 1) / kTile;
    parallel_for(
        this->shape_.outer * tiles, a.num_threads,
        [&](int64_t begin, int64_t end) {
          compute_t<T> best[kTile];
          int64_t idx[kTile];
          for (int64_t item = begin; item < end; ++item) {
            const int64_t o = item / tiles;
            const int64_t c0 = (item % tiles) * kTile;
            const int64_t w = std::min(kTile, inner - c0);
            const T* base = x + o * len * inner + c0;
            for (int64_t j = 0; j < w; ++j) {
              best[j] = to_compute(base[j]);
              idx[j] = 0;
            }
            for (int64_t i = 1; i < len; ++i) {
              const T* row = base + i * inner;
              for (int64_t j = 0; j < w; ++j) {
                const auto v = to_compute(row[j]);
                if (arg_takes(v, best[j], last, smallest)) {
                  best[j] = v;
                  idx[j] = i;
                }
              }
            }
            std::copy(idx, idx + w, y + o * inner + c0);
          }
        },
        grain_for(len * std::min(kTile, inner)));
    return Status::ok();
  }
};

}  // namespace

void register_argmax_kernels(KernelRegistry& r) {
  add_typed_kernels<ArgMaxKernel>(r, graph::OpType::kArgMax, Backend::kCpu,
                                  reduction::ArgMaxTypes{});
  add_typed_kernels<ArgMaxKernel>(r, graph::OpType::kArgMin, Backend::kCpu,
                                  reduction::ArgMaxTypes{});
}

}  // namespace amp::kernels::cpu
