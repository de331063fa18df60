// CUDA Expand(data, shape) and Tile(data, repeats), mirroring
// kernels/cpu/movement_expand_tile.cc. Neither needs its second input's values: the static
// output shape already says how far to broadcast or repeat.
//   Expand: a strided copy with stride 0 on broadcast axes (numpy rules, right-aligned).
//   Tile:   output element (o_a) reads input element (o_a mod d_a) (launch_tile).
#include <algorithm>

#include "kernels/common/movement_io.h"
#include "kernels/cuda/movement_cuda.h"

namespace amp::kernels::cuda_mv {
namespace {

class ExpandKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_RETURN_IF_ERROR(check_data_io(cfg));
    const TensorDesc& in = cfg.inputs[0];
    const TensorDesc& out = cfg.outputs[0];
    AMP_RETURN_IF_ERROR(check_max_rank(out, "Expand output"));
    const int r = static_cast<int>(out.rank());
    int64_t strides[kMaxRank];
    AMP_RETURN_IF_ERROR(expand_source_strides(in, out, strides));
    plan_ = make_copy_plan(r, out.dims.data(), strides, 0);
    elem_ = dtype_size(in.dtype);
    return Status::ok();
  }

  Status run(const KernelArgs& a) const override {
    return launch_copy_plan(plan_, a.inputs[0], a.outputs[0], elem_,
                            static_cast<cudaStream_t>(a.stream));
  }

 private:
  CopyPlan plan_;
  size_t elem_ = 0;
};

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

void register_expand_tile_kernels(KernelRegistry& r) {
  r.add_all(graph::OpType::kExpand, Backend::kCuda, all_dtypes(),
            [] { return std::make_unique<ExpandKernel>(); });
  r.add_all(graph::OpType::kTile, Backend::kCuda, all_dtypes(),
            [] { return std::make_unique<TileKernel>(); });
}

}  // namespace amp::kernels::cuda_mv
