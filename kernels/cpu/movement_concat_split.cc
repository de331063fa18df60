// Concat(axis) and Split(axis; sizes from input 1, num_outputs, or equal parts).
//
// The layout and its checks are kernels/common/movement_io.h's PartsLayout: each part owns
// one contiguous block per outer index, so the copy is one memcpy per (outer, part).
#include <algorithm>
#include <cstring>

#include "kernels/common/movement_io.h"
#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/movement_common.h"

namespace amp::kernels::cpu {
namespace {

// Each part's block and the whole row in bytes, per outer index.
struct BlockPlan {
  int64_t outer = 1;
  std::vector<size_t> part_bytes;  // per part: part_sizes[k] * inner * elem
  size_t whole_bytes = 0;          // the concatenated tensor's block: sum of part_bytes
};

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

class ConcatKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_ASSIGN_OR_RETURN(const PartsLayout l, check_concat_io(cfg));
    plan_ = plan_blocks(l);
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
    AMP_ASSIGN_OR_RETURN(const PartsLayout l, check_split_io(cfg));
    plan_ = plan_blocks(l);
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

void register_concat_split_kernels(KernelRegistry& r) {
  add_any_dtype_kernel<ConcatKernel>(r, graph::OpType::kConcat, Backend::kCpu);
  add_any_dtype_kernel<SplitKernel>(r, graph::OpType::kSplit, Backend::kCpu);
}

}  // namespace amp::kernels::cpu
