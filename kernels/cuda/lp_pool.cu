// LpPool on the GPU: one thread per output element walking its window with pool_window_lp
// (kernels/common/pool_geometry.h), the CPU loop's walk (kernels/cpu/lp_pool.cc).
#include "kernels/common/checked_kernel.h"
#include "kernels/common/dtype_dispatch.h"
#include "kernels/common/kernel_families.h"
#include "kernels/common/window_op_io.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/reduce_util.h"

namespace amp::kernels::cuda {
namespace {

template <typename T>
__global__ void lp_pool_kernel(const T* __restrict__ x, T* __restrict__ y, PoolGeometry g,
                               int64_t p, int64_t total) {
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
  for (int64_t o = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; o < total;
       o += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t r = o;
    const int64_t ox = r % g.out[2];
    r /= g.out[2];
    const int64_t oy = r % g.out[1];
    r /= g.out[1];
    const int64_t oz = r % g.out[0];
    const int64_t plane = r / g.out[0];
    const T* xp = x + plane * in_plane;
    y[o] = from_compute<T>(
        pool_window_lp(g, p, oz, oy, ox, [&](int64_t i) { return to_compute(xp[i]); }));
  }
}

class LpPoolKernel : public SetupKernel<PoolSetup, check_pool_io> {
 public:
  Status run(const KernelArgs& a) const override {
    const PoolGeometry& g = setup_.geom;
    const int64_t total = g.planes * g.out[0] * g.out[1] * g.out[2];
    if (total == 0) return Status::ok();
    return visit_dtype(setup_.dtype, [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, Half> ||
                    std::is_same_v<T, BFloat16>) {
        lp_pool_kernel<T><<<grid_for(total), kThreads, 0, static_cast<cudaStream_t>(a.stream)>>>(
            a.input<T>(0), a.output<T>(0), g, setup_.attrs.lp, total);
        return launch_status("lp_pool_kernel");
      } else {
        return unexpected_dtype(setup_.dtype);
      }
    });
  }
};

}  // namespace

void register_lp_pool_kernels(KernelRegistry& r) {
  r.add_all(graph::OpType::kLpPool, Backend::kCuda, library_float_dtypes(),
            make_factory<LpPoolKernel>());
}

}  // namespace amp::kernels::cuda
