// Concat(axis) and Split(axis; sizes from input 1, num_outputs, or equal parts).
//
// The layout and its checks are kernels/common/movement_io.h's PartsLayout: each part owns
// one contiguous block per outer index, so the copy is, per part, one row of rows
// (copy_rows, movement_common.h: fixed-size moves for short blocks).
//
// Along the channels of tensors in the convolutions' own layout (runtime/layout_plan.h) the
// parts are blocks too, of the physical dims: 8-channel blocks [N, C/8, S, 8] give each part
// C_i / 8 rows of S 8 elements per batch entry, channels-last [N, S, C] C_i elements per
// position (conv_layout_parts).
//
// With one outer index (one image along the channels, axis 0) each part is one block of the
// whole, and the memory planner places parts there (graph/planning/memory_planner.h, step
// 4): a Concat's inputs are written in place by their producers, a Split's outputs are
// views. run() copies only the parts it does not find in place. Measured on YOLOv8n and a
// ShuffleNet detector (AVX2, 8-channel blocks), see the README's CPU section.
#include <algorithm>
#include <cstring>

#include "kernels/common/movement_io.h"
#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/movement_common.h"

namespace amp::kernels::cpu {
namespace {

// Each part's block and the whole row in bytes, per outer index.
struct BlockPlan {
  int64_t outer = 1;
  std::vector<size_t> part_bytes;  // per part: part_sizes[k] * inner * elem
  size_t whole_bytes = 0;          // the concatenated tensor's block: sum of part_bytes
};

// The layout's parts for conv-layout tensors (every one of them so; the layout plan admits
// only such nodes along axis 1, with every tensor in the same kind of layout).
Status conv_layout_parts(const KernelConfig& cfg, const TensorDesc& whole, PartsLayout& l) {
  bool any = false, all = true;
  for (const std::vector<TensorDesc>* side : {&cfg.inputs, &cfg.outputs})
    for (size_t i = 0; i < side->size(); ++i) {
      const TensorDesc& t = (*side)[i];
      if (!t.present || (side == &cfg.inputs && i > 0 && cfg.node->op == graph::OpType::kSplit))
        continue;  // Split's sizes input
      any = any || t.conv_layout;
      all = all && t.conv_layout;
    }
  if (!any) return Status::ok();
  const bool blocked8 = cpu_conv_layout_blocked8(whole.dims);
  bool fits = all && l.axis == 1 && whole.rank() >= 3 && whole.rank() <= 5;
  for (int64_t size : l.part_sizes) fits = fits && (!blocked8 || size % 8 == 0);
  if (!fits)
    return internal_error(std::string(graph::op_name(cfg.node->op)) +
                          ": a conv-layout tensor where the layout plan admits none");
  if (blocked8) {
    for (int64_t& size : l.part_sizes) size /= 8;
    l.inner *= 8;
  } else {
    l.outer *= l.inner;
    l.inner = 1;
  }
  return Status::ok();
}

// With one outer index (one image along the channels, or axis 0) each part is one block of
// the whole: at these offsets.
std::vector<size_t> contiguous_part_offsets(const BlockPlan& p) {
  if (p.outer != 1 || p.part_bytes.size() < 2) return {};
  std::vector<size_t> offsets;
  size_t at = 0;
  for (size_t bytes : p.part_bytes) {
    offsets.push_back(at);
    at += bytes;
  }
  return offsets;
}

BlockPlan plan_blocks(const PartsLayout& l) {
  BlockPlan p;
  p.outer = l.outer;
  for (int64_t size : l.part_sizes) {
    const size_t b = static_cast<size_t>(size * l.inner) * l.elem_size;
    p.part_bytes.push_back(b);
    p.whole_bytes += b;
  }
  return p;
}

// Runs fn(r0, r1) over [begin, end) in batches of ~64 KiB of whole blocks, so that the
// parts' passes over a batch find it in cache.
template <typename Fn>
void for_row_batches(int64_t begin, int64_t end, size_t whole_bytes, Fn&& fn) {
  const int64_t batch = std::max<int64_t>(
      1, static_cast<int64_t>((size_t{1} << 16) / std::max<size_t>(whole_bytes, 1)));
  for (int64_t r = begin; r < end; r += batch) fn(r, std::min(end, r + batch));
}

class ConcatKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_ASSIGN_OR_RETURN(PartsLayout l, check_concat_io(cfg));
    AMP_RETURN_IF_ERROR(conv_layout_parts(cfg, cfg.outputs[0], l));
    plan_ = plan_blocks(l);
    offsets_ = contiguous_part_offsets(plan_);
    return Status::ok();
  }

  std::vector<size_t> part_offsets() const override { return offsets_; }

  Status run(const KernelArgs& args) const override {
    const BlockPlan& p = plan_;
    uint8_t* dst = args.output<uint8_t>(0);
    const size_t n = p.part_bytes.size();
    // Parts the memory plan put in place were written there by their producers.
    if (!offsets_.empty()) {
      for (size_t k = 0; k < n; ++k)
        if (args.input<uint8_t>(k) != dst + offsets_[k] && p.part_bytes[k] != 0)
          std::memcpy(dst + offsets_[k], args.input<uint8_t>(k), p.part_bytes[k]);
      return Status::ok();
    }
    parallel_for(
        p.outer, args.num_threads,
        [&](int64_t b, int64_t e) {
          for_row_batches(b, e, p.whole_bytes, [&](int64_t r0, int64_t r1) {
            size_t at = 0;  // the part's offset within the whole block
            for (size_t k = 0; k < n; ++k) {
              const size_t bytes = p.part_bytes[k];
              copy_rows(dst + static_cast<size_t>(r0) * p.whole_bytes + at,
                        static_cast<ptrdiff_t>(p.whole_bytes),
                        args.input<uint8_t>(k) + static_cast<size_t>(r0) * bytes,
                        static_cast<ptrdiff_t>(bytes), r1 - r0, bytes);
              at += bytes;
            }
          });
        },
        std::max<int64_t>(1, static_cast<int64_t>((1 << 18) / std::max<size_t>(p.whole_bytes, 1))));
    return Status::ok();
  }

 private:
  BlockPlan plan_;
  std::vector<size_t> offsets_;  // contiguous_part_offsets(plan_)
};

class SplitKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_ASSIGN_OR_RETURN(PartsLayout l, check_split_io(cfg));
    AMP_RETURN_IF_ERROR(conv_layout_parts(cfg, cfg.inputs[0], l));
    plan_ = plan_blocks(l);
    offsets_ = contiguous_part_offsets(plan_);
    return Status::ok();
  }

  std::vector<size_t> part_offsets() const override { return offsets_; }

  Status run(const KernelArgs& args) const override {
    const BlockPlan& p = plan_;
    const uint8_t* src = args.input<uint8_t>(0);
    const size_t n = p.part_bytes.size();
    // Parts the memory plan put in place are views of the input already.
    if (!offsets_.empty()) {
      for (size_t k = 0; k < n; ++k)
        if (uint8_t* d = args.output<uint8_t>(k);
            d != nullptr && d != src + offsets_[k] && p.part_bytes[k] != 0)
          std::memcpy(d, src + offsets_[k], p.part_bytes[k]);
      return Status::ok();
    }
    parallel_for(
        p.outer, args.num_threads,
        [&](int64_t b, int64_t e) {
          for_row_batches(b, e, p.whole_bytes, [&](int64_t r0, int64_t r1) {
            size_t at = 0;  // the part's offset within the whole block
            for (size_t k = 0; k < n; ++k) {
              const size_t bytes = p.part_bytes[k];
              if (uint8_t* d = args.output<uint8_t>(k); d != nullptr)
                copy_rows(d + static_cast<size_t>(r0) * bytes, static_cast<ptrdiff_t>(bytes),
                          src + static_cast<size_t>(r0) * p.whole_bytes + at,
                          static_cast<ptrdiff_t>(p.whole_bytes), r1 - r0, bytes);
              at += bytes;
            }
          });
        },
        std::max<int64_t>(1, static_cast<int64_t>((1 << 18) / std::max<size_t>(p.whole_bytes, 1))));
    return Status::ok();
  }

 private:
  BlockPlan plan_;
  std::vector<size_t> offsets_;  // contiguous_part_offsets(plan_)
};

}  // namespace

void register_concat_split_kernels(KernelRegistry& r) {
  add_any_dtype_kernel<ConcatKernel>(r, graph::OpType::kConcat, Backend::kCpu);
  add_any_dtype_kernel<SplitKernel>(r, graph::OpType::kSplit, Backend::kCpu);
}

}  // namespace amp::kernels::cpu
