// DepthToSpace(blocksize, mode DCR | CRD) on [N, C, H, W] -> [N, C/b^2, H*b, W*b].
// Both modes are one 6-D transpose of a reshaped input (ONNX's definition):
//   DCR: [N, b, b, C', H, W] -> perm (0, 3, 4, 1, 5, 2) -> [N, C', H, b, W, b]
//   CRD: [N, C', b, b, H, W] -> perm (0, 1, 4, 2, 5, 3) -> [N, C', H, b, W, b]
#include "kernels/cpu/movement_common.h"

namespace amp::kernels::cpu {
namespace {

class DepthToSpaceKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    const TensorDesc& in = cfg.inputs[0];
    const TensorDesc& out = cfg.outputs[0];
    if (in.rank() != 4)
      return invalid_model("DepthToSpace: input must be 4-D, it is " + dims_to_string(in.dims));
    AMP_ASSIGN_OR_RETURN(int64_t b, cfg.node->attrs.get_int("blocksize", 0));
    AMP_ASSIGN_OR_RETURN(std::string mode, cfg.node->attrs.get_string("mode", "DCR"));
    if (mode != "DCR" && mode != "CRD")
      return invalid_model("DepthToSpace: mode '" + mode + "', expected DCR or CRD");
    const int64_t n = in.dims[0], c = in.dims[1], h = in.dims[2], w = in.dims[3];
    if (b <= 0 || c % (b * b) != 0)
      return invalid_model("DepthToSpace: blocksize " + std::to_string(b) +
                           " does not divide the " + std::to_string(c) + " channels in blocks");
    const int64_t cc = c / (b * b);
    const std::vector<int64_t> expect = {n, cc, h * b, w * b};
    if (out.dims != expect || out.dtype != in.dtype)
      return invalid_model("DepthToSpace: output " + dims_to_string(out.dims) + ", expected " +
                           dims_to_string(expect));
    // Reshaped input dims and the perm for the mode.
    const bool dcr = mode == "DCR";
    int64_t rdims[6] = {n, b, b, cc, h, w};  // DCR
    if (!dcr) {
      rdims[1] = cc;
      rdims[3] = b;
    }
    const int perm_dcr[6] = {0, 3, 4, 1, 5, 2};
    const int perm_crd[6] = {0, 1, 4, 2, 5, 3};
    const int* perm = dcr ? perm_dcr : perm_crd;
    int64_t rstrides[6], dims[6], strides[6];
    contiguous_strides(6, rdims, rstrides);
    for (int i = 0; i < 6; ++i) {
      dims[i] = rdims[perm[i]];
      strides[i] = rstrides[perm[i]];
    }
    view_ = make_strided_view(6, dims, strides, 0);
    elem_ = dtype_size(in.dtype);
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

void register_movement_depth_to_space_kernels(KernelRegistry& r) {
  r.add_all(graph::OpType::kDepthToSpace, Backend::kCpu, all_dtypes(),
            [] { return std::make_unique<DepthToSpaceKernel>(); });
}

}  // namespace amp::kernels::cpu
