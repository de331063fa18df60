// CUDA view ops: Reshape, Flatten, Squeeze, Unsqueeze, Identity. The output holds the
// input's bytes unchanged under another shape, so the kernel is one device-to-device copy,
// and not even that when the memory planner aliased the output onto the input (the
// pointers are then equal). Mirrors kernels/cpu/movement_views.cc.
#include "kernels/cuda/movement_cuda.h"

namespace amp::kernels::cuda_mv {
namespace {

class ViewKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_RETURN_IF_ERROR(check_data_io(cfg));
    const TensorDesc& in = cfg.inputs[0];
    const TensorDesc& out = cfg.outputs[0];
    if (in.dtype != out.dtype)
      return invalid_model(op_label(cfg) + ": output dtype " + std::string(dtype_name(out.dtype)) +
                           " differs from input dtype " + std::string(dtype_name(in.dtype)));
    if (in.numel() != out.numel())
      return invalid_model(op_label(cfg) + ": output shape " + dims_to_string(out.dims) +
                           " does not hold the " + std::to_string(in.numel()) +
                           " elements of input shape " + dims_to_string(in.dims));
    bytes_ = in.bytes();
    return Status::ok();
  }

  Status run(const KernelArgs& a) const override {
    return copy_bytes(a.outputs[0], a.inputs[0], bytes_, static_cast<cudaStream_t>(a.stream));
  }

 private:
  size_t bytes_ = 0;
};

}  // namespace

void register_view_kernels(KernelRegistry& r) {
  using graph::OpType;
  const auto make = [] { return std::make_unique<ViewKernel>(); };
  // in_place_input 0: the output may be the input's own buffer.
  for (OpType op : {OpType::kReshape, OpType::kFlatten, OpType::kSqueeze, OpType::kUnsqueeze,
                    OpType::kIdentity})
    r.add_all(op, Backend::kCuda, all_dtypes(), make, /*in_place_input=*/0);
}

}  // namespace amp::kernels::cuda_mv
