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
// type on store; integer means truncate). Max/Min propagate NaN. An empty reduced set
// gives ONNX's identities: 0 for Sum, NaN for a float Mean, -inf/+inf (or the type's
// limits) for Max/Min.
#include <algorithm>
#include <cstring>

#include "kernels/common/reduction_family.h"
#include "kernels/common/reduction_functors.h"
#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/reduce_util.h"

namespace amp::kernels::cpu {
namespace {

// Marks `axes` (each in [-rank, rank), no repeats) in `flags`. invalid_input on bad axes;
// prepare() turns that into invalid_model.
Status axes_to_flags(const int64_t* axes, int64_t n, int rank, bool* flags) {
  for (int i = 0; i < rank; ++i) flags[i] = false;
  for (int64_t i = 0; i < n; ++i) {
    int64_t a = axes[i];
    if (a < -rank || a >= rank)
      return invalid_input("axis " + std::to_string(a) + " is out of range for rank " +
                           std::to_string(rank));
    if (a < 0) a += rank;
    if (flags[a]) return invalid_input("axis " + std::to_string(axes[i]) + " is repeated");
    flags[a] = true;
  }
  return Status::ok();
}

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
    AMP_RETURN_IF_ERROR(check_io(cfg, dtype_of<T>()));
    const graph::Attributes& attrs = cfg.node->attrs;
    AMP_ASSIGN_OR_RETURN(int64_t keepdims, attrs.get_int("keepdims", 1));
    AMP_ASSIGN_OR_RETURN(int64_t noop, attrs.get_int("noop_with_empty_axes", 0));
    keepdims_ = keepdims != 0;
    noop_empty_ = noop != 0;
    in_dims_ = cfg.inputs[0].dims;
    out_dims_ = cfg.outputs[0].dims;
    rank_ = static_cast<int>(in_dims_.size());
    in_numel_ = cfg.inputs[0].numel();

    const bool has_axes = cfg.inputs.size() > 1 && cfg.inputs[1].present;
    if (!has_axes) return set_axes(nullptr, 0);
    const TensorDesc& ad = cfg.inputs[1];
    if (ad.dtype != DType::kI64)
      return invalid_model("axes (input 1) must be i64, got " + std::string(dtype_name(ad.dtype)));
    if (ad.rank() > 1) return invalid_model("axes (input 1) must be 1-D");
    axes_len_ = ad.numel();
    if (ad.constant_data == nullptr && axes_len_ != 0) {
      runtime_axes_ = true;  // plan built in run()
      return Status::ok();
    }
    Status s = set_axes(static_cast<const int64_t*>(ad.constant_data), axes_len_);
    if (!s.is_ok()) return invalid_model(s.message());
    return Status::ok();
  }

  Status run(const KernelArgs& a) const override {
    const T* x = a.input<T>(0);
    T* y = a.output<T>(0);
    if (!runtime_axes_) {
      if (copy_) {
        if (in_numel_ > 0) std::memcpy(y, x, static_cast<size_t>(in_numel_) * sizeof(T));
        return Status::ok();
      }
      reduce<T, R>(plan_, x, y, a.num_threads);
      return Status::ok();
    }
    bool flags[kMaxRank];
    AMP_RETURN_IF_ERROR(axes_to_flags(a.input<int64_t>(1), axes_len_, rank_, flags));
    AMP_RETURN_IF_ERROR(check_output_shape(flags));
    reduce<T, R>(make_reduce_plan(in_dims_.data(), flags, rank_), x, y, a.num_threads);
    return Status::ok();
  }

 private:
  // Constant (or absent) axes: validates them against the output shape and plans once.
  Status set_axes(const int64_t* axes, int64_t n) {
    bool flags[kMaxRank];
    if (n == 0) {
      copy_ = noop_empty_;
      for (int i = 0; i < rank_; ++i) flags[i] = !noop_empty_;
    } else {
      AMP_RETURN_IF_ERROR(axes_to_flags(axes, n, rank_, flags));
    }
    Status s = check_output_shape(flags);
    if (!s.is_ok()) return invalid_model(s.message());
    plan_ = make_reduce_plan(in_dims_.data(), flags, rank_);
    return Status::ok();
  }

  // The output dims these flags imply must be the ones prepare() was given.
  Status check_output_shape(const bool* flags) const {
    size_t j = 0;
    bool ok = true;
    for (int i = 0; i < rank_ && ok; ++i) {
      if (flags[i] && !keepdims_) continue;
      const int64_t d = flags[i] ? 1 : in_dims_[i];
      ok = j < out_dims_.size() && out_dims_[j] == d;
      ++j;
    }
    if (!ok || j != out_dims_.size())
      return invalid_input("the axes give an output shape other than the planned one");
    return Status::ok();
  }

  std::vector<int64_t> in_dims_, out_dims_;
  int rank_ = 0;
  int64_t in_numel_ = 0;
  bool keepdims_ = true;
  bool noop_empty_ = false;
  bool copy_ = false;
  bool runtime_axes_ = false;
  int64_t axes_len_ = 0;
  ReducePlan plan_;
};

}  // namespace

void register_reduce_axes_kernels(KernelRegistry& r) {
  add_reduction_family<ReduceKernel>(r, Backend::kCpu);
}

}  // namespace amp::kernels::cpu
