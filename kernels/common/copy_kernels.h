// The movement ops that only copy input 0's bytes into output 0, written once for every
// backend over a copy executor (as the elementwise family is):
//   Reshape, Flatten, Squeeze, Unsqueeze, Identity  the bytes unchanged under another
//       shape: one copy, none when the memory planner aliased output onto input
//   Transpose, DepthToSpace  a strided read: the permuted view shape inference recorded
//   Expand                   a strided read: the input broadcast, stride 0 on broadcast axes
// A backend supplies Exec with
//   static constexpr int kMaxRank;                       // its plans' rank cap
//   using Plan = ...;                                    // built once in prepare()
//   static Plan make_plan(int rank, const int64_t* dims, const int64_t* src_strides);
//   static Status copy(const Plan&, const KernelArgs&, size_t elem_size);
//   static Status copy_bytes(void* dst, const void* src, size_t bytes, const KernelArgs&);
// and registers them all with register_copy_kernels<Exec>(registry, backend).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kernels/common/kernel_params.h"
#include "kernels/common/movement_io.h"
#include "kernels/kernel_registry.h"

namespace amp::kernels {

template <typename Exec>
class StridedCopyKernel final : public Kernel {
 public:
  explicit StridedCopyKernel(bool expand) : expand_(expand) {}

  Status prepare(const KernelConfig& cfg) override {
    std::vector<int64_t> dims, strides;
    if (expand_) {
      if (cfg.inputs.empty() || !cfg.inputs[0].present || cfg.outputs.empty() ||
          !cfg.outputs[0].present)
        return invalid_model("Expand: needs a data input and an output");
      dims = cfg.outputs[0].dims;
      strides.resize(dims.size());
      AMP_RETURN_IF_ERROR(expand_source_strides(cfg.inputs[0], cfg.outputs[0], strides.data()));
    } else {
      AMP_ASSIGN_OR_RETURN(PermutedCopy p, check_permute_io(cfg));
      dims = std::move(p.dims);
      strides = std::move(p.strides);
    }
    const int rank = static_cast<int>(dims.size());
    if (rank > Exec::kMaxRank)
      return unsupported(op_label(cfg) + ": rank " + std::to_string(rank) + " exceeds " +
                         std::to_string(Exec::kMaxRank));
    plan_ = Exec::make_plan(rank, dims.data(), strides.data());
    elem_ = dtype_size(cfg.inputs[0].dtype);
    return Status::ok();
  }

  Status run(const KernelArgs& a) const override { return Exec::copy(plan_, a, elem_); }

 private:
  const bool expand_;
  typename Exec::Plan plan_{};
  size_t elem_ = 0;
};

template <typename Exec>
class ViewKernel final : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    if (cfg.inputs.empty() || !cfg.inputs[0].present || cfg.outputs.empty() ||
        !cfg.outputs[0].present)
      return invalid_model(op_label(cfg) + ": needs a data input and an output");
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
    return Exec::copy_bytes(a.outputs[0], a.inputs[0], bytes_, a);
  }

 private:
  size_t bytes_ = 0;
};

template <typename Exec>
void register_copy_kernels(KernelRegistry& r, Backend backend) {
  using graph::OpType;
  // in_place_input 0: a view's output may be the input's own buffer.
  for (OpType op : {OpType::kReshape, OpType::kFlatten, OpType::kSqueeze, OpType::kUnsqueeze,
                    OpType::kIdentity})
    r.add_all(
        op, backend, all_dtypes(), [] { return std::make_unique<ViewKernel<Exec>>(); }, 0);
  for (OpType op : {OpType::kTranspose, OpType::kDepthToSpace})
    r.add_all(op, backend, all_dtypes(),
              [] { return std::make_unique<StridedCopyKernel<Exec>>(false); });
  r.add_all(OpType::kExpand, backend, all_dtypes(),
            [] { return std::make_unique<StridedCopyKernel<Exec>>(true); });
}

}  // namespace amp::kernels
