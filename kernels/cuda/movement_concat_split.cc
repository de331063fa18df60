// CUDA Concat(axis) and Split(axis; sizes from input 1, num_outputs, or equal parts),
// mirroring kernels/cpu/movement_concat_split.cc.
//
// The layout and its checks are kernels/common/movement_io.h's PartsLayout: the tensor as
// [outer, axis * inner] rows, each part at column offset offset_k. Each part is one 2-D
// strided copy (movement_copy.cu), one launch per part on the same stream.
#include <algorithm>

#include "kernels/common/movement_io.h"
#include "kernels/cuda/movement_cuda.h"

namespace amp::kernels::cuda {
namespace {

// One copy per part; `concat` selects the direction (parts -> whole, or whole -> parts).
std::vector<CopyPlan> plan_parts(const PartsLayout& l, bool concat) {
  const int64_t row = l.whole_dims[l.axis] * l.inner;  // elements of one whole row
  std::vector<CopyPlan> plans;
  int64_t offset = 0;
  for (int64_t size : l.part_sizes) {
    const int64_t part = size * l.inner;
    const int64_t dims[2] = {l.outer, part};
    const int64_t part_strides[2] = {part, 1};
    const int64_t whole_strides[2] = {row, 1};
    if (concat)
      plans.push_back(make_copy_plan(2, dims, part_strides, 0, whole_strides, offset));
    else
      plans.push_back(make_copy_plan(2, dims, whole_strides, offset, part_strides, 0));
    offset += part;
  }
  return plans;
}

class ConcatKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_ASSIGN_OR_RETURN(const PartsLayout l, check_concat_io(cfg));
    plans_ = plan_parts(l, /*concat=*/true);
    elem_ = l.elem_size;
    return Status::ok();
  }

  Status run(const KernelArgs& args) const override {
    const cudaStream_t s = static_cast<cudaStream_t>(args.stream);
    for (size_t k = 0; k < plans_.size(); ++k)
      AMP_RETURN_IF_ERROR(launch_copy_plan(plans_[k], args.inputs[k], args.outputs[0], elem_, s));
    return Status::ok();
  }

 private:
  std::vector<CopyPlan> plans_;
  size_t elem_ = 0;
};

class SplitKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_ASSIGN_OR_RETURN(const PartsLayout l, check_split_io(cfg));
    plans_ = plan_parts(l, /*concat=*/false);
    elem_ = l.elem_size;
    return Status::ok();
  }

  Status run(const KernelArgs& args) const override {
    const cudaStream_t s = static_cast<cudaStream_t>(args.stream);
    for (size_t k = 0; k < plans_.size(); ++k)
      if (args.outputs[k] != nullptr)
        AMP_RETURN_IF_ERROR(launch_copy_plan(plans_[k], args.inputs[0], args.outputs[k], elem_, s));
    return Status::ok();
  }

 private:
  std::vector<CopyPlan> plans_;
  size_t elem_ = 0;
};

}  // namespace

void register_concat_split_kernels(KernelRegistry& r) {
  add_any_dtype_kernel<ConcatKernel>(r, graph::OpType::kConcat, Backend::kCuda);
  add_any_dtype_kernel<SplitKernel>(r, graph::OpType::kSplit, Backend::kCuda);
}

}  // namespace amp::kernels::cuda
