// CUDA Tile(data, repeats), as kernels/cpu/movement_tile.cc: the static output shape says
// how far to repeat (Expand is a strided copy, movement_copy_ops.cc).
//   Tile:   output element (o_a) reads input element (o_a mod d_a) (launch_tile).
#include <algorithm>

#include "kernels/common/movement_io.h"
#include "kernels/cuda/movement_cuda.h"

namespace amp::kernels::cuda_mv {
namespace {

class TileKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_ASSIGN_OR_RETURN(const TileShape t, check_tile_io(cfg));
    AMP_RETURN_IF_ERROR(check_max_rank(cfg.inputs[0], "Tile input"));
    rank_ = t.rank();
    std::copy(t.in_dims.begin(), t.in_dims.end(), in_dims_);
    std::copy(t.out_dims.begin(), t.out_dims.end(), out_dims_);
    elem_ = dtype_size(cfg.inputs[0].dtype);
    return Status::ok();
  }

  Status run(const KernelArgs& a) const override {
    return launch_tile(a.inputs[0], a.outputs[0], rank_, in_dims_, out_dims_, elem_,
                       static_cast<cudaStream_t>(a.stream));
  }

 private:
  int rank_ = 0;
  int64_t in_dims_[kMaxRank] = {};
  int64_t out_dims_[kMaxRank] = {};
  size_t elem_ = 0;
};

}  // namespace

void register_tile_kernels(KernelRegistry& r) {
  r.add_all(graph::OpType::kTile, Backend::kCuda, all_dtypes(),
            [] { return std::make_unique<TileKernel>(); });
}

}  // namespace amp::kernels::cuda_mv
