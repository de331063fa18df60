// Concat(axis) and Split(axis; sizes from input 1, num_outputs, or equal parts).
//
// Both see the tensor as [outer, axis, inner]: each input (Concat) or output (Split) owns
// one contiguous block of axis_k * inner elements per outer index, so the copy is one
// memcpy per (outer, part). Split's part sizes come from a constant 'split' input, else
// from the outputs' static shapes (shape inference applied the opset's rules, opset 18's
// uneven last chunk included), so a run-time 'split' input needs no reading.
#include <algorithm>
#include <cstring>

#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/movement_common.h"

namespace amp::kernels::cpu {
namespace {

// Dims equal except on `axis`.
bool same_except(const std::vector<int64_t>& a, const std::vector<int64_t>& b, size_t axis) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (i != axis && a[i] != b[i]) return false;
  return true;
}

// Shared by Concat and Split: the outer count and each part's block size in bytes.
struct BlockPlan {
  int64_t outer = 1;
  std::vector<size_t> part_bytes;  // per part: dims[axis] * inner * elem
  size_t whole_bytes = 0;          // the concatenated tensor's block: sum of part_bytes
};

BlockPlan plan_blocks(const std::vector<int64_t>& whole, size_t axis,
                      const std::vector<const TensorDesc*>& parts, size_t elem) {
  BlockPlan p;
  int64_t inner = 1;
  for (size_t i = 0; i < axis; ++i) p.outer *= whole[i];
  for (size_t i = axis + 1; i < whole.size(); ++i) inner *= whole[i];
  for (const TensorDesc* t : parts) {
    const size_t b = t ? static_cast<size_t>(t->dims[axis] * inner) * elem : 0;
    p.part_bytes.push_back(b);
    p.whole_bytes += b;
  }
  return p;
}

class ConcatKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    const TensorDesc& out = cfg.outputs[0];
    if (cfg.inputs.empty()) return invalid_model("Concat: needs at least one input");
    AMP_ASSIGN_OR_RETURN(int64_t axis, cfg.node->attrs.get_int("axis", INT64_MIN));
    if (axis == INT64_MIN) return invalid_model("Concat: missing attribute 'axis'");
    const int64_t r = static_cast<int64_t>(out.rank());
    const int64_t a = normalize_axis(axis, r);
    if (a < 0)
      return invalid_model("Concat: axis " + std::to_string(axis) + " is out of range for rank " +
                           std::to_string(r));
    std::vector<const TensorDesc*> parts;
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
      parts.push_back(&t);
    }
    if (total != out.dims[static_cast<size_t>(a)])
      return invalid_model("Concat: the inputs sum to " + std::to_string(total) + " on axis " +
                           std::to_string(a) + ", the output has " +
                           std::to_string(out.dims[static_cast<size_t>(a)]));
    plan_ = plan_blocks(out.dims, static_cast<size_t>(a), parts, dtype_size(out.dtype));
    return Status::ok();
  }

  Status run(const KernelArgs& args) const override {
    const BlockPlan& p = plan_;
    uint8_t* dst = args.output<uint8_t>(0);
    const size_t n = p.part_bytes.size();
    parallel_for(
        p.outer, args.num_threads,
        [&](int64_t b, int64_t e) {
          for (int64_t o = b; o < e; ++o) {
            uint8_t* d = dst + static_cast<size_t>(o) * p.whole_bytes;
            for (size_t k = 0; k < n; ++k) {
              const size_t bytes = p.part_bytes[k];
              if (bytes == 0) continue;
              std::memcpy(d, args.input<uint8_t>(k) + static_cast<size_t>(o) * bytes, bytes);
              d += bytes;
            }
          }
        },
        std::max<int64_t>(1, static_cast<int64_t>((1 << 18) / std::max<size_t>(p.whole_bytes, 1))));
    return Status::ok();
  }

 private:
  BlockPlan plan_;
};

class SplitKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    const TensorDesc& in = cfg.inputs[0];
    AMP_ASSIGN_OR_RETURN(int64_t axis, cfg.node->attrs.get_int("axis", 0));
    const int64_t r = static_cast<int64_t>(in.rank());
    const int64_t a = normalize_axis(axis, r);
    if (a < 0)
      return invalid_model("Split: axis " + std::to_string(axis) + " is out of range for rank " +
                           std::to_string(r));
    const size_t ax = static_cast<size_t>(a);
    AMP_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, split_part_sizes(cfg, ax));
    std::vector<TensorDesc> shapes(cfg.outputs.size());
    std::vector<const TensorDesc*> parts;
    int64_t total = 0;
    for (size_t k = 0; k < cfg.outputs.size(); ++k) {
      shapes[k].dims = in.dims;
      shapes[k].dims[ax] = sizes[k];
      const TensorDesc& o = cfg.outputs[k];
      if (o.present && (o.dtype != in.dtype || o.dims != shapes[k].dims))
        return invalid_model("Split: output " + std::to_string(k) + " is " +
                             std::string(dtype_name(o.dtype)) + dims_to_string(o.dims) +
                             ", expected " + dims_to_string(shapes[k].dims));
      total += sizes[k];
      parts.push_back(&shapes[k]);
    }
    if (total != in.dims[ax])
      return invalid_model("Split: the parts sum to " + std::to_string(total) + ", axis " +
                           std::to_string(a) + " has size " + std::to_string(in.dims[ax]));
    plan_ = plan_blocks(in.dims, ax, parts, dtype_size(in.dtype));
    return Status::ok();
  }

  Status run(const KernelArgs& args) const override {
    const BlockPlan& p = plan_;
    const uint8_t* src = args.input<uint8_t>(0);
    const size_t n = p.part_bytes.size();
    parallel_for(
        p.outer, args.num_threads,
        [&](int64_t b, int64_t e) {
          for (int64_t o = b; o < e; ++o) {
            const uint8_t* s = src + static_cast<size_t>(o) * p.whole_bytes;
            for (size_t k = 0; k < n; ++k) {
              const size_t bytes = p.part_bytes[k];
              uint8_t* d = args.output<uint8_t>(k);
              if (d != nullptr && bytes != 0)
                std::memcpy(d + static_cast<size_t>(o) * bytes, s, bytes);
              s += bytes;
            }
          }
        },
        std::max<int64_t>(1, static_cast<int64_t>((1 << 18) / std::max<size_t>(p.whole_bytes, 1))));
    return Status::ok();
  }

 private:
  BlockPlan plan_;
};

}  // namespace

void register_movement_concat_split_kernels(KernelRegistry& r) {
  r.add_all(graph::OpType::kConcat, Backend::kCpu, all_dtypes(),
            [] { return std::make_unique<ConcatKernel>(); });
  r.add_all(graph::OpType::kSplit, Backend::kCpu, all_dtypes(),
            [] { return std::make_unique<SplitKernel>(); });
}

}  // namespace amp::kernels::cpu
