// Trilu on the GPU, as kernels/cpu/movement_trilu.cc: one thread per element keeps it where
// trilu_keeps(i, j, k) holds, else writes zero; one kernel per element size serves every
// dtype. A run-time k is read on the device (a pointer to the i64 scalar).
#include "kernels/common/checked_kernel.h"
#include "kernels/common/dtype_dispatch.h"
#include "kernels/common/movement_io.h"
#include "kernels/cuda/movement_cuda.h"

namespace amp::kernels::cuda {
namespace {

template <typename E>
__global__ void trilu_kernel(const E* __restrict__ x, E* __restrict__ y, int64_t n, int64_t rows,
                             int64_t cols, int64_t k, const int64_t* __restrict__ k_ptr,
                             bool upper) {
  const int64_t kk = k_ptr != nullptr ? *k_ptr : k;
  for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < n;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t j = t % cols, i = (t / cols) % rows;
    y[t] = trilu_keeps(i, j, kk, upper) ? x[t] : E(0);
  }
}

class TriluKernel : public SetupKernel<TriluShape, check_trilu_io> {
 public:
  Status run(const KernelArgs& a) const override {
    const int64_t n = setup_.batch * setup_.rows * setup_.cols;
    if (n == 0) return Status::ok();
    const int64_t* k_ptr = setup_.k_runtime ? a.input<int64_t>(1) : nullptr;
    return visit_element_size(setup_.elem_size,
                              [&](auto e) -> Status { return launch<decltype(e)>(a, n, k_ptr); });
  }

 private:
  template <typename E>
  Status launch(const KernelArgs& a, int64_t n, const int64_t* k_ptr) const {
    trilu_kernel<E><<<grid_for(n), kThreads, 0, static_cast<cudaStream_t>(a.stream)>>>(
        a.input<E>(0), a.output<E>(0), n, setup_.rows, setup_.cols, setup_.k, k_ptr, setup_.upper);
    return launch_status("trilu_kernel");
  }
};

}  // namespace

void register_trilu_kernels(KernelRegistry& r) {
  r.add_all(graph::OpType::kTrilu, Backend::kCuda, all_dtypes(), make_factory<TriluKernel>(), 0);
}

}  // namespace amp::kernels::cuda
