// RotaryEmbedding (opset 23) on the CPU: one head row at a time, the rule of
// kernels/common/rotary_plan.h. A position outside the caches is an invalid_input error.
#include "kernels/common/checked_kernel.h"
#include "kernels/common/reduction_family.h"
#include "kernels/common/rotary_plan.h"
#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/reduce_util.h"

namespace amp::kernels::cpu {
namespace {

template <typename T>
class RotaryEmbeddingKernel : public SetupKernel<RotaryPlan, check_rotary_io> {
  using C = compute_t<T>;

 public:
  Status run(const KernelArgs& a) const override {
    const RotaryPlan& p = setup_;
    const T* x = a.input<T>(0);
    const T* cos = a.input<T>(1);
    const T* sin = a.input<T>(2);
    const int64_t* positions = p.has_positions ? a.input<int64_t>(3) : nullptr;
    T* y = a.output<T>(0);
    const int64_t half = p.rotary_dim / 2;
    for (int64_t b = 0; b < p.batch; ++b)
      for (int64_t s = 0; s < p.seq; ++s)
        if (rotary_cache_row(p, positions, b, s) < 0)
          return invalid_input("RotaryEmbedding: position_ids[" + std::to_string(b) + ", " +
                               std::to_string(s) + "] is outside the caches' " +
                               std::to_string(p.cache_rows) + " rows");
    parallel_for(
        p.batch * p.seq * p.heads, a.num_threads,
        [&](int64_t begin, int64_t end) {
          for (int64_t r = begin; r < end; ++r) {
            const int64_t h = r % p.heads, s = (r / p.heads) % p.seq, b = r / (p.heads * p.seq);
            const int64_t row = rotary_cache_row(p, positions, b, s) * half;
            const T* xr = x + p.x.at(b, h, s);
            T* yr = y + p.x.at(b, h, s);
            for (int64_t d = 0; d < p.head_size; ++d) {
              if (d >= p.rotary_dim) {
                yr[d] = xr[d];
                continue;
              }
              int64_t i1, i2, k;
              const bool first = rotary_pair(p, d, &i1, &i2, &k);
              const C c = to_compute(cos[row + k]), sn = to_compute(sin[row + k]);
              const C x1 = to_compute(xr[i1]), x2 = to_compute(xr[i2]);
              yr[d] = from_compute<T>(first ? c * x1 - sn * x2 : sn * x1 + c * x2);
            }
          }
        },
        /*grain=*/std::max<int64_t>(1, 32768 / std::max<int64_t>(p.head_size, 1)));
    return Status::ok();
  }
};

}  // namespace

void register_rotary_embedding_kernels(KernelRegistry& r) {
  add_typed_kernels<RotaryEmbeddingKernel>(r, graph::OpType::kRotaryEmbedding, Backend::kCpu,
                                           reduction::FloatTypes{});
}

}  // namespace amp::kernels::cpu
