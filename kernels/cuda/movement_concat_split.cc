// CUDA Concat(axis) and Split(axis; sizes from input 1, num_outputs, or equal parts),
// mirroring kernels/cpu/movement_concat_split.cc.
//
// Both see the tensor as [outer, axis * inner]: each input (Concat) or output (Split) owns
// one contiguous block of axis_k * inner elements per outer index, at column offset
// offset_k of the whole tensor's rows. Each part is one 2-D strided copy (movement_copy.cu),
// one launch per part on the same stream. Split's part sizes come from a constant 'split'
// input, else from the outputs' static shapes (shape inference applied the opset's rules),
// so a run-time 'split' input needs no reading.
#include <algorithm>

#include "kernels/cuda/movement_cuda.h"

namespace amp::kernels::cuda_mv {
namespace {

// Dims equal except on `axis`.
bool same_except(const std::vector<int64_t>& a, const std::vector<int64_t>& b, size_t axis) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (i != axis && a[i] != b[i]) return false;
  return true;
}

// One copy per part; `concat` selects the direction (parts -> whole, or whole -> parts).
std::vector<CopyPlan> plan_parts(const std::vector<int64_t>& whole, size_t axis,
                                 const std::vector<int64_t>& part_axis_sizes, bool concat) {
  int64_t outer = 1, inner = 1;
  for (size_t i = 0; i < axis; ++i) outer *= whole[i];
  for (size_t i = axis + 1; i < whole.size(); ++i) inner *= whole[i];
  const int64_t row = whole[axis] * inner;  // elements of one whole row
  std::vector<CopyPlan> plans;
  int64_t offset = 0;
  for (int64_t size : part_axis_sizes) {
    const int64_t part = size * inner;
    const int64_t dims[2] = {outer, part};
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
    if (cfg.inputs.empty()) return invalid_model("Concat: needs at least one input");
    if (cfg.outputs.empty() || !cfg.outputs[0].present)
      return invalid_model("Concat: needs an output");
    const TensorDesc& out = cfg.outputs[0];
    AMP_ASSIGN_OR_RETURN(int64_t axis, node_attrs(cfg).get_int("axis", INT64_MIN));
    if (axis == INT64_MIN) return invalid_model("Concat: missing attribute 'axis'");
    const int64_t r = static_cast<int64_t>(out.rank());
    const int64_t a = normalize_axis(axis, r);
    if (a < 0)
      return invalid_model("Concat: axis " + std::to_string(axis) + " is out of range for rank " +
                           std::to_string(r));
    std::vector<int64_t> sizes;
    int64_t total = 0;
    for (size_t i = 0; i < cfg.inputs.size(); ++i) {
      const TensorDesc& t = cfg.inputs[i];
      if (!t.present) return invalid_model("Concat: input " + std::to_string(i) + " is absent");
      if (t.dtype != out.dtype || !same_except(t.dims, out.dims, static_cast<size_t>(a)))
        return invalid_model("Concat: input " + std::to_string(i) + " " +
                             std::string(dtype_name(t.dtype)) + dims_to_string(t.dims) +
                             " does not match output " + dims_to_string(out.dims) +
                             " outside axis " + std::to_string(a));
      total += t.dims[static_cast<size_t>(a)];
      sizes.push_back(t.dims[static_cast<size_t>(a)]);
    }
    if (total != out.dims[static_cast<size_t>(a)])
      return invalid_model("Concat: the inputs sum to " + std::to_string(total) + " on axis " +
                           std::to_string(a) + ", the output has " +
                           std::to_string(out.dims[static_cast<size_t>(a)]));
    plans_ = plan_parts(out.dims, static_cast<size_t>(a), sizes, true);
    elem_ = dtype_size(out.dtype);
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
    if (cfg.inputs.empty() || !cfg.inputs[0].present)
      return invalid_model("Split: needs a data input");
    const TensorDesc& in = cfg.inputs[0];
    AMP_ASSIGN_OR_RETURN(int64_t axis, node_attrs(cfg).get_int("axis", 0));
    const int64_t r = static_cast<int64_t>(in.rank());
    const int64_t a = normalize_axis(axis, r);
    if (a < 0)
      return invalid_model("Split: axis " + std::to_string(axis) + " is out of range for rank " +
                           std::to_string(r));
    const size_t ax = static_cast<size_t>(a);
    AMP_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, split_part_sizes(cfg, ax));
    int64_t total = 0;
    for (size_t k = 0; k < cfg.outputs.size(); ++k) {
      std::vector<int64_t> expect = in.dims;
      expect[ax] = sizes[k];
      const TensorDesc& o = cfg.outputs[k];
      if (o.present && (o.dtype != in.dtype || o.dims != expect))
        return invalid_model("Split: output " + std::to_string(k) + " is " +
                             std::string(dtype_name(o.dtype)) + dims_to_string(o.dims) +
                             ", expected " + dims_to_string(expect));
      total += sizes[k];
    }
    if (total != in.dims[ax])
      return invalid_model("Split: the parts sum to " + std::to_string(total) + ", axis " +
                           std::to_string(a) + " has size " + std::to_string(in.dims[ax]));
    plans_ = plan_parts(in.dims, ax, sizes, false);
    elem_ = dtype_size(in.dtype);
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
  r.add_all(graph::OpType::kConcat, Backend::kCuda, all_dtypes(),
            [] { return std::make_unique<ConcatKernel>(); });
  r.add_all(graph::OpType::kSplit, Backend::kCuda, all_dtypes(),
            [] { return std::make_unique<SplitKernel>(); });
}

}  // namespace amp::kernels::cuda_mv
