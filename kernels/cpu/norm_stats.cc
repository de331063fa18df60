// GroupNormalization, MeanVarianceNormalization and LRN on the CPU
// (kernels/common/stat_norm_io.h): statistics in double, outputs rounded once.
#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/common/checked_kernel.h"
#include "kernels/common/reduction_family.h"
#include "kernels/common/stat_norm_io.h"
#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/reduce_util.h"

namespace amp::kernels::cpu {
namespace {

template <typename T>
double as_double(T v) {
  return static_cast<double>(to_compute(v));
}

template <typename T>
class GroupNormKernel : public CheckedKernel<T, GroupNormShape, check_group_norm_io> {
 public:
  Status run(const KernelArgs& a) const override {
    const GroupNormShape& s = this->shape_;
    const T* x = a.input<T>(0);
    const T* scale = a.input<T>(1);
    const T* bias = a.input<T>(2);
    T* y = a.output<T>(0);
    const int64_t cpg = s.c / s.groups, block = cpg * s.spatial;
    parallel_for(
        s.n * s.groups, a.num_threads,
        [&](int64_t begin, int64_t end) {
          for (int64_t item = begin; item < end; ++item) {
            const int64_t g = item % s.groups;
            const T* xb = x + item * block;
            T* yb = y + item * block;
            double sum = 0.0, sq = 0.0;
            for (int64_t i = 0; i < block; ++i) {
              const double v = as_double(xb[i]);
              sum += v;
              sq += v * v;
            }
            const double mean = block > 0 ? sum / static_cast<double>(block) : 0.0;
            const double var =
                block > 0 ? std::max(0.0, sq / static_cast<double>(block) - mean * mean) : 0.0;
            const double inv = 1.0 / std::sqrt(var + static_cast<double>(s.epsilon));
            for (int64_t i = 0; i < block; ++i) {
              const int64_t ch = s.scale_per_group ? g : g * cpg + i / s.spatial;
              const double v =
                  (as_double(xb[i]) - mean) * inv * as_double(scale[ch]) + as_double(bias[ch]);
              yb[i] = from_compute<T>(static_cast<compute_t<T>>(v));
            }
          }
        },
        1);
    return Status::ok();
  }
};

template <typename T>
class MvnKernel : public CheckedKernel<T, MvnShape, check_mvn_io> {
 public:
  // Per slot: the sum and the sum of squares.
  size_t workspace_bytes() const override {
    return static_cast<size_t>(this->shape_.slots) * 2 * sizeof(double);
  }

  Status run(const KernelArgs& a) const override {
    const MvnShape& s = this->shape_;
    const T* x = a.input<T>(0);
    T* y = a.output<T>(0);
    double* sum = static_cast<double*>(a.workspace);
    double* sq = sum + s.slots;
    for (int64_t k = 0; k < s.slots; ++k) sum[k] = sq[k] = 0.0;
    for (int64_t e = 0; e < s.numel; ++e) {
      const int64_t k = mvn_slot(s, e);
      const double v = as_double(x[e]);
      sum[k] += v;
      sq[k] += v * v;
    }
    const double n = static_cast<double>(s.per_slot);
    for (int64_t k = 0; k < s.slots; ++k) {
      const double mean = sum[k] / n;
      sum[k] = mean;
      sq[k] = 1.0 / (std::sqrt(std::max(0.0, sq[k] / n - mean * mean)) + kMvnEpsilon);
    }
    for (int64_t e = 0; e < s.numel; ++e) {
      const int64_t k = mvn_slot(s, e);
      y[e] = from_compute<T>(static_cast<compute_t<T>>((as_double(x[e]) - sum[k]) * sq[k]));
    }
    return Status::ok();
  }
};

template <typename T>
class LrnKernel : public CheckedKernel<T, LrnShape, check_lrn_io> {
 public:
  Status run(const KernelArgs& a) const override {
    const LrnShape& s = this->shape_;
    const T* x = a.input<T>(0);
    T* y = a.output<T>(0);
    const double scale = static_cast<double>(s.alpha) / static_cast<double>(s.size);
    parallel_for(
        s.n * s.c, a.num_threads,
        [&](int64_t begin, int64_t end) {
          for (int64_t item = begin; item < end; ++item) {
            const int64_t b = item / s.c, ch = item % s.c;
            const int64_t first = lrn_first(s, ch), last = lrn_last(s, ch);
            for (int64_t p = 0; p < s.spatial; ++p) {
              double sq = 0.0;
              for (int64_t q = first; q <= last; ++q) {
                const double v = as_double(x[(b * s.c + q) * s.spatial + p]);
                sq += v * v;
              }
              const int64_t at = item * s.spatial + p;
              const double d =
                  std::pow(static_cast<double>(s.bias) + scale * sq, static_cast<double>(s.beta));
              y[at] = from_compute<T>(static_cast<compute_t<T>>(as_double(x[at]) / d));
            }
          }
        },
        1);
    return Status::ok();
  }
};

}  // namespace

void register_norm_stats_kernels(KernelRegistry& r) {
  add_typed_kernels<GroupNormKernel>(r, graph::OpType::kGroupNormalization, Backend::kCpu,
                                     reduction::FloatTypes{});
  add_typed_kernels<MvnKernel>(r, graph::OpType::kMeanVarianceNormalization, Backend::kCpu,
                               reduction::FloatTypes{});
  add_typed_kernels<LrnKernel>(r, graph::OpType::kLRN, Backend::kCpu, reduction::FloatTypes{});
}

}  // namespace amp::kernels::cpu
