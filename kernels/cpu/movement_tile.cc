// Tile(data, repeats). The repeats' values are not needed: the static output shape says
// how far to repeat (Expand is a strided copy, movement_copy_ops.cc).
//   Tile:   output row (all axes but the last) o reads input row (o_a mod d_a), which is
//           copied repeats_last times.
#include <algorithm>
#include <cstring>

#include "kernels/common/movement_io.h"
#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/movement_common.h"

namespace amp::kernels::cpu {
namespace {

class TileKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_ASSIGN_OR_RETURN(const TileShape t, check_tile_io(cfg));
    AMP_RETURN_IF_ERROR(check_max_rank(cfg.inputs[0], "Tile input"));
    rank_ = t.rank();
    std::copy(t.in_dims.begin(), t.in_dims.end(), in_dims_);
    std::copy(t.out_dims.begin(), t.out_dims.end(), out_dims_);
    elem_ = dtype_size(cfg.inputs[0].dtype);
    numel_ = cfg.outputs[0].numel();
    return Status::ok();
  }

  Status run(const KernelArgs& args) const override {
    if (numel_ == 0) return Status::ok();
    const uint8_t* src = args.input<uint8_t>(0);
    uint8_t* dst = args.output<uint8_t>(0);
    const size_t es = elem_;
    if (rank_ == 0) {
      std::memcpy(dst, src, es);
      return Status::ok();
    }
    const int last = rank_ - 1;
    const size_t in_row = static_cast<size_t>(in_dims_[last]) * es;
    const int64_t reps = out_dims_[last] / in_dims_[last];
    const int64_t rows = numel_ / out_dims_[last];
    int64_t in_strides[kMaxRank];
    contiguous_strides(rank_, in_dims_, in_strides);
    parallel_for(
        rows, args.num_threads,
        [&](int64_t b, int64_t e) {
          int64_t idx[kMaxRank];
          int64_t rem = b;
          for (int a = last - 1; a >= 0; --a) {
            idx[a] = rem % out_dims_[a];
            rem /= out_dims_[a];
          }
          for (int64_t row = b; row < e; ++row) {
            int64_t off = 0;
            for (int a = 0; a < last; ++a) off += (idx[a] % in_dims_[a]) * in_strides[a];
            uint8_t* d = dst + static_cast<size_t>(row) * in_row * static_cast<size_t>(reps);
            if (in_dims_[last] == 1) {
              fill_elements(d, src + static_cast<size_t>(off) * es, reps, es);
            } else {
              for (int64_t k = 0; k < reps; ++k)
                std::memcpy(d + static_cast<size_t>(k) * in_row,
                            src + static_cast<size_t>(off) * es, in_row);
            }
            for (int a = last - 1; a >= 0; --a) {
              if (++idx[a] < out_dims_[a]) break;
              idx[a] = 0;
            }
          }
        },
        std::max<int64_t>(1, 32768 / std::max<int64_t>(out_dims_[last], 1)));
    return Status::ok();
  }

 private:
  int rank_ = 0;
  int64_t in_dims_[kMaxRank] = {};
  int64_t out_dims_[kMaxRank] = {};
  size_t elem_ = 0;
  int64_t numel_ = 0;
};

}  // namespace

void register_movement_tile_kernels(KernelRegistry& r) {
  r.add_all(graph::OpType::kTile, Backend::kCpu, all_dtypes(),
            [] { return std::make_unique<TileKernel>(); });
}

}  // namespace amp::kernels::cpu
