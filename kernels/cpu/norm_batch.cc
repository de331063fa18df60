// BatchNormalization, inference form: X [N, C, D1..Dk] and per-channel scale, B,
// input_mean, input_var (each [C], any float dtype), epsilon (default 1e-5).
// y = (x - mean) / sqrt(var + eps) * scale + B, folded per channel into y = x * a[c] + b[c]
// (batchnorm_scale / batchnorm_shift): once in prepare() when all four are constant (the
// usual case: weights), else into the workspace at the start of run().
//
// Training (training_mode = 1, or the running-statistics outputs 1..2 requested) and the
// pre-opset-9 non-spatial form (spatial = 0) are unsupported.
#include "kernels/common/checked_kernel.h"
#include "kernels/common/norm_io.h"
#include "kernels/common/reduction_family.h"
#include "kernels/common/reduction_functors.h"
#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/reduce_util.h"

namespace amp::kernels::cpu {
namespace {

template <typename T>
class BatchNormKernel : public CheckedKernel<T, ChannelNormShape, check_batch_norm_io> {
  using C = compute_t<T>;

 public:
  Status prepare_params(const KernelConfig& cfg) override {
    bool all_constant = true;
    for (size_t i = 1; i <= 4; ++i)
      all_constant = all_constant && cfg.inputs[i].constant_data != nullptr;
    if (all_constant) {
      folded_.resize(static_cast<size_t>(2 * this->shape_.channels));
      const void* p[4] = {cfg.inputs[1].constant_data, cfg.inputs[2].constant_data,
                          cfg.inputs[3].constant_data, cfg.inputs[4].constant_data};
      fold(p, folded_.data());
    }
    return Status::ok();
  }

  size_t workspace_bytes() const override {
    return folded_.empty() ? static_cast<size_t>(2 * this->shape_.channels) * sizeof(C) : 0;
  }

  Status run(const KernelArgs& a) const override {
    const C* ab = folded_.data();
    if (folded_.empty()) {
      C* ws = static_cast<C*>(a.workspace);
      const void* p[4] = {a.inputs[1], a.inputs[2], a.inputs[3], a.inputs[4]};
      fold(p, ws);
      ab = ws;
    }
    const T* x = a.input<T>(0);
    T* y = a.output<T>(0);
    const int64_t s = this->shape_.spatial, ch = this->shape_.channels;
    parallel_for(
        this->shape_.planes, a.num_threads,
        [&](int64_t begin, int64_t end) {
          for (int64_t p = begin; p < end; ++p) {
            const int64_t c = p % ch;
            const C scale = ab[c], shift = ab[ch + c];
            const T* xp = x + p * s;
            T* yp = y + p * s;
            for (int64_t i = 0; i < s; ++i)
              yp[i] = from_compute<T>(batchnorm_value(to_compute(xp[i]), scale, shift));
          }
        },
        grain_for(s));
    return Status::ok();
  }

 private:
  // p = {scale, B, mean, var}; out = [a[0..C), b[0..C)]. The fold is computed in the
  // compute type from the parameters' own dtypes.
  void fold(const void* const* p, C* out) const {
    for (int64_t c = 0; c < this->shape_.channels; ++c) {
      const C scale = static_cast<C>(load_as_double(p[0], this->shape_.param_dtype[0], c));
      const C bias = static_cast<C>(load_as_double(p[1], this->shape_.param_dtype[1], c));
      const C mean = static_cast<C>(load_as_double(p[2], this->shape_.param_dtype[2], c));
      const C var = static_cast<C>(load_as_double(p[3], this->shape_.param_dtype[3], c));
      const C a = batchnorm_scale(scale, var, static_cast<C>(this->shape_.epsilon));
      out[c] = a;
      out[this->shape_.channels + c] = batchnorm_shift(bias, mean, a);
    }
  }

  std::vector<C> folded_;  // [a, b] when the parameters are constant
};

}  // namespace

void register_batch_norm_kernels(KernelRegistry& r) {
  add_typed_kernels<BatchNormKernel>(r, graph::OpType::kBatchNormalization, Backend::kCpu,
                                     reduction::FloatTypes{}, /*in_place_input=*/0);
}

}  // namespace amp::kernels::cpu
