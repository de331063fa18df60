// LpPool on the CPU: one loop over the output positions, each window walked by
// pool_window_lp (kernels/common/pool_geometry.h), the walk the CUDA kernel uses too. oneDNN
// has no Lp pooling.
#include <algorithm>

#include "kernels/common/checked_kernel.h"
#include "kernels/common/dtype_dispatch.h"
#include "kernels/common/kernel_families.h"
#include "kernels/common/window_op_io.h"
#include "kernels/cpu/cpu_common.h"

namespace amp::kernels::cpu {
namespace {

class LpPoolKernel : public SetupKernel<PoolSetup, check_pool_io> {
 public:
  Status run(const KernelArgs& a) const override {
    return visit_dtype(setup_.dtype, [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, Half> ||
                    std::is_same_v<T, BFloat16>) {
        const PoolGeometry& g = setup_.geom;
        const int64_t p = setup_.attrs.lp;
        const T* x = a.input<T>(0);
        T* y = a.output<T>(0);
        const int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
        const int64_t out_plane = g.out[0] * g.out[1] * g.out[2];
        parallel_for(
            g.planes, a.num_threads,
            [&](int64_t begin, int64_t end) {
              for (int64_t pl = begin; pl < end; ++pl) {
                const T* xp = x + pl * in_plane;
                int64_t o = pl * out_plane;
                for (int64_t oz = 0; oz < g.out[0]; ++oz)
                  for (int64_t oy = 0; oy < g.out[1]; ++oy)
                    for (int64_t ox = 0; ox < g.out[2]; ++ox, ++o)
                      y[o] = T(pool_window_lp(
                          g, p, oz, oy, ox, [&](int64_t i) { return static_cast<float>(xp[i]); }));
              }
            },
            std::max<int64_t>(1, 8192 / std::max<int64_t>(out_plane, 1)));
        return Status::ok();
      } else {
        return unexpected_dtype(setup_.dtype);
      }
    });
  }
};

}  // namespace

void register_lp_pool_kernels(KernelRegistry& r) {
  r.add_all(graph::OpType::kLpPool, Backend::kCpu, library_float_dtypes(),
            make_factory<LpPoolKernel>());
}

}  // namespace amp::kernels::cpu
