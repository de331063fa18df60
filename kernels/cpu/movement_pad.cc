// Pad(data, pads, constant_value?, axes?) with mode constant | reflect | edge | wrap.
//
// Each axis gets an index map out -> in (or -1 for "the constant"), built once from the
// pads: in prepare() when pads and axes are constants, else in run() into the workspace.
// Negative pads crop. reflect and wrap repeat as numpy.pad does when a pad exceeds the
// axis. A row (all axes but the last) whose leading index maps to -1 is all constant;
// otherwise its interior is one memcpy and only the padded edges go through the map.
#include <algorithm>
#include <cstring>

#include "kernels/common/pad_plan.h"
#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/movement_common.h"

namespace amp::kernels::cpu {
namespace {

template <typename E>
void pad_row(const E* src, const int64_t* map, int64_t lo, int64_t hi, int64_t n, E cval, E* dst) {
  for (int64_t j = 0; j < lo; ++j) dst[j] = map[j] < 0 ? cval : src[map[j]];
  if (hi > lo) std::memcpy(dst + lo, src + map[lo], static_cast<size_t>(hi - lo) * sizeof(E));
  for (int64_t j = std::max(hi, lo); j < n; ++j) dst[j] = map[j] < 0 ? cval : src[map[j]];
}

class PadKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_ASSIGN_OR_RETURN(setup_, check_pad_io(cfg));
    const PadStatic& p = setup_.p;
    map_len_ = 0;
    for (int a = 0; a < p.rank; ++a) map_len_ += p.out_dims[a];
    resolved_ = setup_.pads_constant;
    if (resolved_) {
      int64_t begin[kPadMaxRank], end[kPadMaxRank];
      AMP_RETURN_IF_ERROR(resolve_constant_pads(cfg, p, begin, end));
      map_.resize(static_cast<size_t>(map_len_));
      build_maps(begin, map_.data(), &lo_, &hi_);
    }
    return Status::ok();
  }

  size_t workspace_bytes() const override {
    return resolved_ ? 0 : static_cast<size_t>(map_len_) * sizeof(int64_t);
  }

  Status run(const KernelArgs& a) const override {
    const PadStatic& p = setup_.p;
    const int64_t* map = map_.data();
    int64_t lo = lo_, hi = hi_;
    if (!resolved_) {
      int64_t begin[kPadMaxRank], end[kPadMaxRank];
      const int bad = pad_resolve(p, a.inputs[1], p.has_axes ? a.inputs[3] : nullptr, begin, end);
      if (bad >= 0) return invalid_input(describe_pad_error(p, bad, begin, end));
      int64_t* ws = static_cast<int64_t*>(a.workspace);
      build_maps(begin, ws, &lo, &hi);
      map = ws;
    }
    if (setup_.numel == 0) return Status::ok();
    uint64_t cval = 0;  // the fill element's bytes (zero when not given)
    if (setup_.has_value) std::memcpy(&cval, a.inputs[2], setup_.elem_size);
    const uint8_t* src = a.input<uint8_t>(0);
    uint8_t* dst = a.output<uint8_t>(0);
    if (p.rank == 0) {
      std::memcpy(dst, src, setup_.elem_size);
      return Status::ok();
    }
    const int last = p.rank - 1;
    const int64_t width = p.out_dims[last];
    const int64_t rows = setup_.numel / width;
    int64_t in_strides[kMaxRank];
    contiguous_strides(p.rank, p.in_dims, in_strides);
    const int64_t* last_map = map + (map_len_ - width);
    const size_t es = setup_.elem_size;
    parallel_for(
        rows, a.num_threads,
        [&](int64_t b, int64_t e) {
          int64_t idx[kMaxRank];
          int64_t rem = b;
          for (int ax = last - 1; ax >= 0; --ax) {
            idx[ax] = rem % p.out_dims[ax];
            rem /= p.out_dims[ax];
          }
          for (int64_t row = b; row < e; ++row) {
            uint8_t* d = dst + static_cast<size_t>(row * width) * es;
            int64_t off = 0;
            bool constant_row = false;
            const int64_t* m = map;
            for (int ax = 0; ax < last; ++ax) {
              const int64_t s = m[idx[ax]];
              m += p.out_dims[ax];
              if (s < 0) constant_row = true;
              off += s * in_strides[ax];
            }
            if (constant_row) {
              fill_elements(d, &cval, width, es);
            } else {
              const uint8_t* s = src + static_cast<size_t>(off) * es;
              switch (es) {
                case 1:
                  pad_row(s, last_map, lo, hi, width, static_cast<uint8_t>(cval), d);
                  break;
                case 2:
                  pad_row(reinterpret_cast<const uint16_t*>(s), last_map, lo, hi, width,
                          static_cast<uint16_t>(cval), reinterpret_cast<uint16_t*>(d));
                  break;
                case 4:
                  pad_row(reinterpret_cast<const uint32_t*>(s), last_map, lo, hi, width,
                          static_cast<uint32_t>(cval), reinterpret_cast<uint32_t*>(d));
                  break;
                default:
                  pad_row(reinterpret_cast<const uint64_t*>(s), last_map, lo, hi, width, cval,
                          reinterpret_cast<uint64_t*>(d));
                  break;
              }
            }
            for (int ax = last - 1; ax >= 0; --ax) {
              if (++idx[ax] < p.out_dims[ax]) break;
              idx[ax] = 0;
            }
          }
        },
        std::max<int64_t>(1, 32768 / std::max<int64_t>(width, 1)));
    return Status::ok();
  }

 private:
  // Writes the per-axis maps (axis after axis) from the begin pads, plus the last axis'
  // interior [lo, hi), where out j reads in j - begin.
  void build_maps(const int64_t* begin, int64_t* map, int64_t* lo, int64_t* hi) const {
    const PadStatic& p = setup_.p;
    int64_t* m = map;
    for (int a = 0; a < p.rank; ++a) {
      for (int64_t o = 0; o < p.out_dims[a]; ++o)
        m[o] = pad_source(p.mode, o, begin[a], p.in_dims[a]);
      m += p.out_dims[a];
    }
    if (p.rank > 0) {
      const int last = p.rank - 1;
      *lo = std::clamp<int64_t>(begin[last], 0, p.out_dims[last]);
      *hi = std::clamp<int64_t>(begin[last] + p.in_dims[last], *lo, p.out_dims[last]);
    }
  }

  PadSetup setup_;
  int64_t map_len_ = 0;
  bool resolved_ = false;
  std::vector<int64_t> map_;
  int64_t lo_ = 0, hi_ = 0;
};

}  // namespace

void register_pad_kernels(KernelRegistry& r) {
  add_any_dtype_kernel<PadKernel>(r, graph::OpType::kPad, Backend::kCpu);
}

}  // namespace amp::kernels::cpu
