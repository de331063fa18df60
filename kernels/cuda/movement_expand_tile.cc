// CUDA Expand(data, shape) and Tile(data, repeats), mirroring
// kernels/cpu/movement_expand_tile.cc. Neither needs its second input's values: the static
// output shape already says how far to broadcast or repeat.
//   Expand: a strided copy with stride 0 on broadcast axes (numpy rules, right-aligned).
//   Tile:   output element (o_a) reads input element (o_a mod d_a) (launch_tile).
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
    AMP_RETURN_IF_ERROR(check_data_io(cfg));
    const TensorDesc& in = cfg.inputs[0];
    const TensorDesc& out = cfg.outputs[0];
    AMP_RETURN_IF_ERROR(check_max_rank(in, "Tile input"));
    if (in.rank() != out.rank() || in.dtype != out.dtype)
      return invalid_model("Tile: output " + dims_to_string(out.dims) +
                           " does not match the input's rank or dtype");
    rank_ = static_cast<int>(in.rank());
    for (int a = 0; a < rank_; ++a) {
      in_dims_[a] = in.dims[static_cast<size_t>(a)];
      out_dims_[a] = out.dims[static_cast<size_t>(a)];
      if (in_dims_[a] == 0 ? out_dims_[a] != 0 : out_dims_[a] % in_dims_[a] != 0)
        return invalid_model("Tile: output " + dims_to_string(out.dims) +
                             " is not a whole repeat of input " + dims_to_string(in.dims));
    }
    // Cross-check a constant repeats input.
    if (cfg.inputs.size() > 1 && cfg.inputs[1].present && cfg.inputs[1].constant_data &&
        cfg.inputs[1].numel() == rank_) {
      int64_t reps[kMaxRank];
      if (read_int_param(cfg.inputs[1].constant_data, cfg.inputs[1].dtype, rank_, reps)) {
        for (int a = 0; a < rank_; ++a)
          if (reps[a] < 0 || in_dims_[a] * reps[a] != out_dims_[a])
            return invalid_model("Tile: repeats " + dims_to_string(rank_, reps) + " on input " +
                                 dims_to_string(in.dims) + " do not give output " +
                                 dims_to_string(out.dims));
      }
    }
    elem_ = dtype_size(in.dtype);
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
