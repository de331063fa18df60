// Transpose(perm) and DepthToSpace(blocksize, mode): one strided gather each, over the
// permuted view shape inference recorded (graph/ops/op_attrs.h, PermuteAttrs; DepthToSpace
// is ONNX's 6-D transpose of the reshaped input). The innermost run is as long as the perm
// allows (contiguous axes merge in make_strided_view).
#include "kernels/common/movement_io.h"
#include "kernels/cpu/movement_common.h"

namespace amp::kernels::cpu {
namespace {

class PermuteKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_ASSIGN_OR_RETURN(const PermutedCopy p, check_permute_io(cfg));
    if (p.rank() > kMaxRank)
      return unsupported(op_label(cfg) + ": rank " + std::to_string(p.rank()) + " exceeds " +
                         std::to_string(kMaxRank));
    view_ = make_strided_view(p.rank(), p.dims.data(), p.strides.data(), 0);
    elem_ = dtype_size(cfg.inputs[0].dtype);
    return Status::ok();
  }

  Status run(const KernelArgs& a) const override {
    strided_copy(view_, a.inputs[0], a.outputs[0], elem_, a.num_threads);
    return Status::ok();
  }

 private:
  StridedView view_;
  size_t elem_ = 0;
};

}  // namespace

void register_movement_transpose_kernels(KernelRegistry& r) {
  for (graph::OpType op : {graph::OpType::kTranspose, graph::OpType::kDepthToSpace})
    r.add_all(op, Backend::kCpu, all_dtypes(), [] { return std::make_unique<PermuteKernel>(); });
}

}  // namespace amp::kernels::cpu
