// InstanceNormalization: X [N, C, D1..Dk], scale [C], B [C], epsilon (default 1e-5).
// Each (n, c) plane (contiguous) is normalized with its own two-pass mean and variance in
// fp32 (f64 for f64), then y = (x - mean) * inv_std * scale[c] + B[c].
#include "kernels/common/checked_kernel.h"
#include "kernels/common/norm_io.h"
#include "kernels/common/reduction_family.h"
#include "kernels/common/reduction_functors.h"
#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/reduce_util.h"

namespace amp::kernels::cpu {
namespace {

template <typename T>
class InstanceNormKernel : public CheckedKernel<T, ChannelNormShape, check_instance_norm_io> {
  using C = compute_t<T>;

 public:
  Status run(const KernelArgs& a) const override {
    const T* x = a.input<T>(0);
    T* y = a.output<T>(0);
    const void* scale = a.inputs[1];
    const void* bias = a.inputs[2];
    const int64_t s = this->shape_.spatial;
    const C eps = static_cast<C>(this->shape_.epsilon);
    auto add = [](C u, C v) { return reduce_sum_step(u, v); };
    parallel_for(
        this->shape_.planes, a.num_threads,
        [&](int64_t begin, int64_t end) {
          for (int64_t p = begin; p < end; ++p) {
            const int64_t c = p % this->shape_.channels;
            const T* xp = x + p * s;
            T* yp = y + p * s;
            const C mean =
                tree_reduce<C>(0, s, C(0), add, [xp](int64_t i) { return to_compute(xp[i]); }) /
                static_cast<C>(s);
            const C var = tree_reduce<C>(0, s, C(0), add,
                                         [xp, mean](int64_t i) {
                                           return squared_deviation(to_compute(xp[i]), mean);
                                         }) /
                          static_cast<C>(s);
            const C inv = inv_std_dev(var, eps);
            const C sc = static_cast<C>(load_as_double(scale, this->shape_.param_dtype[0], c));
            const C b = static_cast<C>(load_as_double(bias, this->shape_.param_dtype[1], c));
            for (int64_t i = 0; i < s; ++i)
              yp[i] = from_compute<T>(normalize_value(to_compute(xp[i]), mean, inv, sc, b));
          }
        },
        grain_for(3 * s));
    return Status::ok();
  }
};

}  // namespace

void register_instance_norm_kernels(KernelRegistry& r) {
  add_typed_kernels<InstanceNormKernel>(r, graph::OpType::kInstanceNormalization, Backend::kCpu,
                                        reduction::FloatTypes{}, /*in_place_input=*/0);
}

}  // namespace amp::kernels::cpu
