// CUDA Transpose(perm) and DepthToSpace(blocksize, mode): both are one strided copy
// (movement_copy.cu), mirroring kernels/cpu/movement_transpose.cc and
// movement_depth_to_space.cc.
//   Transpose: output axis i is input axis perm[i]; perm defaults to reversing the axes.
//   DepthToSpace on [N, C, H, W] -> [N, C/b^2, H*b, W*b], one 6-D transpose of the
//   reshaped input (ONNX's definition):
//     DCR: [N, b, b, C', H, W] -> perm (0, 3, 4, 1, 5, 2) -> [N, C', H, b, W, b]
//     CRD: [N, C', b, b, H, W] -> perm (0, 1, 4, 2, 5, 3) -> [N, C', H, b, W, b]
// Axes contiguous in the input merge, so e.g. NCHW -> NHWC becomes a 3-D copy; when the
// innermost output axis stays contiguous the copy moves up to 16 bytes per thread.
#include "kernels/cuda/movement_cuda.h"

namespace amp::kernels::cuda_mv {
namespace {

class TransposeKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_RETURN_IF_ERROR(check_data_io(cfg));
    const TensorDesc& in = cfg.inputs[0];
    const TensorDesc& out = cfg.outputs[0];
    AMP_RETURN_IF_ERROR(check_max_rank(in, "Transpose input"));
    const int r = static_cast<int>(in.rank());
    std::vector<int64_t> perm;
    if (node_attrs(cfg).has("perm")) {
      AMP_ASSIGN_OR_RETURN(perm, node_attrs(cfg).get_ints("perm"));
    } else {
      for (int i = r - 1; i >= 0; --i) perm.push_back(i);
    }
    if (static_cast<int>(perm.size()) != r)
      return invalid_model("Transpose: perm " + dims_to_string(perm) + " has " +
                           std::to_string(perm.size()) + " entries for rank " + std::to_string(r));
    std::vector<char> seen(static_cast<size_t>(r), 0);
    int64_t in_strides[kMaxRank], dims[kMaxRank], strides[kMaxRank];
    contiguous_strides(r, in.dims.data(), in_strides);
    for (int i = 0; i < r; ++i) {
      const int64_t p = perm[static_cast<size_t>(i)];
      if (p < 0 || p >= r || seen[static_cast<size_t>(p)])
        return invalid_model("Transpose: perm " + dims_to_string(perm) +
                             " is not a permutation of 0.." + std::to_string(r - 1));
      seen[static_cast<size_t>(p)] = 1;
      dims[i] = in.dims[static_cast<size_t>(p)];
      strides[i] = in_strides[p];
    }
    if (out.dims != std::vector<int64_t>(dims, dims + r) || out.dtype != in.dtype)
      return invalid_model("Transpose: output shape " + dims_to_string(out.dims) + ", expected " +
                           dims_to_string(r, dims));
    plan_ = make_copy_plan(r, dims, strides, 0);
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

class DepthToSpaceKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_RETURN_IF_ERROR(check_data_io(cfg));
    const TensorDesc& in = cfg.inputs[0];
    const TensorDesc& out = cfg.outputs[0];
    if (in.rank() != 4)
      return invalid_model("DepthToSpace: input must be 4-D, it is " + dims_to_string(in.dims));
    AMP_ASSIGN_OR_RETURN(int64_t b, node_attrs(cfg).get_int("blocksize", 0));
    AMP_ASSIGN_OR_RETURN(std::string mode, node_attrs(cfg).get_string("mode", "DCR"));
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
    plan_ = make_copy_plan(6, dims, strides, 0);
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

}  // namespace

void register_transpose_kernels(KernelRegistry& r) {
  r.add_all(graph::OpType::kTranspose, Backend::kCuda, all_dtypes(),
            [] { return std::make_unique<TransposeKernel>(); });
  r.add_all(graph::OpType::kDepthToSpace, Backend::kCuda, all_dtypes(),
            [] { return std::make_unique<DepthToSpaceKernel>(); });
}

}  // namespace amp::kernels::cuda_mv
