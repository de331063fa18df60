// Host helpers of the CUDA movement family: copy plans and rank checks.
#include <cstring>

#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/movement_cuda.h"

namespace amp::kernels::cuda {

CopyPlan make_copy_plan(int rank, const int64_t* dims, const int64_t* src_strides, int64_t src_base,
                        const int64_t* dst_strides, int64_t dst_base) {
  CopyPlan p;
  p.src_base = src_base;
  p.dst_base = dst_base;
  p.numel = 1;
  for (int a = 0; a < rank; ++a) p.numel *= dims[a];
  int64_t dense[kMaxRank];
  if (dst_strides == nullptr) {
    contiguous_strides(rank, dims, dense);
    dst_strides = dense;
  }
  auto& c = p.calc;
  c.rank = 0;
  if (p.numel > 1) {
    for (int a = 0; a < rank; ++a) {
      if (dims[a] == 1) continue;
      // Merge with the previous kept axis when both sides walk the pair as one run.
      if (c.rank > 0 && c.strides[0][c.rank - 1] == src_strides[a] * dims[a] &&
          c.strides[1][c.rank - 1] == dst_strides[a] * dims[a]) {
        c.dims[c.rank - 1] *= dims[a];
        c.strides[0][c.rank - 1] = src_strides[a];
        c.strides[1][c.rank - 1] = dst_strides[a];
        continue;
      }
      c.dims[c.rank] = dims[a];
      c.strides[0][c.rank] = src_strides[a];
      c.strides[1][c.rank] = dst_strides[a];
      ++c.rank;
    }
  }
  if (c.rank == 0) {  // empty or a single element: one axis, strides 0
    c.rank = 1;
    c.dims[0] = p.numel;
    c.strides[0][0] = 0;
    c.strides[1][0] = 0;
  }
  return p;
}

Status check_max_rank(const TensorDesc& t, const char* what) {
  if (t.rank() > static_cast<size_t>(kMaxRank))
    return unsupported(std::string(what) + " has rank " + std::to_string(t.rank()) +
                       "; the CUDA movement kernels support up to " + std::to_string(kMaxRank));
  return Status::ok();
}

}  // namespace amp::kernels::cuda
