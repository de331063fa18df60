// Transpose(perm): output axis i is input axis perm[i]; perm defaults to reversing the axes.
// A strided gather whose innermost run is as long as the perm allows (contiguous axes
// merge in make_strided_view).
#include "kernels/cpu/movement_common.h"

namespace amp::kernels::cpu {
namespace {

class TransposeKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    const TensorDesc& in = cfg.inputs[0];
    const TensorDesc& out = cfg.outputs[0];
    AMP_RETURN_IF_ERROR(check_max_rank(in, "Transpose input"));
    const int r = static_cast<int>(in.rank());
    std::vector<int64_t> perm;
    if (cfg.node->attrs.has("perm")) {
      AMP_ASSIGN_OR_RETURN(perm, cfg.node->attrs.get_ints("perm"));
    } else {
      for (int i = r - 1; i >= 0; --i) perm.push_back(i);
    }
    if (static_cast<int>(perm.size()) != r)
      return invalid_model("Transpose: perm " + dims_to_string(perm) + " has " +
                           std::to_string(perm.size()) + " entries for rank " + std::to_string(r));
    std::vector<char> seen(static_cast<size_t>(r), 0);
    int64_t in_strides[kMaxRank];
    contiguous_strides(r, in.dims.data(), in_strides);
    int64_t dims[kMaxRank], strides[kMaxRank];
    for (int i = 0; i < r; ++i) {
      const int64_t p = perm[static_cast<size_t>(i)];
      if (p < 0 || p >= r || seen[static_cast<size_t>(p)])
        return invalid_model("Transpose: perm " + dims_to_string(perm) +
                             " is not a permutation of 0.." + std::to_string(r - 1));
      seen[static_cast<size_t>(p)] = 1;
      dims[i] = in.dims[static_cast<size_t>(p)];
      strides[i] = in_strides[p];
    }
    if (out.dims != std::vector<int64_t>(dims, dims + r))
      return invalid_model("Transpose: output shape " + dims_to_string(out.dims) + ", expected " +
                           dims_to_string(r, dims));
    view_ = make_strided_view(r, dims, strides, 0);
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

void register_movement_transpose_kernels(KernelRegistry& r) {
  r.add_all(graph::OpType::kTranspose, Backend::kCpu, all_dtypes(),
            [] { return std::make_unique<TransposeKernel>(); });
}

}  // namespace amp::kernels::cpu
