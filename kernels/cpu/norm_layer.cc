// LayerNormalization (opset 17): X viewed as [outer, N] with N = prod(dims[axis:]) (axis
// default -1); each row is normalized with its own mean and variance, then scaled and
// shifted by Scale (input 1) and the optional B (input 2), both unidirectionally
// broadcastable to dims[axis:]. RMSNormalization (opset 23) is the same without the mean
// (the "variance" is the mean of squares) and without B. Optional outputs Mean (1) and InvStdDev
// (2) have shape dims[:axis] + [1]*(rank-axis) and a float dtype (stash_type must be 1 = float).
//
// Statistics are two-pass (mean, then mean of squared deviations) with pairwise fp32 sums,
// f64 for f64 inputs. Scale and B are expanded to N compute-type values: once in prepare()
// when constant, else into the workspace at the start of run().
#include <algorithm>

#include "kernels/common/checked_kernel.h"
#include "kernels/common/norm_io.h"
#include "kernels/common/reduction_family.h"
#include "kernels/common/reduction_functors.h"
#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/reduce_util.h"

namespace amp::kernels::cpu {
namespace {

// A per-element parameter of the normalized shape, broadcast from its own dims.
struct NormParam {
  bool present = false;
  DType dtype = DType::kUndefined;
  int rank = 0;                    // of the normalized shape
  int64_t strides[kMaxRank] = {};  // 0 on broadcast dims
};

template <typename T>
class LayerNormKernel : public CheckedKernel<T, LayerNormShape, check_layer_norm_io> {
  using C = compute_t<T>;

 public:
  Status prepare_params(const KernelConfig& cfg) override {
    for (size_t k = 0; k < this->shape_.norm_dims.size(); ++k)
      norm_dims_arr_[k] = this->shape_.norm_dims[k];
    AMP_RETURN_IF_ERROR(setup_param(cfg, 1, &scale_, &const_scale_, &scale_runtime_, C(1)));
    AMP_RETURN_IF_ERROR(setup_param(cfg, 2, &bias_, &const_bias_, &bias_runtime_, C(0)));
    return Status::ok();
  }

  size_t workspace_bytes() const override {
    size_t n = 0;
    if (scale_runtime_) n += static_cast<size_t>(this->shape_.n);
    if (bias_runtime_) n += static_cast<size_t>(this->shape_.n);
    return n * sizeof(C);
  }

  Status run(const KernelArgs& a) const override {
    C* ws = static_cast<C*>(a.workspace);
    const C* scale = const_scale_.data();
    const C* bias = const_bias_.data();
    if (scale_runtime_) {
      expand(scale_, a.inputs[1], ws);
      scale = ws;
      ws += this->shape_.n;
    }
    if (bias_runtime_) {
      expand(bias_, a.inputs[2], ws);
      bias = ws;
    }
    const T* x = a.input<T>(0);
    T* y = a.output<T>(0);
    // Indexing a.outputs[1..2] only when prepare() saw those outputs present.
    void* mean_out = this->shape_.stat_dtype[0] != DType::kUndefined ? a.outputs[1] : nullptr;
    void* inv_out = this->shape_.stat_dtype[1] != DType::kUndefined ? a.outputs[2] : nullptr;
    const int64_t n = this->shape_.n;
    const C eps = static_cast<C>(this->shape_.epsilon);
    auto add = [](C u, C v) { return reduce_sum_step(u, v); };
    parallel_for(
        this->shape_.outer, a.num_threads,
        [&](int64_t begin, int64_t end) {
          for (int64_t o = begin; o < end; ++o) {
            const T* xr = x + o * n;
            T* yr = y + o * n;
            const C mean =
                this->shape_.rms ? C(0) : tree_reduce<C>(0, n, C(0), add, [xr](int64_t i) {
                                            return to_compute(xr[i]);
                                          }) / static_cast<C>(n);
            const C var = tree_reduce<C>(0, n, C(0), add,
                                         [xr, mean](int64_t i) {
                                           return squared_deviation(to_compute(xr[i]), mean);
                                         }) /
                          static_cast<C>(n);
            const C inv = inv_std_dev(var, eps);
            for (int64_t i = 0; i < n; ++i)
              yr[i] =
                  from_compute<T>(normalize_value(to_compute(xr[i]), mean, inv, scale[i], bias[i]));
            if (mean_out) store_from_double(mean_out, this->shape_.stat_dtype[0], o, mean);
            if (inv_out) store_from_double(inv_out, this->shape_.stat_dtype[1], o, inv);
          }
        },
        grain_for(3 * n));
    return Status::ok();
  }

 private:
  // Validates input `i` as broadcastable to the normalized shape. A constant (or absent:
  // filled with `fill`) parameter is expanded now into `values`.
  Status setup_param(const KernelConfig& cfg, size_t i, NormParam* p, std::vector<C>* values,
                     bool* runtime, C fill) {
    *runtime = false;
    const int nr = static_cast<int>(this->shape_.norm_dims.size());
    if (cfg.inputs.size() <= i || !cfg.inputs[i].present) {
      values->assign(static_cast<size_t>(this->shape_.n), fill);
      return Status::ok();
    }
    const TensorDesc& d = cfg.inputs[i];
    if (!is_float(d.dtype))
      return invalid_model("input " + std::to_string(i) + " must be a float tensor");
    if (d.rank() > this->shape_.norm_dims.size())
      return invalid_model("input " + std::to_string(i) +
                           " has a higher rank than the "
                           "normalized dims");
    const size_t off = this->shape_.norm_dims.size() - d.rank();
    for (size_t k = 0; k < d.rank(); ++k)
      if (d.dims[k] != 1 && d.dims[k] != this->shape_.norm_dims[off + k])
        return invalid_model("input " + std::to_string(i) +
                             " does not broadcast to the "
                             "normalized dims");
    p->present = true;
    p->dtype = d.dtype;
    p->rank = nr;
    const std::vector<int64_t> s = broadcast_strides(d.dims, this->shape_.norm_dims);
    std::copy(s.begin(), s.end(), p->strides);
    if (d.constant_data == nullptr) {
      *runtime = true;
      return Status::ok();
    }
    values->resize(static_cast<size_t>(this->shape_.n));
    expand(*p, d.constant_data, values->data());
    return Status::ok();
  }

  // dst[j] = param at element j of the normalized shape (an odometer over its dims).
  void expand(const NormParam& p, const void* src, C* dst) const {
    int64_t idx[kMaxRank] = {};
    int64_t off = 0;
    for (int64_t j = 0; j < this->shape_.n; ++j) {
      dst[j] = static_cast<C>(load_as_double(src, p.dtype, off));
      for (int k = p.rank - 1; k >= 0; --k) {
        off += p.strides[k];
        if (++idx[k] < norm_dims_arr_[k]) break;
        off -= p.strides[k] * idx[k];
        idx[k] = 0;
      }
    }
  }

  int64_t norm_dims_arr_[kMaxRank] = {};
  NormParam scale_, bias_;
  std::vector<C> const_scale_, const_bias_;  // unused when *_runtime_
  bool scale_runtime_ = false, bias_runtime_ = false;
};

}  // namespace

void register_layer_norm_kernels(KernelRegistry& r) {
  add_typed_kernels<LayerNormKernel>(r, graph::OpType::kLayerNormalization, Backend::kCpu,
                                     reduction::FloatTypes{}, /*in_place_input=*/0);
  add_typed_kernels<LayerNormKernel>(r, graph::OpType::kRMSNormalization, Backend::kCpu,
                                     reduction::FloatTypes{}, /*in_place_input=*/0);
}

}  // namespace amp::kernels::cpu
