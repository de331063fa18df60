// CUDA Gather(data, indices; axis), mirroring kernels/cpu/movement_slice_gather.cc: one
// inner block per (outer, index), the indices (i32 or i64) read on the device. Negative
// indices count from the end. The CPU rejects an index outside [-dim, dim) with
// invalid_input; a kernel cannot return a Status without synchronizing, so here such an
// index yields zeros in its output block (see launch_gather).
#include "kernels/cuda/movement_cuda.h"

namespace amp::kernels::cuda {
namespace {

class GatherKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    if (cfg.inputs.size() < 2 || !cfg.inputs[0].present || !cfg.inputs[1].present ||
        cfg.outputs.empty() || !cfg.outputs[0].present)
      return invalid_model("Gather: needs data, indices and an output");
    const TensorDesc& data = cfg.inputs[0];
    const TensorDesc& ind = cfg.inputs[1];
    const TensorDesc& out = cfg.outputs[0];
    if (ind.dtype != DType::kI64 && ind.dtype != DType::kI32)
      return invalid_model("Gather: indices must be i32 or i64, not " +
                           std::string(dtype_name(ind.dtype)));
    AMP_ASSIGN_OR_RETURN(int64_t axis, node_attrs(cfg).get_int("axis", 0));
    const int64_t r = static_cast<int64_t>(data.rank());
    const int64_t a = normalize_axis(axis, r);
    if (a < 0)
      return invalid_model("Gather: axis " + std::to_string(axis) + " is out of range for rank " +
                           std::to_string(r));
    std::vector<int64_t> expect(data.dims.begin(), data.dims.begin() + a);
    expect.insert(expect.end(), ind.dims.begin(), ind.dims.end());
    expect.insert(expect.end(), data.dims.begin() + a + 1, data.dims.end());
    if (out.dims != expect || out.dtype != data.dtype)
      return invalid_model("Gather: output " + dims_to_string(out.dims) + ", expected " +
                           dims_to_string(expect));
    outer_ = 1;
    inner_ = 1;
    for (int64_t i = 0; i < a; ++i) outer_ *= data.dims[static_cast<size_t>(i)];
    for (int64_t i = a + 1; i < r; ++i) inner_ *= data.dims[static_cast<size_t>(i)];
    dim_ = data.dims[static_cast<size_t>(a)];
    n_idx_ = ind.numel();
    elem_ = dtype_size(data.dtype);
    idx_dtype_ = ind.dtype;
    return Status::ok();
  }

  Status run(const KernelArgs& a) const override {
    return launch_gather(a.inputs[0], a.inputs[1], idx_dtype_, a.outputs[0], outer_, dim_, n_idx_,
                         inner_, elem_, static_cast<cudaStream_t>(a.stream));
  }

 private:
  int64_t outer_ = 1, inner_ = 1, dim_ = 0, n_idx_ = 0;
  size_t elem_ = 0;
  DType idx_dtype_ = DType::kI64;
};

}  // namespace

void register_gather_kernels(KernelRegistry& r) {
  r.add_all(graph::OpType::kGather, Backend::kCuda, all_dtypes(),
            [] { return std::make_unique<GatherKernel>(); });
}

}  // namespace amp::kernels::cuda
