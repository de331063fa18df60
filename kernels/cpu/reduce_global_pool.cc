// GlobalAveragePool: [N, C, D1..Dk] -> [N, C, 1..1], the mean over the spatial dims, which
// are contiguous per (n, c). Pairwise fp32 summation (f64 for f64).
#include "kernels/common/reduction_functors.h"
#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/reduce_util.h"

namespace amp::kernels::cpu {
namespace {

template <typename T>
class GlobalAveragePoolKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_RETURN_IF_ERROR(check_io(cfg, dtype_of<T>()));
    const std::vector<int64_t>& dims = cfg.inputs[0].dims;
    if (dims.size() < 2) return invalid_model("GlobalAveragePool needs an input [N, C, ...]");
    planes_ = dims[0] * dims[1];
    spatial_ = dims_product(dims, 2, dims.size());
    if (cfg.outputs[0].numel() != planes_)
      return invalid_model("output has " + std::to_string(cfg.outputs[0].numel()) +
                           " elements, expected N*C = " + std::to_string(planes_));
    return Status::ok();
  }

  Status run(const KernelArgs& a) const override {
    using C = compute_t<T>;
    const T* x = a.input<T>(0);
    T* y = a.output<T>(0);
    const int64_t s = spatial_;
    auto add = [](C u, C v) { return reduce_sum_step(u, v); };
    parallel_for(
        planes_, a.num_threads,
        [&](int64_t begin, int64_t end) {
          for (int64_t p = begin; p < end; ++p) {
            const T* plane = x + p * s;
            const C sum = tree_reduce<C>(0, s, C(0), add,
                                         [plane](int64_t i) { return to_compute(plane[i]); });
            y[p] = from_compute<T>(reduce_mean_finish(sum, s));
          }
        },
        grain_for(s));
    return Status::ok();
  }

 private:
  int64_t planes_ = 0, spatial_ = 1;
};

}  // namespace

void register_global_pool_kernels(KernelRegistry& r) {
  add_typed<GlobalAveragePoolKernel, float, Half, BFloat16, double>(
      r, graph::OpType::kGlobalAveragePool);
}

}  // namespace amp::kernels::cpu
