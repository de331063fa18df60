// CUDA Transpose(perm) and DepthToSpace(blocksize, mode): one strided copy each
// (movement_copy.cu) over the permuted view shape inference recorded (graph/ops/op_attrs.h,
// PermuteAttrs; DepthToSpace is ONNX's 6-D transpose of the reshaped input), as in
// kernels/cpu/movement_transpose.cc. Axes contiguous in the input merge, so e.g. NCHW ->
// NHWC becomes a 3-D copy; when the innermost output axis stays contiguous the copy moves
// up to 16 bytes per thread.
#include "kernels/common/movement_io.h"
#include "kernels/cuda/movement_cuda.h"

namespace amp::kernels::cuda_mv {
namespace {

class PermuteKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_ASSIGN_OR_RETURN(const PermutedCopy p, check_permute_io(cfg));
    if (p.rank() > kMaxRank)
      return unsupported(op_label(cfg) + ": rank " + std::to_string(p.rank()) + " exceeds " +
                         std::to_string(kMaxRank));
    plan_ = make_copy_plan(p.rank(), p.dims.data(), p.strides.data(), 0);
    elem_ = dtype_size(cfg.inputs[0].dtype);
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

}  // namespace

void register_transpose_kernels(KernelRegistry& r) {
  for (graph::OpType op : {graph::OpType::kTranspose, graph::OpType::kDepthToSpace})
    r.add_all(op, Backend::kCuda, all_dtypes(), [] { return std::make_unique<PermuteKernel>(); });
}

}  // namespace amp::kernels::cuda_mv
