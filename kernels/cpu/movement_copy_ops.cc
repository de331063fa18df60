// The copy ops (views, Transpose, DepthToSpace, Expand, Tile, Shape, Size, Constant,
// ConstantOfShape) on the CPU: kernels/common/copy_kernels.h over the CPU's strided view
// (contiguous axes merge in make_strided_view, rows run in parallel), parallel memcpy and
// the Tile loop (movement_tile.cc).
#include <cstring>

#include "kernels/common/copy_kernels.h"
#include "kernels/cpu/movement_common.h"

namespace amp::kernels::cpu {
namespace {

struct CpuCopy {
  static constexpr int kMaxRank = cpu::kMaxRank;
  using Plan = StridedView;
  static Plan make_plan(int rank, const int64_t* dims, const int64_t* src_strides) {
    return make_strided_view(rank, dims, src_strides, 0);
  }
  static Status copy(const Plan& plan, const KernelArgs& a, size_t elem_size) {
    strided_copy(plan, a.inputs[0], a.outputs[0], elem_size, a.num_threads);
    return Status::ok();
  }
  static Status copy_bytes(void* dst, const void* src, size_t bytes, const KernelArgs& a) {
    parallel_copy(dst, src, bytes, a.num_threads);  // a no-op when aliased
    return Status::ok();
  }
  static Status tile(const KernelArgs& a, int rank, const int64_t* in_dims, const int64_t* out_dims,
                     size_t elem_size) {
    tile_copy(a.inputs[0], a.outputs[0], rank, in_dims, out_dims, elem_size, a.num_threads);
    return Status::ok();
  }
  static Status write_bytes(void* dst, const std::vector<uint8_t>& host, const KernelArgs&) {
    if (!host.empty()) std::memcpy(dst, host.data(), host.size());
    return Status::ok();
  }
  static Status fill(void* dst, uint64_t bits, int64_t count, size_t elem_size, const KernelArgs&) {
    fill_elements(dst, &bits, count, elem_size);
    return Status::ok();
  }
};

}  // namespace

void register_copy_kernels(KernelRegistry& r) {
  add_copy_kernels<CpuCopy>(r, Backend::kCpu);
}

}  // namespace amp::kernels::cpu
