// Trilu on the CPU: the upper (j - i >= k) or lower (j - i <= k) triangle of each matrix in the
// last two dims, the rest zeroed. It moves elements, so one loop per element size serves every
// dtype (a float's bits, NaN payloads included, are copied unchanged). k is a constant read in
// prepare() or an i64 scalar read here at run.
#include <algorithm>
#include <cstring>
#include <string>

#include "kernels/common/checked_kernel.h"
#include "kernels/common/dtype_dispatch.h"
#include "kernels/common/movement_io.h"
#include "kernels/cpu/cpu_common.h"

namespace amp::kernels::cpu {
namespace {

template <typename E>
void trilu(const E* x, E* y, const TriluShape& s, int64_t k, int threads) {
  const int64_t cols = s.cols;
  parallel_for(
      s.batch * s.rows, threads,
      [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const int64_t i = r % s.rows;
          const E* xr = x + r * cols;
          E* yr = y + r * cols;
          for (int64_t j = 0; j < cols; ++j) yr[j] = trilu_keeps(i, j, k, s.upper) ? xr[j] : E(0);
        }
      },
      /*grain=*/std::max<int64_t>(1, 32768 / std::max<int64_t>(cols, 1)));
}

class TriluKernel : public SetupKernel<TriluShape, check_trilu_io> {
 public:
  Status run(const KernelArgs& a) const override {
    const int64_t k = setup_.k_runtime ? *a.input<int64_t>(1) : setup_.k;
    return visit_element_size(setup_.elem_size, [&](auto e) -> Status {
      using E = decltype(e);
      trilu(a.input<E>(0), a.output<E>(0), setup_, k, a.num_threads);
      return Status::ok();
    });
  }
};

}  // namespace

void register_trilu_kernels(KernelRegistry& r) {
  r.add_all(graph::OpType::kTrilu, Backend::kCpu, all_dtypes(), make_factory<TriluKernel>(), 0);
}

}  // namespace amp::kernels::cpu
