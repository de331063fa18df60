// The ops along one axis on the CPU (kernels/common/axis_ops_io.h): CumSum (running sums in
// the compute type: fp32 for f16/bf16, f64, int64 for integers), TopK (a partial sort of
// each line by top_k_before, the order every backend uses), Hardmax (1 at the first maximum)
// and LpNormalization (fp32 norms, f64 for f64). Lines run in parallel.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "kernels/common/axis_ops_io.h"
#include "kernels/common/checked_kernel.h"
#include "kernels/common/reduction_family.h"
#include "kernels/common/reduction_io.h"
#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/reduce_util.h"

namespace amp::kernels::cpu {
namespace {

template <typename T>
class CumSumKernel : public CheckedKernel<T, CumSumShape, check_cum_sum_io> {
 public:
  Status run(const KernelArgs& a) const override {
    const CumSumShape& s = this->shape_;
    int64_t axis = s.axis;
    if (axis < 0) {
      int64_t v = 0;
      read_int_param(a.inputs[1], s.axis_dtype, 1, &v);
      axis = cum_sum_axis(v, s.rank);
      if (axis < 0)
        return invalid_input("CumSum: axis " + std::to_string(v) + " is out of range for rank " +
                             std::to_string(s.rank));
    }
    const graph::AxisGeometry g = cum_sum_geometry(s, axis);
    const T* x = a.input<T>(0);
    T* y = a.output<T>(0);
    using C = compute_t<T>;
    parallel_for(
        g.outer * g.inner, a.num_threads,
        [&](int64_t begin, int64_t end) {
          for (int64_t line = begin; line < end; ++line) {
            const int64_t base = axis_line_base(line, g.len, g.inner);
            C sum = C(0);
            for (int64_t i = 0; i < g.len; ++i) {
              const int64_t step = s.reverse ? g.len - 1 - i : i;
              const int64_t at = base + step * g.inner;
              const C v = to_compute(x[at]);
              if (s.exclusive) {
                y[at] = from_compute<T>(sum);
                sum += v;
              } else {
                sum += v;
                y[at] = from_compute<T>(sum);
              }
            }
          }
        },
        grain_for(g.len));
    return Status::ok();
  }
};

template <typename T>
class TopKKernel : public CheckedKernel<T, TopKShape, check_top_k_io> {
 public:
  // One line's candidate indices at a time (run() is single-threaded).
  size_t workspace_bytes() const override {
    return static_cast<size_t>(this->shape_.len) * sizeof(int64_t);
  }

  Status run(const KernelArgs& a) const override {
    const TopKShape& s = this->shape_;
    const T* x = a.input<T>(0);
    T* values = a.output<T>(0);
    int64_t* indices = a.output<int64_t>(1);
    int64_t* order = static_cast<int64_t*>(a.workspace);
    for (int64_t o = 0; o < s.outer; ++o) {
      for (int64_t j = 0; j < s.inner; ++j) {
        const T* line = x + o * s.len * s.inner + j;
        for (int64_t i = 0; i < s.len; ++i) order[i] = i;
        std::partial_sort(order, order + s.k, order + s.len, [&](int64_t p, int64_t q) {
          return top_k_before(to_compute(line[p * s.inner]), p, to_compute(line[q * s.inner]), q,
                              s.largest);
        });
        for (int64_t r = 0; r < s.k; ++r) {
          const int64_t at = (o * s.k + r) * s.inner + j;
          values[at] = line[order[r] * s.inner];
          indices[at] = order[r];
        }
      }
    }
    return Status::ok();
  }
};

template <typename T>
class HardmaxKernel : public CheckedKernel<T, graph::AxisGeometry, check_softmax_io> {
 public:
  Status run(const KernelArgs& a) const override {
    const graph::AxisGeometry& g = this->shape_;
    const T* x = a.input<T>(0);
    T* y = a.output<T>(0);
    parallel_for(
        g.outer * g.inner, a.num_threads,
        [&](int64_t begin, int64_t end) {
          for (int64_t line = begin; line < end; ++line) {
            const int64_t base = axis_line_base(line, g.len, g.inner);
            int64_t best = 0;
            for (int64_t i = 1; i < g.len; ++i)
              if (to_compute(x[base + i * g.inner]) > to_compute(x[base + best * g.inner]))
                best = i;
            for (int64_t i = 0; i < g.len; ++i)
              y[base + i * g.inner] = from_compute<T>(i == best ? 1.0f : 0.0f);
          }
        },
        grain_for(g.len));
    return Status::ok();
  }
};

template <typename T>
class LpNormKernel : public CheckedKernel<T, LpNormShape, check_lp_norm_io> {
 public:
  Status run(const KernelArgs& a) const override {
    const LpNormShape& s = this->shape_;
    const T* x = a.input<T>(0);
    T* y = a.output<T>(0);
    using C = compute_t<T>;
    parallel_for(
        s.outer * s.inner, a.num_threads,
        [&](int64_t begin, int64_t end) {
          for (int64_t line = begin; line < end; ++line) {
            const int64_t base = axis_line_base(line, s.len, s.inner);
            C norm = C(0);
            for (int64_t i = 0; i < s.len; ++i) {
              const C v = to_compute(x[base + i * s.inner]);
              norm += s.p == 1 ? std::fabs(v) : v * v;
            }
            if (s.p == 2) norm = std::sqrt(norm);
            // A zero line stays zero (ONNX Runtime's rule) instead of 0/0.
            const C inv = norm > C(0) ? C(1) / norm : C(0);
            for (int64_t i = 0; i < s.len; ++i)
              y[base + i * s.inner] = from_compute<T>(to_compute(x[base + i * s.inner]) * inv);
          }
        },
        grain_for(s.len));
    return Status::ok();
  }
};

}  // namespace

void register_axis_ops_kernels(KernelRegistry& r) {
  add_typed_kernels<CumSumKernel>(r, graph::OpType::kCumSum, Backend::kCpu, reduction::SumTypes{});
  add_typed_kernels<TopKKernel>(r, graph::OpType::kTopK, Backend::kCpu, reduction::ArgMaxTypes{});
  add_typed_kernels<HardmaxKernel>(r, graph::OpType::kHardmax, Backend::kCpu,
                                   reduction::FloatTypes{});
  add_typed_kernels<LpNormKernel>(r, graph::OpType::kLpNormalization, Backend::kCpu,
                                  reduction::FloatTypes{});
}

}  // namespace amp::kernels::cpu
