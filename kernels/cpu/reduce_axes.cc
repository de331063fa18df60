// The Reduce* ops over any set of axes (every row of kernels/common/reduction_family.def),
// one kernel template over the table's reducers (map on load, step, finish on store).
//
// Axes come from optional input 1 (the importer's canonical form). When it is a constant
// the iteration plan is built once in prepare(); otherwise run() reads the i64 axes, builds
// the plan on the stack (no allocation, no workspace) and checks that they produce the
// output shape prepare() was given. Absent or empty axes reduce everything, or nothing
// with noop_with_empty_axes=1 (a copy).
//
// Floats accumulate in fp32 (f64 in f64) with pairwise summation along contiguous runs and
// blocked summation across rows; integers accumulate in int64 (sums wrap to the storage
// type on store; integer means truncate). Max/Min propagate NaN (f32/f64 Max over contiguous
// runs vectorized by row_max.h). An empty reduced set
// gives ONNX's identities: 0 for Sum, NaN for a float Mean, -inf/+inf (or the type's
// limits) for Max/Min.
#include <algorithm>
#include <cstring>

#include "kernels/common/reduction_family.h"
#include "kernels/common/reduction_functors.h"
#include "kernels/common/reduction_io.h"
#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/reduce_util.h"
#include "kernels/cpu/row_max.h"

namespace amp::kernels::cpu {
namespace {

template <typename T, typename R>
void reduce(const ReducePlan& p, const T* x, T* y, int threads) {
  using C = compute_t<T>;
  const C init = R::template init<T>();
  auto op = [](C a, C b) { return R::step(a, b); };
  const int64_t count = p.reduce_size;
  auto finish = [count](C acc) { return from_compute<T>(R::finish(acc, count)); };

  if (p.inner_reduced) {
    // Each output: contiguous runs of p.inner, one per index over the other reduced dims.
    parallel_for(
        p.kept_count, threads,
        [&](int64_t begin, int64_t end) {
          for (int64_t o = begin; o < end; ++o) {
            const T* base = x + offset_of(o, p.kept_dims, p.kept_strides, p.n_kept);
            C acc = init;
            for (int64_t r = 0; r < p.red_count; ++r) {
              const T* run = base + offset_of(r, p.red_dims, p.red_strides, p.n_red);
              if constexpr (std::is_same_v<R, MaxReducer> &&
                            (std::is_same_v<T, float> || std::is_same_v<T, double>)) {
                if (p.inner > 0) {  // vectorized (kernels/cpu/row_max.h)
                  acc = op(acc, row_max_propagating(run, p.inner));
                  continue;
                }
              }
              acc = op(acc, tree_reduce<C>(0, p.inner, init, op, [run](int64_t i) {
                         return R::map(to_compute(run[i]));
                       }));
            }
            y[o] = finish(acc);
          }
        },
        grain_for(p.red_count * p.inner));
    return;
  }

  // Innermost dim kept: accumulate whole rows, kTile columns at a time, in stack arrays.
  // Rows are summed in blocks of kTile and the block sums added, which keeps the error of
  // long reductions (axis 0 of a tall matrix) well below a plain running sum's.
  const int64_t tiles = (p.inner + kTile - 1) / kTile;
  parallel_for(
      p.kept_count * tiles, threads,
      [&](int64_t begin, int64_t end) {
        C total[kTile];
        C block[kTile];
        for (int64_t item = begin; item < end; ++item) {
          const int64_t row = item / tiles;
          const int64_t c0 = (item % tiles) * kTile;
          const int64_t w = std::min(kTile, p.inner - c0);
          const T* base = x + offset_of(row, p.kept_dims, p.kept_strides, p.n_kept) + c0;
          for (int64_t j = 0; j < w; ++j) total[j] = init;
          for (int64_t r0 = 0; r0 < p.red_count; r0 += kTile) {
            for (int64_t j = 0; j < w; ++j) block[j] = init;
            const int64_t r1 = std::min(p.red_count, r0 + kTile);
            for (int64_t r = r0; r < r1; ++r) {
              const T* src = base + offset_of(r, p.red_dims, p.red_strides, p.n_red);
              for (int64_t j = 0; j < w; ++j) block[j] = op(block[j], R::map(to_compute(src[j])));
            }
            for (int64_t j = 0; j < w; ++j) total[j] = op(total[j], block[j]);
          }
          T* dst = y + row * p.inner + c0;
          for (int64_t j = 0; j < w; ++j) dst[j] = finish(total[j]);
        }
      },
      grain_for(p.red_count * std::min(kTile, p.inner)));
}

template <typename T, typename R>
class ReduceKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_ASSIGN_OR_RETURN(s_, check_reduce_axes_io(cfg, dtype_of<T>()));
    if (s_.runtime_axes) return Status::ok();  // planned in run()
    AMP_ASSIGN_OR_RETURN(plan_, plan_constant_axes(s_, &copy_));
    return Status::ok();
  }

  Status run(const KernelArgs& a) const override {
    const T* x = a.input<T>(0);
    T* y = a.output<T>(0);
    if (!s_.runtime_axes) {
      if (copy_) {
        if (s_.in_numel > 0) std::memcpy(y, x, static_cast<size_t>(s_.in_numel) * sizeof(T));
        return Status::ok();
      }
      reduce<T, R>(plan_, x, y, a.num_threads);
      return Status::ok();
    }
    bool flags[kReduceMaxRank];
    AMP_RETURN_IF_ERROR(reduce_axes_flags(a.input<int64_t>(1), s_.axes_len, s_.rank, flags));
    AMP_RETURN_IF_ERROR(check_reduced_shape(s_, flags));
    reduce<T, R>(make_reduce_plan(s_.in_dims.data(), flags, s_.rank), x, y, a.num_threads);
    return Status::ok();
  }

 private:
  ReduceAxesShape s_;
  bool copy_ = false;
  ReducePlan plan_;
};

}  // namespace

void register_reduce_axes_kernels(KernelRegistry& r) {
  add_reduction_family<ReduceKernel>(r, Backend::kCpu);
}

}  // namespace amp::kernels::cpu
